import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APP_ID, emulator, MGMT, REST_KEY, type TestEmulator } from "./helpers.js";
import { startReceiver } from "./receiver.helpers.js";

/**
 * Every served operation of the REST and calls planes answers with (at least) the response shape the reference's
 * examples document, as transcribed into test/fixtures/response-shapes.json: a missing key or a wrong JSON type
 * fails, and so does a served operation the file has no entry for.
 */

type Shape = string | Shape[] | { [key: string]: Shape };
interface Operation {
  operation: string;
  request: string;
  shape: Shape;
  as?: string;
  /** Authenticate with the call token saved as `ct` (the calls SDK's token check). */
  callToken?: boolean;
  body?: unknown;
  save?: Record<string, string>;
  /** Where the shape comes from when the reference has no example for it. */
  source?: string;
}
const doc = JSON.parse(readFileSync(new URL("./fixtures/response-shapes.json", import.meta.url), "utf8")) as {
  defs: Record<string, Shape>;
  operations: Operation[];
};

function typeOf(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "array" : typeof v;
}

/** What in `value` does not conform to `shape`, as `path: problem` lines. */
function problems(value: unknown, shape: Shape, path = "$"): string[] {
  if (typeof shape === "string") {
    if (shape.startsWith("#")) return problems(value, doc.defs[shape.slice(1)], path);
    return typeOf(value) === shape ? [] : [`${path}: expected ${shape}, got ${typeOf(value)}`];
  }
  if (Array.isArray(shape)) {
    if (!Array.isArray(value)) return [`${path}: expected array, got ${typeOf(value)}`];
    // An empty list would pass whatever its items look like: the requests are set up so that every list has some.
    if (value.length === 0) return [`${path}: empty, so its items cannot be checked`];
    return value.flatMap((item, i) => problems(item, shape[0], `${path}[${i}]`));
  }
  if (typeOf(value) !== "object") return [`${path}: expected object, got ${typeOf(value)}`];
  const obj = value as Record<string, unknown>;
  return Object.entries(shape).flatMap(([k, s]) => (k in obj ? problems(obj[k], s, `${path}.${k}`) : [`${path}.${k}: missing`]));
}

/**
 * The served operations of the REST and calls planes, named as in the fixture (`calls: ` for the calls plane), the
 * campaigns service's aside.
 */
function servedOperations(e: TestEmulator): string[] {
  const out = new Set<string>();
  for (const r of e.app.routes) {
    if (r.method === "ALL") continue;
    const rest = r.path.match(/^\/@rest\/:appId\/:region\/v3(\/.*)$/);
    const calls = r.path.match(/^\/@calls\/:appId\/:region\/v3(\/.*)$/);
    // The campaigns service's published file has no response examples: test/campaigns.test.ts asserts its answers.
    if (rest && !rest[1].startsWith("/campaigns/")) out.add(`${r.method} ${rest[1]}`);
    if (calls) out.add(`calls: ${r.method} ${calls[1]}`);
  }
  return [...out];
}

let e: TestEmulator;
let agent: Awaited<ReturnType<typeof startReceiver>>;
const vars: Record<string, string> = {};
const fill = (s: string) => s.replace(/\{(\w)\}/g, (_, k: string) => vars[k] ?? `{${k}}`);
const fillBody = (b: unknown): unknown => (b === undefined ? undefined : JSON.parse(fill(JSON.stringify(b))));

beforeAll(async () => {
  e = await emulator();
  e.clock.freeze(2_000_000_000_000);
  const send = async (body: Record<string, unknown>, as: string) => (await e.post("/v3/messages", body, { onBehalfOf: as })).body.data.id as string;
  vars.g = await send({ receiver: "supergroup", receiverType: "group", data: { text: "group" } }, "superhero1");
  vars.i = await send(
    { receiver: "superhero2", receiverType: "user", category: "interactive", type: "form", data: { interactiveData: { submitElement: { elementId: "submit" } } } },
    "superhero1",
  );
  await e.post("/v3/users", { uid: "shapebot", name: "Shape Bot", avatar: "https://example.com/bot.png" });
  for (const uid of ["superhero3", "superhero4"]) await send({ receiver: uid, receiverType: "user", data: { text: "hi" } }, "superhero1");
  const call = await e.post(`/_emulator/apps/${APP_ID}/calls`, { initiator: "superhero1", receiver: "superhero2", receiverType: "user" });
  vars.s = call.body.call.sessionId;
  // superhero2's devices for the push-token operations ({p}: the auth token they use; its voip token and another
  // device's stay listed), and a BYO agent that answers ({r}).
  const authToken = async () => (await e.post("/v3/users/superhero2/auth_tokens", { force: true })).body.data.authToken as string;
  vars.p = await authToken();
  await e.post("/v3/notifications/push/v1/tokens", { platform: "apns_ios_voip", providerId: "shape-apns", voipToken: "shape-voip", authToken: vars.p });
  await e.post("/v3/notifications/push/v1/tokens", { platform: "fcm_web", providerId: "shape-fcm", fcmToken: "shape-web", authToken: await authToken() });
  agent = await startReceiver("/agent", (_, res) => res.end());
  vars.r = agent.url;
});
afterAll(async () => {
  await agent?.close();
  e?.emulator.notifications.close();
});

