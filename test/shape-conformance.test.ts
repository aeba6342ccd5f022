import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APP_ID, emulator, type TestEmulator } from "./helpers.js";
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

/** The served operations of the REST and calls planes, named as in the fixture (`calls: ` for the calls plane). */
function servedOperations(e: TestEmulator): string[] {
  const out = new Set<string>();
  for (const r of e.app.routes) {
    if (r.method === "ALL") continue;
    const rest = r.path.match(/^\/@rest\/:appId\/:region\/v3(\/.*)$/);
    const calls = r.path.match(/^\/@calls\/:appId\/:region\/v3(\/.*)$/);
    if (rest) out.add(`${r.method} ${rest[1]}`);
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
      const r = await e.call(method, path, { onBehalfOf: o.as, body: fillBody(o.body) });
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