describe("response shapes (test/fixtures/response-shapes.json)", () => {
  it("has an entry for every served operation of the REST and calls planes", () => {
    const listed = new Set(doc.operations.map((o) => o.operation));
    expect(servedOperations(e).filter((op) => !listed.has(op))).toEqual([]);
    expect(doc.operations.filter((o) => !servedOperations(e).includes(o.operation)).map((o) => o.operation)).toEqual([]);
  });

  it("answers every listed operation with its documented shape", async () => {
    const failures: string[] = [];
    for (const o of doc.operations) {
      const [method, target] = o.request.split(" ");
      const path = fill(target.startsWith("calls:") ? `/${APP_ID}.call-us${target.slice("calls:".length)}` : target);
      // The calls SDK's token check authenticates with the call token an earlier entry saved, not an apikey.
      const auth = o.callToken ? { key: null, headers: { callToken: vars.ct } } : { onBehalfOf: o.as };
      const r = await e.call(method, path, { ...auth, body: fillBody(o.body) });
      if (r.status !== 200) {
        failures.push(`${o.operation}: status ${r.status} ${JSON.stringify(r.body)}`);
        continue;
      }
      failures.push(...problems(r.body, o.shape).map((p) => `${o.operation}: ${p}`));
      for (const [k, at] of Object.entries(o.save ?? {})) vars[k] = at.split(".").reduce((v: any, key) => v?.[key], r.body);
    }
    expect(failures).toEqual([]);
  });
});

/**
 * The last differences from the published examples (issue 37), one case each. Where an example and its schema
 * disagree, docs/coverage.md says which one the emulator follows.
 */
describe("published examples: the cases the shape table does not reach", () => {
  let f: TestEmulator;
  const N = "/v3/notifications";
  const ext = (method: string, id: string, body?: unknown) => f.mgmt(method, `/apps/${APP_ID}/extensions/${id}/v1/settings`, body);
  beforeAll(async () => {
    f = await emulator();
    f.clock.freeze(2_000_000_000_000);
    await f.mgmt("POST", `/apps/${APP_ID}/extensions`, { enabled: ["intercom", "chatwoot", "gifs-giphy", "xss-filter", "sms-notification"] });
  });
  afterAll(() => f?.emulator.notifications.close());

  it("1. apps: appOwner.id is a string; listed apps carry accessKey", async () => {
    const made = (await f.mgmt("POST", "/apps", { name: "Shapes", region: "us" })).body.data;
    expect(made.appOwner.id).toEqual(expect.any(String));
    const listed = (await f.mgmt("GET", `/apps?searchKey=${made.id}`)).body.data[0];
    expect(listed.appOwner.id).toEqual(expect.any(String));
    const fullAccess = Object.values(made.apiKeys as Record<string, { apiKey: string; scope: string }>).find((k) => k.scope === "fullAccess");
    expect(listed.accessKey).toBe(fullAccess!.apiKey);
  });

  it("2. extensions list: items carry webhookURL and adminURL, meta.pagination.links.next while pages follow", async () => {
    const first = await f.mgmt("GET", `/apps/${APP_ID}/extensions?perPage=25`);
    const widget = first.body.data[0];
    expect(widget.webhookURL).toMatch(/^https:\/\/widget-us\.cometchat\.io\//);
    expect(widget.adminURL).toMatch(/^https:\/\/widget-us\.cometchat\.io\/v1\/show-setting\?appToken=\S+/);
    const next = first.body.meta.pagination.links.next as string;
    expect(new URL(next).searchParams.get("page")).toBe("2");
    const second = await f.call("GET", next, { key: null, headers: { ...MGMT } });
    expect(second.body.data[0].id).not.toBe(widget.id);
    expect(second.body.meta.pagination.links).toEqual({});
  });

  it("3. app settings: core.notifications.push accessible / enabled / advanced", async () => {
    const s = (await f.mgmt("GET", `/apps/${APP_ID}/settings`)).body.data;
    for (const k of ["accessible", "enabled", "advanced.enabled"]) expect(typeof s[`core.notifications.push.${k}`]).toBe("boolean");
    expect(s["core.notifications.push.advanced.included"]).toEqual([]);
  });

  it("4. Intercom and Chatwoot settings carry appId and the service's webhookURL on store, update and get", async () => {
    const cases = [
      ["intercom", { intercomAccessToken: "tok", customerSupportUid: "superhero1" }],
      ["chatwoot", { chatwootAccessToken: "tok", chatwootAccountId: "1", chatwootInboxId: "2", customerSupportUid: "superhero1" }],
    ] as const;
    for (const [id, settings] of cases) {
      for (const r of [await ext("POST", id, { settings }), await ext("PUT", id, { settings: { customerSupportUid: "superhero2" } }), await ext("GET", id)]) {
        expect(r.body.data.body.data.settings).toMatchObject({ appId: APP_ID, webhookURL: expect.stringMatching(new RegExp(`^https://${id}-us\\.cometchat\\.io/.+token=`)) });
      }
    }
  });

  it("5. Giphy and XSS filter deletes answer under body.data.settings", async () => {
    await ext("POST", "gifs-giphy", { settings: { giphyApiKey: "k" } });
    expect((await ext("DELETE", "gifs-giphy")).body.data.body).toEqual({ data: { settings: { success: true } } });
    await ext("POST", "xss-filter", { settings: { dropMessage: true } });
    expect((await ext("DELETE", "xss-filter")).body.data.body).toEqual({ data: { settings: { dropMessage: false } } });
  });

  it("6. SMS notification settings: store, update and delete answer body {success: true}", async () => {
    const settings = { fromMobileNo: "+14155550100", messageDelay: 60, twilioAccountSid: "AC1", twilioAuthToken: "t", websiteURL: "https://example.com" };
    expect((await ext("POST", "sms-notification", { settings })).body.data.body).toEqual({ success: true });
    expect((await ext("PUT", "sms-notification", { settings: { messageDelay: 90 } })).body.data.body).toEqual({ success: true });
    expect((await ext("DELETE", "sms-notification")).body.data.body).toEqual({ success: true });
  });

  it("7. moderation reasons: get and update answer createdAt / updatedAt as strings", async () => {
    await f.post("/v3/moderation/reasons", { id: "shape-reason", name: "Shape" });
    for (const r of [await f.get("/v3/moderation/reasons/shape-reason"), await f.put("/v3/moderation/reasons/shape-reason", { name: "Shaped" })])
      expect([typeof r.body.data.createdAt, typeof r.body.data.updatedAt]).toEqual(["string", "string"]);
  });

  it("8. keyword lists split comma-separated searchTerms, in JSON and in the CSV upload's form", async () => {
    const json = await f.post("/v3/moderation/keywords", { id: "csv-string", name: "Split", searchTerms: "a, b,c" });
    expect(json.body.data.searchTerms).toEqual(["a", "b", "c"]);
    expect((await f.put("/v3/moderation/keywords/csv-string", { searchTerms: "d,e" })).body.data.searchTerms).toEqual(["d", "e"]);
    const form = new FormData();
    form.append("id", "csv-form");
    form.append("name", "Form");
    form.append("searchTerms", "x,y");
    form.append("file", new Blob(["z"], { type: "text/csv" }), "words.csv");
    const res = await f.app.request("http://localhost/v3/moderation/keywords", { method: "POST", headers: { apikey: REST_KEY }, body: form });
    expect(((await res.json()) as any).data.searchTerms).toEqual(["x", "y", "z"]);
  });

  it("9. rule conditions on media operands carry a message per threshold", async () => {
    const conditions = [{ operand: "image", value: ["violence_greaterThan_30"] }, { operand: "video", value: ["nudity_greaterThan_50"] }];
    const r = await f.post("/v3/moderation/rules", { id: "media-rule", name: "Media", enabled: false, action: ["blockMessage"], conditions });
    expect(r.body.data.conditions.map((c: any) => c.message)).toEqual([
      ["Image contains violence with confidence greater than 30"],
      ["Video contains nudity with confidence greater than 50"],
    ]);
    const builtIn = (await f.get("/v3/moderation/rules/image-moderation")).body.data.conditions[0];
    expect(builtIn.message).toEqual([expect.stringMatching(/^Image contains .+ with confidence greater than \d+$/)]);
  });

  it("10. notification logs: suppressed records keep their payload; APNs flags 1/0; call fields; a reaction's sender is the author", async () => {
    await f.post(`${N}/push/v1/providers/apns`, { providerId: "apns-logs", keyId: "K", teamId: "T", bundleId: "com.example", p8Key: "p8key0123456789", includeContentAvailable: true });
    const authToken = async (uid: string) => (await f.post(`/v3/users/${uid}/auth_tokens`, { force: true })).body.data.authToken;
    await f.post(`${N}/push/v1/tokens`, { platform: "apns_ios_device", providerId: "apns-logs", deviceToken: "logs-apns", authToken: await authToken("superhero3") });
    await f.post(`${N}/push/v1/tokens`, { platform: "apns_ios_device", providerId: "apns-logs", deviceToken: "logs-apns-1", authToken: await authToken("superhero1") });
    const m = await f.post("/v3/messages", { receiver: "superhero3", receiverType: "user", data: { text: "first" } }, { onBehalfOf: "superhero1" });
    await f.post(`/v3/messages/${m.body.data.id}/reactions/👍`, undefined, { onBehalfOf: "superhero3" });
    const call = (await f.post(`/_emulator/apps/${APP_ID}/calls`, { initiator: "superhero1", receiver: "superhero3", receiverType: "user" }, { key: null })).body.call;
    await f.put(`${N}/v1/preferences/mute?uid=superhero3`, { conversations: [{ id: "superhero1", type: "oneOnOne" }] });
    await f.post("/v3/messages", { receiver: "superhero3", receiverType: "user", data: { text: "muted" } }, { onBehalfOf: "superhero1" });
    const logs = (await f.get(`${N}/v1/logs?provider=apns`)).body.data as any[];
    const muted = logs.find((l) => l.reason === "MUTE_PREFERENCE");
    expect(muted.payload).toMatchObject({ type: "apns", payload: { body: "muted" }, contentAvailable: 1, mutableContent: 0 });
    const sent = logs.find((l) => l.notificationTriggered && l.trigger === "after_message");
    expect([sent.payload.contentAvailable, sent.payload.mutableContent]).toEqual([1, 0]);
    const rang = logs.find((l) => l.trigger === "initiated" && l.pushToken === "logs-apns");
    expect(rang.payload.payload).toMatchObject({ sessionId: call.sessionId, callAction: "initiated", callType: expect.any(String) });
    const reaction = logs.find((l) => l.trigger === "message_reaction_added" && l.pushToken === "logs-apns-1");
    expect([reaction.sender, reaction.reactionSender]).toEqual(["superhero1", "superhero3"]);
    // The published example (a reaction, type "chat"): the call fields and sentAt are there, as null.
    expect(reaction.payload.payload).toMatchObject({ type: "chat", sessionId: null, callAction: null, callType: null, sentAt: null });
    expect(Object.keys(reaction.payload.payload)).toEqual(expect.arrayContaining(["sessionId", "callAction", "callType", "sentAt"]));
    expect(sent.payload.payload).toMatchObject({ type: "chat", sessionId: null, callAction: null, callType: null, sentAt: expect.any(String) });
  });

  it("11. GET /users/{uid}/messages without onBehalfOf: page-style meta (perPage, default 100) next to a cursor", async () => {
    await f.post("/v3/users", { uid: "pager", name: "Pager" });
    for (const text of ["p1", "p2", "p3"]) await f.post("/v3/messages", { receiver: "pager", receiverType: "user", data: { text } }, { onBehalfOf: "superhero4" });
    const all = await f.get("/v3/users/pager/messages");
    expect(all.body.meta.pagination).toMatchObject({ count: 3, per_page: 100, current_page: 1, total_pages: 1 });
    expect(all.body.meta.cursor).toEqual({ id: Number(all.body.data.at(-1).id), affix: "append" });
    const two = await f.get("/v3/users/pager/messages?perPage=2&affix=prepend");
    expect(two.body.data.map((d: any) => d.data.text)).toEqual(["p2", "p3"]);
    expect(two.body.meta.pagination).toMatchObject({ count: 2, per_page: 2 });
    expect(two.body.meta.cursor).toEqual({ id: Number(two.body.data[0].id), affix: "prepend" });
    // With onBehalfOf the list keeps the message cursor (limit, default 10) alone.
    const mine = await f.get("/v3/users/pager/messages", { onBehalfOf: "superhero4" });
    expect(mine.body.meta.pagination).toBeUndefined();
    expect(mine.body.meta.current.limit).toBe(10);
  });
});
