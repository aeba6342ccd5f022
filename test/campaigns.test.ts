import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { APP_ID, AUTH_KEY, emulator, type CallOptions, type Reply, type TestEmulator } from "./helpers.js";
import { tempDir } from "./tmp.helpers.js";

/** The campaigns service's REST API (`/v3/campaigns`, docs/campaigns.md): every operation's answers, limits and errors. */

let e: TestEmulator;
const B = `/${APP_ID}.api-us/v3/campaigns`;
const C = `/${APP_ID}.apiclient-us/v3.0`;
const get = (path: string, opts?: CallOptions) => e.get(B + path, opts);
const post = (path: string, body?: unknown, opts?: CallOptions) => e.post(B + path, body, opts);
const put = (path: string, body?: unknown, opts?: CallOptions) => e.put(B + path, body, opts);
const del = (path: string, opts?: CallOptions) => e.call("DELETE", B + path, opts);
const as = (uid: string): CallOptions => ({ headers: { onbehalfof: uid } });

/** Asserts the service's envelope (source campaigns-service) and returns its `error`. */
function refused(reply: Reply, status: number, code: string) {
  const error = reply.body?.error;
  if (reply.status !== status || error?.code !== code) throw new Error(`expected ${status} ${code}, got ${reply.status} ${JSON.stringify(reply.body)}`);
  expect(error).toMatchObject({ code, message: expect.any(String), devMessage: expect.any(String), source: "campaigns-service" });
  return error as { message: string; devMessage: string; details?: unknown };
}

const freeze = (now: number) => e.put("/_emulator/clock", { mode: "frozen", now }, { key: null });
/** A past time: a campaign scheduled near it is overdue on the real clock (after a restart). */
const T0 = 1_700_000_000;

const IN_APP = { channelType: "in_app", content: { title: "Hi {{name}}", body: "Use {{code}} at {{shop}}" } };
const PUSH = { channelType: "push", content: { title: "Hey {{name}}", body: "{{code}}" } };

async function approvedTemplate(extra: Record<string, unknown> = {}) {
  const t = await post("/templates", { name: "Spring Sale", status: "approved", variableSchema: [{ key: "name", default: "friend" }, "code", { key: "shop", default: "our shop" }], channels: [IN_APP, PUSH], ...extra });
  expect(t.status).toBe(201);
  return t.body.data;
}

async function draftCampaign(recipients: string[], extra: Record<string, unknown> = {}) {
  const t = await approvedTemplate();
  const cam = (await post("/campaigns", { name: "Spring", templateId: t.templateId, templateVersion: 1, variables: { code: "SPRING" }, ...extra })).body.data;
  if (recipients.length > 0) expect((await post(`/campaigns/${cam.id}/recipients`, { userIds: recipients })).status).toBe(201);
  return { t, cam };
}

beforeEach(async () => {
  e = await emulator();
  await freeze(T0);
});

describe("address and credentials", () => {
  it("answers under /v3/campaigns of the app's REST host (path label, host label, default app) with a fullAccess apikey", async () => {
    expect((await get("/templates/categories")).body).toEqual({ data: [], meta: { current: { limit: 20, count: 0 } } });
    expect((await e.get("/v3/campaigns/channels")).status).toBe(200);
    expect((await e.get(`http://${APP_ID}.api-us.localhost/v3/campaigns/templates`)).status).toBe(200);
  });

  it("refuses a missing or unknown key (401) and an authOnly key (403) in the service's envelope, changing nothing", async () => {
    expect(refused(await get("/templates", { key: null }), 401, "ERR_UNAUTHORIZED").message).toBe("apikey header is required");
    refused(await get("/templates", { key: "nope" }), 401, "ERR_UNAUTHORIZED");
    refused(await post("/templates/categories", { name: "x" }, { key: AUTH_KEY }), 403, "ERR_FORBIDDEN");
    expect((await get("/templates/categories")).body.data).toEqual([]);
    refused(await e.get(`/unknownapp.api-us/v3/campaigns/templates`), 401, "AUTH_ERR_INVALID_APPID");
  });

  it("answers an unknown path with the service's 404, and bad input with ERR_VALIDATION and a list of sentences", async () => {
    const missing = refused(await get("/segments"), 404, "ERR_NOT_FOUND");
    expect(missing.devMessage).toBe("Cannot GET /v3/campaigns/segments");
    // The served description names the 50 operations by their published ids.
    const served = (await e.get("/_emulator/openapi/campaigns.json", { key: null })).body;
    const ids = Object.values(served.paths).flatMap((ops: any) => Object.values(ops).map((o: any) => o.operationId));
    expect(ids).toHaveLength(50);
    expect(ids).toContain("NotificationSendController_send");
    refused(await get("/segments", { key: null }), 401, "ERR_UNAUTHORIZED");
    // The near-miss table knows the service's paths.
    expect(refused(await get("/template"), 404, "ERR_NOT_FOUND").devMessage).toBe("Cannot GET /v3/campaigns/template Hint: did you mean GET /v3/campaigns/templates?");
    const bad = refused(await post("/templates/categories", { name: 5 }), 400, "ERR_VALIDATION");
    expect(bad.details).toEqual(["The name must be a string."]);
    refused(await get("/templates?limit=101"), 400, "ERR_VALIDATION");
    refused(await get("/templates?limit=0"), 400, "ERR_VALIDATION");
    refused(await get("/templates?order=up"), 400, "ERR_VALIDATION");
    // An error a rule injects is the service's too.
    expect((await e.post("/_emulator/rules", { match: { path: "/v3/campaigns/channels" }, effect: { status: 503 } }, { key: null })).status).toBe(201);
    expect((await get("/channels")).body.error).toMatchObject({ source: "campaigns-service", code: "ERR_OPERATION_FAILED" });
  });
});

describe("template categories", () => {
  it("creates, lists with the documented cursor, gets, updates and deletes; duplicate names are 409", async () => {
    const made = [];
    for (const name of ["alerts", "news", "promos"]) {
      made.push((await post("/templates/categories", { name, description: `${name} things` })).body.data);
      await e.post("/_emulator/clock/advance", { seconds: 1 }, { key: null });
    }
    expect(made[0]).toMatchObject({ id: expect.any(String), name: "alerts", description: "alerts things", createdAt: T0 });
    const first = await get("/templates/categories?limit=2&sort=name&order=asc");
    expect(first.body.data.map((c: any) => c.name)).toEqual(["alerts", "news"]);
    expect(first.body.meta).toEqual({ current: { limit: 2, count: 2 }, next: { affix: "append", name: "news", id: made[1].id } });
    const next = first.body.meta.next;
    const second = await get(`/templates/categories?limit=2&sort=name&order=asc&id=${next.id}&affix=append`);
    expect(second.body.data.map((c: any) => c.name)).toEqual(["promos"]);
    expect(second.body.meta.next).toBeUndefined();
    expect((await get(`/templates/categories?limit=2&sort=name&order=asc&id=${made[2].id}&affix=prepend`)).body.data.map((c: any) => c.name)).toEqual(["alerts", "news"]);
    // Newest change first by default.
    expect((await get("/templates/categories")).body.data.map((c: any) => c.name)).toEqual(["promos", "news", "alerts"]);
    refused(await get("/templates/categories?id=category_999"), 400, "ERR_VALIDATION");

    const dup = refused(await post("/templates/categories", { name: "news" }), 409, "ERR_CONFLICT");
    expect(dup.message).toBe("Duplicate category name");
    refused(await put(`/templates/categories/${made[0].id}`, { name: "news" }), 409, "ERR_CONFLICT");
    expect((await put(`/templates/categories/${made[0].id}`, { name: "warnings" })).body.data).toMatchObject({ name: "warnings", description: "alerts things" });
    expect((await get(`/templates/categories/${made[0].id}`)).body.data.name).toBe("warnings");
    const gone = await del(`/templates/categories/${made[0].id}`);
    expect(gone.body.data).toEqual({ id: made[0].id, deletedAt: new Date(T0 * 1000 + 3000).toISOString() });
    const notFound = refused(await get(`/templates/categories/${made[0].id}`), 404, "ERR_CATEGORY_NOT_FOUND");
    expect(notFound).toMatchObject({ message: "Category not found", details: { categoryId: made[0].id } });
    refused(await put("/templates/categories/nope", { name: "x" }), 404, "ERR_CATEGORY_NOT_FOUND");
    refused(await del("/templates/categories/nope"), 404, "ERR_CATEGORY_NOT_FOUND");
    refused(await post("/templates/categories", {}), 400, "ERR_VALIDATION");
    refused(await post("/templates/categories", { name: "x".repeat(101) }), 400, "ERR_VALIDATION");
    refused(await put(`/templates/categories/${made[1].id}`, { name: "" }), 400, "ERR_VALIDATION");
    // The SDK lists the same categories on the client plane.
    const token = (await e.post("/v3/users/superhero1/auth_tokens", {})).body.data.authToken;
    const sdk = await e.get(`${C}/campaigns/templates/categories`, { key: null, headers: { appid: APP_ID, authtoken: token } });
    expect(sdk.body.data.map((c: any) => c.name)).toEqual(["news", "promos"]);
  });
});

describe("templates", () => {
  it("creates with a slug, lists with filters, gets by id or slug; content edits and versions make new immutable versions", async () => {
    await post("/templates/categories", { name: "promos" });
    const t = await approvedTemplate({ templateCategory: "promos", tags: ["sale", "spring"], label: "Promo" });
    expect(t).toMatchObject({ templateId: "spring_sale", name: "Spring Sale", status: "approved", currentVersion: 1, tags: ["sale", "spring"], label: "Promo", templateCategory: "promos" });
    expect(t.variableSchema).toEqual([{ key: "name", default: "friend" }, { key: "code" }, { key: "shop", default: "our shop" }]);
    const other = (await post("/templates", { name: "Spring Sale", templateCategory: "Alerts", channels: [{ channelType: "push" }] })).body.data;
    expect(other).toMatchObject({ templateId: "spring_sale_2", status: "draft", channels: [{ channelType: "push", content: {} }] });
    refused(await post("/templates", { name: "X", templateId: "spring_sale", channels: [PUSH] }), 409, "ERR_CONFLICT");

    expect((await get("/templates?status=approved")).body.data.map((x: any) => x.id)).toEqual([t.id]);
    expect((await get("/templates?search=SALE_2")).body.data.map((x: any) => x.id)).toEqual([other.id]);
    expect((await get("/templates?tags=spring,winter&tagMatch=any")).body.data).toHaveLength(1);
    expect((await get("/templates?tags=spring,winter&tagMatch=all")).body.data).toHaveLength(0);
    expect((await get("/templates?templateCategory=Alerts")).body.data.map((x: any) => x.id)).toEqual([other.id]);
    expect((await get("/templates")).body.data[0].versions).toBeUndefined();
    expect((await get("/templates/spring_sale")).body.data.id).toBe(t.id);

    const edited = await put(`/templates/${t.id}/channels/in_app`, { content: { title: "Hello {{name}}" } });
    expect(edited.body.data).toMatchObject({ currentVersion: 2, channels: [{ channelType: "in_app", content: { title: "Hello {{name}}" } }, PUSH] });
    expect(edited.body.data.versions[0].channels[0].content).toEqual(IN_APP.content);
    const copied = await post(`/templates/${t.id}/versions`);
    expect(copied.status).toBe(201);
    expect(copied.body.data.currentVersion).toBe(3);
    const meta = await put(`/templates/${t.templateId}`, { name: "Spring Sale 2026", tags: ["sale"] });
    expect(meta.body.data).toMatchObject({ name: "Spring Sale 2026", tags: ["sale"], currentVersion: 3 });
    expect((await put(`/templates/${t.id}`, { variableSchema: ["name"] })).body.data).toMatchObject({ currentVersion: 4, variableSchema: [{ key: "name" }] });

    const archived = await del(`/templates/${t.id}`);
    expect(archived.body.data.status).toBe("archived");
    refused(await post(`/templates/${t.id}/versions`), 400, "ERR_BAD_REQUEST");
    refused(await put(`/templates/${t.id}/channels/push`, { content: {} }), 400, "ERR_BAD_REQUEST");
    refused(await get("/templates/nope"), 404, "ERR_TEMPLATE_NOT_FOUND");
    refused(await put("/templates/nope", { name: "x" }), 404, "ERR_TEMPLATE_NOT_FOUND");
    refused(await del("/templates/nope"), 404, "ERR_TEMPLATE_NOT_FOUND");
    refused(await post("/templates/nope/versions"), 404, "ERR_TEMPLATE_NOT_FOUND");
  });

  it("refuses bad channels, stop conditions, waits, categories and variable schemas, creating nothing", async () => {
    const bad = async (body: Record<string, unknown>, status = 400, code = "ERR_VALIDATION") => refused(await post("/templates", { name: "Bad", ...body }), status, code);
    await bad({});
    await bad({ channels: [] });
    await bad({ channels: [{ channelType: "fax" }] });
    await bad({ channels: [IN_APP, { ...IN_APP }] }, 409, "ERR_CONFLICT");
    await bad({ channels: [{ ...PUSH, stopCondition: "read" }] });
    await bad({ channels: [{ ...IN_APP, stopCondition: "clicked" }] });
    await bad({ channels: [{ ...IN_APP, waitMinutes: 7 }] });
    await bad({ channels: [{ ...PUSH, categoryFilterEnabled: true }] });
    await bad({ channels: [{ ...IN_APP, dataType: "html" }] });
    await bad({ channels: [{ ...IN_APP, channelId: "nope" }] }, 404, "ERR_CHANNEL_NOT_FOUND");
    await bad({ channels: [IN_APP], templateCategory: "Unknown" });
    await bad({ channels: [IN_APP], variableSchema: ["a", "a"] });
    await bad({ channels: [IN_APP], variableSchema: [{ default: "x" }] });
    await bad({ channels: [IN_APP], status: "live" });
    await bad({ channels: [IN_APP], tags: Array.from({ length: 26 }, (_, i) => `t${i}`) });
    await bad({ channels: [IN_APP], templateId: "no spaces" });
    refused(await put("/templates/x/channels/in_app", {}), 400, "ERR_VALIDATION");
    const t = await approvedTemplate();
    refused(await put(`/templates/${t.id}/channels/fax`, { content: {} }), 400, "ERR_VALIDATION");
    expect((await get("/templates")).body.data).toHaveLength(1);
  });
});

describe("channels", () => {
  it("creates, lists, gets by id or slug, updates; availability per type; restricted types, duplicates and the limit refused", async () => {
    const ch = await post("/channels", { name: "My Push Channel", type: "push", metadata: { senderId: "y" } });
    expect(ch.status).toBe(201);
    expect(ch.body.data).toMatchObject({ name: "My Push Channel", type: "push", channelId: "cc-notification-channel-my-push-channel", enabled: false, metadata: { senderId: "y" } });
    const id = ch.body.data.id;
    refused(await post("/channels", { name: "My Push Channel", type: "push" }), 409, "ERR_CONFLICT");
    expect(refused(await post("/channels", { name: "Texts", type: "sms" }), 403, "ERR_FORBIDDEN").message).toBe("Channel type restricted");
    refused(await post("/channels", { name: "X", type: "push" }, as("superhero1")), 400, "ERR_BAD_REQUEST");
    refused(await post("/channels", { name: "X", type: "pigeon" }), 400, "ERR_VALIDATION");
    refused(await post("/channels", { type: "push" }), 400, "ERR_VALIDATION");
    expect((await get("/channels/cc-notification-channel-my-push-channel")).body.data.id).toBe(id);
    expect((await put(`/channels/${id}`, { enabled: true, name: "Pushes" })).body.data).toMatchObject({ enabled: true, name: "Pushes" });
    refused(await put(`/channels/${id}`, { enabled: true }, as("superhero1")), 400, "ERR_BAD_REQUEST");
    refused(await get("/channels/nope"), 404, "ERR_CHANNEL_NOT_FOUND");
    refused(await put("/channels/nope", { name: "x" }), 404, "ERR_CHANNEL_NOT_FOUND");
    for (let i = 1; i <= 10; i++) expect((await post("/channels", { name: `Feed ${i}`, type: "in_app" })).status).toBe(201);
    expect(refused(await post("/channels", { name: "Feed 11", type: "in_app" }), 409, "ERR_CONFLICT").message).toBe("Channel limit reached");
    expect((await get("/channels?search=feed 1&limit=100")).body.data.map((c: any) => c.name).sort()).toEqual(["Feed 1", "Feed 10"]);
    expect((await get("/channels?sort=channelType&limit=1")).body.data[0].type).toBe("in_app");
    const availability = (await get("/channels/availability")).body.data;
    expect(availability.find((a: any) => a.type === "in_app")).toEqual({ type: "in_app", available: false, restricted: false, count: 10, limit: 10 });
    expect(availability.find((a: any) => a.type === "push")).toMatchObject({ available: true, count: 1 });
    expect(availability.find((a: any) => a.type === "email")).toMatchObject({ available: false, restricted: true });
    refused(await get("/channels/availability", as("superhero1")), 400, "ERR_BAD_REQUEST");
  });
});

describe("campaigns", () => {
  it("creates drafts, lists with filters, gets; updates and deletes drafts only", async () => {
    const { t, cam } = await draftCampaign([]);
    expect(cam).toMatchObject({ name: "Spring", templateId: t.id, templateVersion: 1, status: "draft", variables: { code: "SPRING" }, template: { templateId: "spring_sale" }, recipientSummary: { total: 0 } });
    const other = (await post("/campaigns", { name: "Autumn", templateId: t.id, templateVersion: 1, config: { variables: { shop: "Main St" } } })).body.data;
    expect(other.variables).toEqual({ shop: "Main St" });
    expect((await get("/campaigns?search=aut")).body.data.map((x: any) => x.id)).toEqual([other.id]);
    expect((await get("/campaigns?status=draft&sort=name&order=asc")).body.data.map((x: any) => x.name)).toEqual(["Autumn", "Spring"]);
    expect((await put(`/campaigns/${cam.id}`, { name: "Spring 2026", config: { channel: "x" } })).body.data).toMatchObject({ name: "Spring 2026", config: { channel: "x" } });
    expect((await del(`/campaigns/${other.id}`)).body.data.id).toBe(other.id);
    refused(await get(`/campaigns/${other.id}`), 404, "ERR_CAMPAIGN_NOT_FOUND");
    refused(await post("/campaigns", { name: "X", templateId: "nope", templateVersion: 1 }), 404, "ERR_TEMPLATE_NOT_FOUND");
    refused(await post("/campaigns", { name: "X", templateId: t.id, templateVersion: 2 }), 400, "ERR_VALIDATION");
    refused(await post("/campaigns", { name: "X", templateId: t.id, templateVersion: 0 }), 400, "ERR_VALIDATION");
    refused(await post("/campaigns", { name: "X", templateId: t.id }), 400, "ERR_VALIDATION");
    refused(await post("/campaigns", { name: "X", templateId: t.id, templateVersion: 1, variables: { a: { b: 1 } } }), 400, "ERR_VALIDATION");
    await post(`/campaigns/${cam.id}/recipients`, { userIds: ["superhero1"] });
    await post(`/campaigns/${cam.id}/send`);
    refused(await put(`/campaigns/${cam.id}`, { name: "late" }), 400, "ERR_BAD_REQUEST");
    expect(refused(await del(`/campaigns/${cam.id}`), 400, "ERR_BAD_REQUEST").message).toBe("Campaign not in draft status");
    expect((await get("/campaigns?status=completed")).body.data.map((x: any) => x.id)).toEqual([cam.id]);
  });

  it("adds recipients by uid with their variables, lists them and sums them up; refuses unknown users, repeats and oversized calls", async () => {
    const { cam } = await draftCampaign([]);
    const added = await post(`/campaigns/${cam.id}/recipients`, { userIds: ["superhero1", "SUPERHERO2", "ghost", "superhero1"], userVariables: { superhero1: { name: "Tony" } } });
    expect(added.status).toBe(201);
    expect(added.body.data).toMatchObject({ added: 2, refused: [{ userId: "ghost", reason: "The user does not exist in the app." }, { userId: "superhero1", reason: "Already a recipient of the campaign." }], summary: { total: 2, pending: 2 } });
    const listed = await get(`/campaigns/${cam.id}/recipients?limit=1`);
    expect(listed.body.data).toEqual([expect.objectContaining({ userId: "superhero1", variables: { name: "Tony" }, status: "pending" })]);
    expect((await get(`/campaigns/${cam.id}/recipients?limit=1&id=${listed.body.meta.next.id}`)).body.data[0].userId).toBe("superhero2");
    expect((await get(`/campaigns/${cam.id}/recipients?status=completed`)).body.data).toEqual([]);
    expect((await get(`/campaigns/${cam.id}/recipients/summary`)).body.data).toEqual({ campaignId: cam.id, total: 2, pending: 2, processing: 0, completed: 0, failed: 0 });
    refused(await post(`/campaigns/${cam.id}/recipients`, { userIds: [] }), 400, "ERR_VALIDATION");
    refused(await post(`/campaigns/${cam.id}/recipients`, { userIds: Array.from({ length: 10_001 }, (_, i) => `u${i}`) }), 400, "ERR_VALIDATION");
    refused(await post(`/campaigns/${cam.id}/recipients`, { userIds: ["superhero3"], userVariables: { superhero3: "x" } }), 400, "ERR_VALIDATION");
    refused(await get(`/campaigns/${cam.id}/recipients?status=sent`), 400, "ERR_VALIDATION");
    refused(await get("/campaigns/nope/recipients"), 404, "ERR_CAMPAIGN_NOT_FOUND");
    refused(await get("/campaigns/nope/recipients/summary"), 404, "ERR_CAMPAIGN_NOT_FOUND");
  });

  it("imports recipients from a CSV put at the upload address, reporting rows accepted and refused with reasons", async () => {
    const { cam } = await draftCampaign(["superhero2"]);
    refused(await get(`/campaigns/${cam.id}/import-status`), 404, "ERR_IMPORT_NOT_FOUND");
    const up = await post(`/campaigns/${cam.id}/recipients/upload-url`);
    expect(up.status).toBe(201);
    expect(up.body.data).toMatchObject({ s3Key: expect.stringMatching(/\.csv$/), method: "PUT", expiresIn: 900 });
    const url: string = up.body.data.uploadUrl;
    expect(url.startsWith(`http://localhost${B}/csv-uploads/`)).toBe(true);
    refused(await post(`/campaigns/${cam.id}/import-csv`, { s3Key: up.body.data.s3Key }), 400, "ERR_VALIDATION");
    refused(await e.call("PUT", url.replace("signature=", "signature=x"), { key: null, raw: "uid\n" }), 403, "ERR_FORBIDDEN");
    const csv = 'uid,name,code\nsuperhero1,"Stark, Tony",A1\nsuperhero2,Steve,B2\n,Nobody,C3\nghost,Ghost,D4\nsuperhero3,Peter\nsuperhero1,Again,E5\n';
    expect((await e.call("PUT", url, { key: null, raw: csv, headers: { "content-type": "text/csv" } })).status).toBe(200);
    const started = await post(`/campaigns/${cam.id}/import-csv`, { s3Key: up.body.data.s3Key });
    expect(started.status).toBe(202);
    const status = (await get(`/campaigns/${cam.id}/import-status`)).body.data;
    expect(status).toMatchObject({ status: "completed", totalRows: 6, acceptedRows: 1, refusedRows: 5 });
    expect(status.errors).toEqual([
      { row: 3, userId: "superhero2", reason: "Already a recipient of the campaign." },
      { row: 4, reason: "The uid is empty." },
      { row: 5, userId: "ghost", reason: "The user does not exist in the app." },
      { row: 6, userId: "superhero3", reason: "The row has 2 fields; the header has 3." },
      { row: 7, userId: "superhero1", reason: "The uid appears earlier in the file." },
    ]);
    expect((await get(`/campaigns/${cam.id}/recipients?limit=5`)).body.data.find((r: any) => r.userId === "superhero1").variables).toEqual({ name: "Stark, Tony", code: "A1" });
    // The file was consumed; a header without a uid column fails the import.
    refused(await post(`/campaigns/${cam.id}/import-csv`, { s3Key: up.body.data.s3Key }), 400, "ERR_VALIDATION");
    const again = (await post(`/campaigns/${cam.id}/recipients/upload-url`)).body.data;
    await e.call("PUT", again.uploadUrl, { key: null, raw: "name\nx\n" });
    expect((await post(`/campaigns/${cam.id}/import-csv`, { s3Key: again.s3Key })).body.data).toMatchObject({ status: "failed", errors: [{ row: 1 }] });
    // Asked for through a Host label, the address is one too.
    const hosted = (await e.post(`http://${APP_ID}.api-us.localhost/v3/campaigns/campaigns/${cam.id}/recipients/upload-url`)).body.data;
    expect(hosted.uploadUrl.startsWith(`http://${APP_ID}.api-us.localhost/v3/campaigns/csv-uploads/`)).toBe(true);
    expect((await e.call("PUT", hosted.uploadUrl, { key: null, raw: "uid\nsuperhero4\n" })).status).toBe(200);
    expect((await post(`/campaigns/${cam.id}/import-csv`, { s3Key: hosted.s3Key })).body.data).toMatchObject({ acceptedRows: 1 });
    // An address expires.
    const late = (await post(`/campaigns/${cam.id}/recipients/upload-url`)).body.data;
    await e.post("/_emulator/clock/advance", { seconds: 901 }, { key: null });
    refused(await e.call("PUT", late.uploadUrl, { key: null, raw: "uid\n" }), 403, "ERR_FORBIDDEN");
    refused(await post(`/campaigns/${cam.id}/import-csv`, {}), 400, "ERR_VALIDATION");
    await post(`/campaigns/${cam.id}/send`);
    refused(await post(`/campaigns/${cam.id}/recipients/upload-url`), 400, "ERR_BAD_REQUEST");
    refused(await post(`/campaigns/${cam.id}/import-csv`, { s3Key: "x" }), 400, "ERR_BAD_REQUEST");
  });

  it("sends at once: a feed item and a push per recipient, rendered with per-user over campaign over template values", async () => {
    const { cam } = await draftCampaign(["superhero1", "superhero2"]);
    await post(`/campaigns/${cam.id}/recipients`, { userIds: ["superhero3"], userVariables: { superhero3: { name: "Peter", code: "MINE" } } });
    const sent = await post(`/campaigns/${cam.id}/send`);
    expect(sent.body.data).toMatchObject({ status: "completed", sentAt: T0, completedAt: T0, recipientSummary: { total: 3, completed: 3 } });
    const feed = (await get("/notification-feed", as("superhero3"))).body.data;
    expect(feed).toHaveLength(1);
    expect(feed[0]).toMatchObject({ receiver: "superhero3", campaignId: cam.id, content: { title: "Hi Peter", body: "Use MINE at our shop" }, readAt: null });
    expect((await get("/notification-feed", as("superhero1"))).body.data[0].content).toEqual({ title: "Hi friend", body: "Use SPRING at our shop" });
    const raw = (await get(`/notification-feed/${feed[0].id}?templateOnly=true`)).body.data;
    expect(raw).toMatchObject({ content: IN_APP.content, variables: { name: "Peter", code: "MINE", shop: "our shop" } });
    const pushes = (await get("/push-notifications?limit=10", as("superhero3"))).body.data;
    expect(pushes).toEqual([expect.objectContaining({ campaignId: cam.id, announcementId: sent.body.data.notificationId, content: { title: "Hey Peter", body: "MINE" } })]);
    refused(await post(`/campaigns/${cam.id}/send`), 400, "ERR_BAD_REQUEST");
    refused(await post(`/campaigns/${cam.id}/cancel`), 400, "ERR_BAD_REQUEST");
    const { cam: empty } = await draftCampaign([]);
    expect(refused(await post(`/campaigns/${empty.id}/send`), 400, "ERR_BAD_REQUEST").message).toBe("Campaign has no recipients");
    refused(await post("/campaigns/nope/send"), 404, "ERR_CAMPAIGN_NOT_FOUND");
  });

  it("sends only from an approved template; users gone before the send are failed recipients", async () => {
    const t = (await post("/templates", { name: "Draft", channels: [IN_APP] })).body.data;
    const cam = (await post("/campaigns", { name: "D", templateId: t.id, templateVersion: 1 })).body.data;
    await post(`/campaigns/${cam.id}/recipients`, { userIds: ["superhero1", "superhero2"] });
    expect(refused(await post(`/campaigns/${cam.id}/send`), 400, "ERR_BAD_REQUEST").message).toBe("Template not approved");
    await put(`/templates/${t.id}`, { status: "approved" });
    await e.call("DELETE", "/v3/users/superhero2", { body: { permanent: true } });
    const sent = (await post(`/campaigns/${cam.id}/send`)).body.data;
    expect(sent.recipientSummary).toMatchObject({ completed: 1, failed: 1 });
    expect((await get(`/campaigns/${cam.id}/recipients?status=failed`)).body.data[0]).toMatchObject({ userId: "superhero2", error: "The user superhero2 does not exist in the app." });
  });

  it("schedules for the emulator clock: runs when it is moved past the time, or is cancelled before", async () => {
    const { cam } = await draftCampaign(["superhero1"]);
    refused(await post(`/campaigns/${cam.id}/schedule`, { scheduledAt: T0 }), 400, "ERR_BAD_REQUEST");
    refused(await post(`/campaigns/${cam.id}/schedule`, { scheduledAt: "soon" }), 400, "ERR_VALIDATION");
    refused(await post(`/campaigns/${cam.id}/schedule`, {}), 400, "ERR_VALIDATION");
    const scheduled = await post(`/campaigns/${cam.id}/schedule`, { scheduledAt: T0 + 3600 });
    expect(scheduled.body.data).toMatchObject({ status: "scheduled", scheduledAt: T0 + 3600 });
    refused(await post(`/campaigns/${cam.id}/schedule`, { scheduledAt: T0 + 7200 }), 400, "ERR_BAD_REQUEST");
    refused(await post(`/campaigns/${cam.id}/recipients`, { userIds: ["superhero2"] }), 400, "ERR_BAD_REQUEST");
    await freeze(T0 + 3599);
    expect((await get(`/campaigns/${cam.id}`)).body.data.status).toBe("scheduled");
    expect((await get("/notification-feed", as("superhero1"))).body.data).toEqual([]);
    await freeze(T0 + 3600);
    expect((await get(`/campaigns/${cam.id}`)).body.data).toMatchObject({ status: "completed", sentAt: T0 + 3600 });
    expect((await get("/notification-feed", as("superhero1"))).body.data).toHaveLength(1);

    const { cam: later } = await draftCampaign(["superhero1"]);
    await post(`/campaigns/${later.id}/schedule`, { scheduledAt: T0 + 7200 });
    expect((await post(`/campaigns/${later.id}/cancel`)).body.data).toMatchObject({ status: "cancelled", cancelledAt: T0 + 3600 });
    await freeze(T0 + 9000);
    expect((await get(`/campaigns/${later.id}`)).body.data.status).toBe("cancelled");
    expect((await get("/notification-feed", as("superhero1"))).body.data).toHaveLength(1);
    refused(await post(`/campaigns/${later.id}/cancel`), 400, "ERR_BAD_REQUEST");
    refused(await post(`/campaigns/${later.id}/send`), 400, "ERR_BAD_REQUEST");
    expect((await get(`/campaigns/${later.id}/sequence-metrics`)).body.data.steps).toEqual([expect.objectContaining({ step: 1, status: "cancelled", sent: 0 })]);
  });

  it("sends a sequence step by step: a later step reaches only whoever did not meet the earlier step's stop condition", async () => {
    const t = await approvedTemplate({
      name: "Steps",
      channels: [
        { ...IN_APP, sequenceOrder: 1, stopCondition: "read", waitMinutes: 30 },
        { ...PUSH, sequenceOrder: 2 },
      ],
    });
    const cam = (await post("/campaigns", { name: "Seq", templateId: t.id, templateVersion: 1 })).body.data;
    await post(`/campaigns/${cam.id}/recipients`, { userIds: ["superhero1", "superhero2"] });
    expect((await post(`/campaigns/${cam.id}/send`)).body.data).toMatchObject({ status: "sending" });
    const item = (await get("/notification-feed", as("superhero1"))).body.data[0];
    await post(`/notification-feed/${item.id}/read`, undefined, as("superhero1"));
    let metrics = (await get(`/campaigns/${cam.id}/sequence-metrics`)).body.data;
    expect(metrics).toMatchObject({ sequenced: true, status: "sending", nextStep: { step: 2, dueAt: T0 + 1800 } });
    expect(metrics.steps).toEqual([
      expect.objectContaining({ step: 1, channelTypes: ["in_app"], status: "sent", sent: 2, viewed: 1, delivered: 1 }),
      expect.objectContaining({ step: 2, channelTypes: ["push"], status: "pending", sent: 0 }),
    ]);
    await freeze(T0 + 1800);
    metrics = (await get(`/campaigns/${cam.id}/sequence-metrics`)).body.data;
    expect(metrics.status).toBe("completed");
    expect(metrics.steps[1]).toMatchObject({ status: "sent", sent: 1 });
    // Cancelled between its steps, a sequence sends no more.
    const again = (await post("/campaigns", { name: "Seq 2", templateId: t.id, templateVersion: 1 })).body.data;
    await post(`/campaigns/${again.id}/recipients`, { userIds: ["superhero3"] });
    await post(`/campaigns/${again.id}/send`);
    expect((await post(`/campaigns/${again.id}/cancel`)).body.data.status).toBe("cancelled");
    await freeze(T0 + 3600);
    const cancelled = (await get(`/campaigns/${again.id}/sequence-metrics`)).body.data;
    expect(cancelled.steps.map((s: any) => [s.status, s.sent])).toEqual([["sent", 1], ["cancelled", 0]]);
    expect((await get("/push-notifications?limit=5", as("superhero3"))).body.data).toEqual([]);
    expect((await get("/push-notifications?limit=5", as("superhero1"))).body.data).toEqual([]);
    expect((await get("/push-notifications?limit=5", as("superhero2"))).body.data).toHaveLength(1);
    refused(await get("/campaigns/nope/sequence-metrics"), 404, "ERR_CAMPAIGN_NOT_FOUND");
  });
});

describe("template sends", () => {
  it("sends realtime (up to 10 receivers) and batch (more), admin-only, from approved templates, within 10,000 receivers", async () => {
    const t = await approvedTemplate();
    const realtime = await post("/notifications/messages", { templateId: t.templateId, receivers: ["superhero1"], variables: { superhero1: { code: "VIP" } }, tag: "launch" });
    expect(realtime.body.data).toEqual({ notificationId: expect.any(String), channels: ["in_app", "push"], mode: "realtime", tag: "launch" });
    expect((await get("/notification-feed", as("superhero1"))).body.data[0].content.body).toBe("Use VIP at our shop");
    const many = ["superhero1", "superhero2", "superhero3", "superhero4", "superhero5", ...Array.from({ length: 7 }, (_, i) => `gone${i}`)];
    const batch = await post("/notifications/messages", { templateId: t.id, receivers: many });
    expect(batch.body.data).toMatchObject({ batchId: expect.any(String), total: 12, mode: "batch" });
    expect((await get("/analytics/overview")).body.data.totals).toMatchObject({ sent: 12, failed: 14 });
    refused(await post("/notifications/messages", { templateId: t.id, receivers: ["superhero1"] }, as("superhero1")), 403, "ERR_FORBIDDEN");
    const unknown = refused(await post("/notifications/messages", { templateId: "nope", receivers: ["superhero1"] }), 400, "ERR_TEMPLATE_NOT_FOUND");
    expect(unknown.details).toEqual({ templateId: "nope" });
    const draft = (await post("/templates", { name: "Draft", channels: [IN_APP] })).body.data;
    refused(await post("/notifications/messages", { templateId: draft.id, receivers: ["superhero1"] }), 400, "ERR_BAD_REQUEST");
    refused(await post("/notifications/messages", { templateId: t.id, receivers: [] }), 400, "ERR_VALIDATION");
    refused(await post("/notifications/messages", { templateId: t.id, receivers: Array.from({ length: 10_001 }, (_, i) => `u${i}`) }), 400, "ERR_VALIDATION");
    refused(await post("/notifications/messages", { templateId: t.id, receivers: ["has space"] }), 400, "ERR_VALIDATION");
  });
});


describe("limits", () => {
  it("refuses past each bound, changing nothing", async () => {
    for (let i = 0; i < 100; i++) expect((await post("/templates/categories", { name: `c${i}` })).status).toBe(201);
    refused(await post("/templates/categories", { name: "c100" }), 409, "ERR_CONFLICT");
    refused(await post("/templates/categories", { name: "x", description: "d".repeat(1001) }), 400, "ERR_VALIDATION");
    refused(await post("/templates", { name: "n".repeat(256), channels: [IN_APP] }), 400, "ERR_VALIDATION");
    refused(await post("/templates", { name: "big", channels: [{ channelType: "in_app", content: { text: "x".repeat(70 * 1024) } }] }), 400, "ERR_VALIDATION");
    refused(await post("/channels", { name: "n".repeat(101), type: "push" }), 400, "ERR_VALIDATION");
    const { cam } = await draftCampaign([]);
    refused(await post("/campaigns", { name: "n".repeat(256), templateId: cam.templateId, templateVersion: 1 }), 400, "ERR_VALIDATION");
    const up = (await post(`/campaigns/${cam.id}/recipients/upload-url`)).body.data;
    const big = await e.call("PUT", up.uploadUrl, { key: null, raw: "uid\n" + "a,".repeat(2.6 * 1024 * 1024) });
    expect(big.status).toBe(413);
    expect(big.body.error).toMatchObject({ code: "ERR_BAD_REQUEST", message: "The request body may not be greater than 5 MB.", source: "campaigns-service" });
    refused(await get("/analytics/overview?limit=1001"), 400, "ERR_VALIDATION");
    refused(await get("/campaigns?limit=101"), 400, "ERR_VALIDATION");
    refused(await get(`/campaigns/${cam.id}/recipients?limit=101`), 400, "ERR_VALIDATION");
    refused(await get("/channels?limit=101"), 400, "ERR_VALIDATION");
    refused(await get("/notification-feed?limit=101", as("superhero1")), 400, "ERR_VALIDATION");
    expect((await get("/templates/categories?limit=100")).body.data).toHaveLength(100);
  });
});

describe("campaign pushes in the notification outbox", () => {
  it("records a campaign push per device of its receiver, as its provider would take it", async () => {
    await e.post("/v3/notifications/push/v1/providers/fcm", { providerId: "fcm-main", serviceAccountCreds: { project_id: "p1", client_email: "sa@p1.test", private_key: "key0123456789" } });
    const authToken = (await e.post("/v3/users/superhero1/auth_tokens", { force: true })).body.data.authToken;
    expect((await e.post("/v3/notifications/push/v1/tokens", { platform: "fcm_android", fcmToken: "phone-1", authToken })).status).toBe(200);
    const { cam } = await draftCampaign(["superhero1", "superhero2"]);
    await post(`/campaigns/${cam.id}/send`);
    const [push] = (await get("/push-notifications?limit=1", as("superhero1"))).body.data;
    const outbox = (await e.get("/_emulator/notifications?uid=superhero1&channel=push", { key: null })).body.notifications;
    expect(outbox).toEqual([
      expect.objectContaining({ event: "campaign_push_sent", provider: "fcm", providerId: "fcm-main", pushToken: "phone-1", status: "sent", title: "Hey friend", body: "SPRING", pushNotificationId: push.id, campaignId: cam.id }),
    ]);
    expect(outbox[0].payload).toMatchObject({ token: "phone-1", notification: { title: "Hey friend", body: "SPRING" }, data: { type: "campaign_push", pushNotificationId: push.id } });
    // No device, no record.
    expect((await e.get("/_emulator/notifications?uid=superhero2", { key: null })).body.notifications).toEqual([]);
    e.emulator.notifications.close();
  });
});

describe("the feed and pushes on REST", () => {
  async function sent() {
    await post("/templates/categories", { name: "promos" });
    const t = await approvedTemplate({ templateCategory: "promos", tags: ["sale"] });
    await post("/notifications/messages", { templateId: t.id, receivers: ["superhero1", "superhero2"] });
    return t;
  }

  it("lists a user's feed (onbehalfof) or, as the admin, a receiver's; filters, cursor and unread count", async () => {
    await sent();
    await e.post("/_emulator/clock/advance", { seconds: 10 }, { key: null });
    await post("/notifications/messages", { templateId: "spring_sale", receivers: ["superhero1"] });
    const mine = await get("/notification-feed?limit=1", as("superhero1"));
    expect(mine.body.data).toHaveLength(1);
    expect(mine.body.meta.next).toEqual({ affix: "append", sentAt: T0 + 10, id: mine.body.data[0].id });
    const older = await get(`/notification-feed?limit=1&sentAt=${T0 + 10}&id=${mine.body.data[0].id}&affix=append`, as("superhero1"));
    expect(older.body.data[0].sentAt).toBe(T0);
    expect((await get("/notification-feed?order=asc", as("superhero1"))).body.data.map((i: any) => i.sentAt)).toEqual([T0, T0 + 10]);
    expect((await get("/notification-feed?receiver=superhero2")).body.data).toHaveLength(1);
    // onbehalfof wins over receiver.
    expect((await get("/notification-feed?receiver=superhero2", as("superhero1"))).body.data).toHaveLength(2);
    refused(await get("/notification-feed"), 400, "ERR_VALIDATION");
    expect(refused(await get("/notification-feed", as("nobody")), 404, "ERR_USER_NOT_FOUND").details).toEqual({ onbehalfof: "nobody" });
    expect((await get(`/notification-feed?dateFrom=${T0 + 5}`, as("superhero1"))).body.data).toHaveLength(1);
    expect((await get(`/notification-feed?dateTo=${T0 + 5}`, as("superhero1"))).body.data).toHaveLength(1);
    expect((await get("/notification-feed?tags=sale&templateCategory=promos", as("superhero1"))).body.data).toHaveLength(2);
    expect((await get("/notification-feed?tags=other", as("superhero1"))).body.data).toHaveLength(0);
    expect((await get("/notification-feed?channelId=x", as("superhero1"))).body.data).toHaveLength(0);
    expect((await get("/notification-feed/unread-count?templateCategory=promos", as("superhero1"))).body.data).toEqual({ count: 2 });
    refused(await get("/notification-feed/unread-count", as("superhero1")), 400, "ERR_VALIDATION");
    refused(await get("/notification-feed/unread-count?templateCategory=promos"), 400, "ERR_VALIDATION");
    refused(await get("/notification-feed?readState=maybe", as("superhero1")), 400, "ERR_VALIDATION");
    refused(await get("/notification-feed?templateOnly=yes", as("superhero1")), 400, "ERR_VALIDATION");
  });

  it("marks delivered and read, records engagements (topic at most 64, letters, digits, _ and -), soft-deletes as the admin only", async () => {
    await sent();
    const [item] = (await get("/notification-feed", as("superhero1"))).body.data;
    const theirs = (await get("/notification-feed", as("superhero2"))).body.data[0];
    expect((await post(`/notification-feed/${item.id}/delivered`, undefined, as("superhero1"))).body.data).toMatchObject({ deliveredAt: T0, readAt: null });
    await e.post("/_emulator/clock/advance", { seconds: 5 }, { key: null });
    expect((await post(`/notification-feed/${item.id}/read`, undefined, as("superhero1"))).body.data).toMatchObject({ deliveredAt: T0, readAt: T0 + 5 });
    expect((await post(`/notification-feed/${item.id}/read`, undefined, as("superhero1"))).body.data.readAt).toBe(T0 + 5);
    expect((await get("/notification-feed?readState=read", as("superhero1"))).body.data).toHaveLength(1);
    expect((await get("/notification-feed/unread-count?templateCategory=promos", as("superhero1"))).body.data.count).toBe(0);
    expect((await post(`/notification-feed/${item.id}/engagement`, { topic: "cta_buy-now" }, as("superhero1"))).body.data).toEqual({ id: item.id, topic: "cta_buy-now", engagedAt: T0 + 5 });
    refused(await post(`/notification-feed/${item.id}/engagement`, { topic: "x".repeat(65) }, as("superhero1")), 400, "ERR_VALIDATION");
    expect((await post(`/notification-feed/${item.id}/engagement`, { topic: "x".repeat(64) }, as("superhero1"))).status).toBe(200);
    refused(await post(`/notification-feed/${item.id}/engagement`, { topic: "no spaces" }, as("superhero1")), 400, "ERR_VALIDATION");
    refused(await post(`/notification-feed/${item.id}/engagement`, {}, as("superhero1")), 400, "ERR_VALIDATION");
    // Another user's item is as unknown as a missing one; the admin reaches any.
    refused(await get(`/notification-feed/${theirs.id}`, as("superhero1")), 404, "ERR_FEED_ITEM_NOT_FOUND");
    refused(await post(`/notification-feed/${theirs.id}/read`, undefined, as("superhero1")), 404, "ERR_FEED_ITEM_NOT_FOUND");
    expect((await post(`/notification-feed/${theirs.id}/delivered`)).body.data.deliveredAt).toBe(T0 + 5);
    refused(await del(`/notification-feed/${theirs.id}`, as("superhero2")), 403, "ERR_FORBIDDEN");
    expect((await del(`/notification-feed/${theirs.id}`)).body.data).toEqual({ id: theirs.id, deletedAt: new Date((T0 + 5) * 1000).toISOString() });
    refused(await get(`/notification-feed/${theirs.id}`), 404, "ERR_FEED_ITEM_NOT_FOUND");
    expect((await get("/notification-feed", as("superhero2"))).body.data).toEqual([]);
    expect((await get("/notification-feed?includeDeleted=true", as("superhero2"))).body.data[0]).toMatchObject({ id: theirs.id, deletedAt: T0 + 5 });
    refused(await del("/notification-feed/feed_999"), 404, "ERR_FEED_ITEM_NOT_FOUND");
  });

  it("keeps an item past its retention out of the feed unless includeExpired", async () => {
    const t = await approvedTemplate({ name: "Short", channels: [{ ...IN_APP, messageRetentionHours: 1 }] });
    await post("/notifications/messages", { templateId: t.id, receivers: ["superhero1"] });
    expect((await get("/notification-feed", as("superhero1"))).body.data[0].expiresAt).toBe(T0 + 3600);
    await freeze(T0 + 3600);
    expect((await get("/notification-feed", as("superhero1"))).body.data).toEqual([]);
    expect((await get("/notification-feed?includeExpired=true", as("superhero1"))).body.data).toHaveLength(1);
  });

  it("lists a user's pushes newest first; marks delivered and clicked; records engagements", async () => {
    await sent();
    const pushes = await get("/push-notifications?limit=10", as("superhero1"));
    expect(pushes.body.data).toHaveLength(1);
    const p = pushes.body.data[0];
    expect(p).toMatchObject({ receiver: "superhero1", source: "campaign", campaignId: null, deliveredAt: null, clickedAt: null });
    expect((await get(`/push-notifications/${p.id}`, as("superhero1"))).body.data.id).toBe(p.id);
    expect((await put(`/push-notifications/${p.id}/delivered`, undefined, as("superhero1"))).body.data.deliveredAt).toBe(T0);
    expect((await put(`/push-notifications/${p.id}/clicked`, undefined, as("superhero1"))).body.data.clickedAt).toBe(T0);
    expect((await post(`/push-notifications/${p.id}/engagement`, { topic: "dismissed" }, as("superhero1"))).body.data.topic).toBe("dismissed");
    refused(await post(`/push-notifications/${p.id}/engagement`, { topic: "y".repeat(65) }, as("superhero1")), 400, "ERR_VALIDATION");
    refused(await get(`/push-notifications/${p.id}`, as("superhero2")), 404, "ERR_PUSH_NOTIFICATION_NOT_FOUND");
    refused(await put(`/push-notifications/${p.id}/clicked`, undefined, as("superhero2")), 404, "ERR_PUSH_NOTIFICATION_NOT_FOUND");
    refused(await get("/push-notifications/push_999"), 404, "ERR_PUSH_NOTIFICATION_NOT_FOUND");
    refused(await get("/push-notifications", as("superhero1")), 400, "ERR_VALIDATION");
    refused(await get("/push-notifications?limit=101", as("superhero1")), 400, "ERR_VALIDATION");
    refused(await get("/push-notifications?limit=5"), 400, "ERR_VALIDATION");
  });
});

describe("analytics", () => {
  it("counts what happened: overview, per campaign, per template, per channel and per user, over a window and by dimension", async () => {
    const { t, cam } = await draftCampaign(["superhero1", "superhero2"]);
    await post(`/campaigns/${cam.id}/send`);
    const [item] = (await get("/notification-feed", as("superhero1"))).body.data;
    await e.post("/_emulator/clock/advance", { seconds: 7200 }, { key: null });
    await post(`/notification-feed/${item.id}/read`, undefined, as("superhero1"));
    await post(`/notification-feed/${item.id}/engagement`, { topic: "clicked" }, as("superhero1"));
    await post(`/notification-feed/${item.id}/engagement`, { topic: "clicked" }, as("superhero1"));
    await post(`/notification-feed/${item.id}/engagement`, { topic: "shared" }, as("superhero1"));
    const [p] = (await get("/push-notifications?limit=1", as("superhero2"))).body.data;
    await put(`/push-notifications/${p.id}/clicked`, undefined, as("superhero2"));

    const overview = (await get("/analytics/overview?period=hourly")).body.data;
    expect(overview.totals).toEqual({ sent: 4, delivered: 2, viewed: 1, clicked: 2, interacted: 1, failed: 0, deliveryRate: 50, viewRate: 25, clickRate: 50, interactionRate: 25 });
    expect(overview.series.map((s: any) => [s.periodStart - (s.periodStart % 3600) === s.periodStart, s.sent, s.clicked])).toEqual([
      [true, 4, 0],
      [true, 0, 2],
    ]);
    expect((await get(`/analytics/overview?startDate=${T0 + 3600}`)).body.data.totals.sent).toBe(0);
    expect((await get(`/analytics/overview?endDate=${new Date(T0 * 1000).toISOString()}`)).body.data.totals.sent).toBe(4);
    expect((await get("/analytics/overview?dimension=channel&dimensionId=push")).body.data.totals).toMatchObject({ sent: 2, clicked: 1, delivered: 1 });
    expect((await get(`/analytics/overview?dimension=campaign&dimensionId=${cam.id}`)).body.data.totals.sent).toBe(4);
    expect((await get(`/analytics/overview?dimension=template&dimensionId=${t.templateId}`)).body.data.totals.sent).toBe(4);
    const perCampaign = (await get(`/analytics/campaigns/${cam.id}`)).body.data;
    expect(perCampaign.channels).toEqual([
      expect.objectContaining({ channelType: "in_app", sent: 2, viewed: 1, clicked: 1, interacted: 1 }),
      expect.objectContaining({ channelType: "push", sent: 2, clicked: 1 }),
    ]);
    expect((await get(`/analytics/templates/${t.templateId}`)).body.data).toMatchObject({ templateId: t.id, slug: "spring_sale", totals: { sent: 4 } });
    expect((await get("/analytics/channels")).body.data.channels.map((c: any) => [c.channelType, c.sent])).toEqual([["in_app", 2], ["push", 2]]);
    expect((await get("/analytics/users/superhero1")).body.data).toEqual({ userId: "superhero1", viewed: 1, clicked: 1, interacted: 1, lastEngagement: T0 + 7200, sent: 2, delivered: 1, failed: 0 });
    expect((await get("/analytics/users/superhero5")).body.data).toMatchObject({ viewed: 0, lastEngagement: null });
    refused(await get("/analytics/campaigns/nope"), 404, "ERR_CAMPAIGN_NOT_FOUND");
    refused(await get("/analytics/templates/nope"), 404, "ERR_TEMPLATE_NOT_FOUND");
    refused(await get("/analytics/overview?startDate=yesterday"), 400, "ERR_VALIDATION");
    refused(await get(`/analytics/overview?startDate=${T0 + 10}&endDate=${T0}`), 400, "ERR_VALIDATION");
    refused(await get("/analytics/overview?dimensionId=x"), 400, "ERR_VALIDATION");
    refused(await get("/analytics/overview?period=weekly"), 400, "ERR_VALIDATION");
    refused(await get("/analytics/overview?limit=0"), 400, "ERR_VALIDATION");
  });
});

describe("a whole flow", () => {
  it("category → template with a version → channel → campaign → recipients by CSV → schedule → clock moved → each recipient's feed on the client plane → read and click → analytics that match", async () => {
    const category = (await post("/templates/categories", { name: "launches" })).body.data;
    const t = (await post("/templates", { name: "Launch", templateCategory: category.name, channels: [{ channelType: "in_app", content: { title: "Draft" } }] })).body.data;
    const v2 = await put(`/templates/${t.id}/channels/in_app`, { content: { title: "{{name}}, it is here", body: "Code {{code}}" } });
    expect(v2.body.data.currentVersion).toBe(2);
    await put(`/templates/${t.id}`, { status: "approved" });
    const channel = (await post("/channels", { name: "Inbox", type: "in_app", enabled: true })).body.data;
    const cam = (await post("/campaigns", { name: "Launch day", templateId: t.templateId, templateVersion: 2, variables: { code: "LAUNCH" } })).body.data;
    const up = (await post(`/campaigns/${cam.id}/recipients/upload-url`)).body.data;
    await e.call("PUT", up.uploadUrl, { key: null, raw: "uid,name\nsuperhero1,Tony\nsuperhero2,Steve\nsuperhero3,Peter\n" });
    await post(`/campaigns/${cam.id}/import-csv`, { s3Key: up.s3Key });
    expect((await get(`/campaigns/${cam.id}/import-status`)).body.data).toMatchObject({ acceptedRows: 3, refusedRows: 0 });
    await post(`/campaigns/${cam.id}/schedule`, { scheduledAt: T0 + 600 });
    await freeze(T0 + 600);
    expect((await get(`/campaigns/${cam.id}`)).body.data).toMatchObject({ status: "completed", recipientSummary: { completed: 3 } });

    const sdk = async (uid: string) => {
      const token = (await e.post(`/v3/users/${uid}/auth_tokens`, {})).body.data.authToken;
      const o = (body?: unknown): CallOptions => ({ key: null, body, headers: { appid: APP_ID, authtoken: token } });
      return { get: (p: string) => e.call("GET", C + p, o()), post: (p: string, body?: unknown) => e.call("POST", C + p, o(body ?? {})) };
    };
    const items: Record<string, any> = {};
    for (const [uid, name] of [["superhero1", "Tony"], ["superhero2", "Steve"], ["superhero3", "Peter"]]) {
      const a = await sdk(uid);
      const feed = (await a.get("/campaigns/notification-feed")).body.data;
      expect(feed).toEqual([expect.objectContaining({ templateCategory: "launches", channelId: channel.channelId, content: { title: `${name}, it is here`, body: "Code LAUNCH" }, readAt: null })]);
      expect((await a.get("/campaigns/notification-feed/unread-count")).body.data.count).toBe(1);
      items[uid] = { a, item: feed[0] };
    }
    await freeze(T0 + 660);
    await items.superhero1.a.post(`/campaigns/notification-feed/${items.superhero1.item.id}/delivered`);
    await items.superhero1.a.post(`/campaigns/notification-feed/${items.superhero1.item.id}/read`);
    await items.superhero1.a.post(`/campaigns/notification-feed/${items.superhero1.item.id}/engagement`, { topic: "clicked" });
    await items.superhero2.a.post(`/campaigns/notification-feed/${items.superhero2.item.id}/read`);
    expect((await items.superhero1.a.get("/campaigns/notification-feed/unread-count")).body.data.count).toBe(0);

    const totals = (await get(`/analytics/campaigns/${cam.id}`)).body.data.totals;
    expect(totals).toMatchObject({ sent: 3, delivered: 2, viewed: 2, clicked: 1, interacted: 0, failed: 0 });
    expect((await get(`/analytics/templates/${t.id}`)).body.data.totals).toMatchObject({ sent: 3, viewed: 2, clicked: 1 });
    expect((await get("/analytics/users/superhero1")).body.data).toMatchObject({ viewed: 1, clicked: 1, lastEngagement: T0 + 660 });
    expect((await get(`/campaigns/${cam.id}/sequence-metrics`)).body.data.steps).toEqual([expect.objectContaining({ step: 1, status: "sent", sent: 3, viewed: 2, clicked: 1 })]);

    // Coverage counts the service's operations, the SDK's calls under the same ones.
    const coverage = (await e.get(`/_emulator/coverage?app=${APP_ID}`, { key: null })).body;
    const op = (slug: string) => coverage.operations.find((o: any) => o.slug === slug);
    expect(op("CampaignsController_schedule")).toMatchObject({ method: "POST", path: "/campaigns/campaigns/{id}/schedule", area: "Campaigns", calls: 1, statuses: { "200": 1 } });
    expect(op("NotificationFeedController_findFeed").plane).toEqual({ rest: 0, client: 3 });
  });
});

describe("state", () => {
  async function made() {
    const { t, cam } = await draftCampaign(["superhero1"]);
    await post(`/campaigns/${cam.id}/send`);
    const later = (await post("/campaigns", { name: "Later", templateId: t.id, templateVersion: 1 })).body.data;
    await post(`/campaigns/${later.id}/recipients`, { userIds: ["superhero2"] });
    await post(`/campaigns/${later.id}/schedule`, { scheduledAt: T0 + 100 });
    await post("/channels", { name: "Inbox", type: "in_app" });
    return { t, cam, later };
  }

  it("is exported, snapshotted, restored and reset to the seed; a restored schedule still runs on the clock", async () => {
    const { later } = await made();
    const state = (await e.get("/_emulator/state", { key: null })).body;
    const saved = state.apps.find((a: any) => a.app.appId === APP_ID).campaigns;
    expect(saved.templates).toHaveLength(1);
    expect(saved.campaigns.map((c: any) => c.status)).toEqual(["completed", "scheduled"]);
    expect(saved.events.length).toBeGreaterThan(0);
    expect((await e.post("/_emulator/snapshots/campaigns", undefined, { key: null })).status).toBe(201);
    await e.post("/_emulator/reset", undefined, { key: null });
    expect((await get("/templates")).body.data).toEqual([]);
    expect((await get("/analytics/overview")).body.data.totals.sent).toBe(0);
    expect((await e.put("/_emulator/state", state, { key: null })).status).toBe(200);
    expect((await get(`/campaigns/${later.id}`)).body.data.status).toBe("scheduled");
    await e.post("/_emulator/reset", undefined, { key: null });
    expect((await e.post("/_emulator/snapshots/campaigns/restore", undefined, { key: null })).status).toBe(200);
    await freeze(T0 + 100);
    expect((await get(`/campaigns/${later.id}`)).body.data.status).toBe("completed");
    expect((await get("/notification-feed", as("superhero2"))).body.data).toHaveLength(1);
    const bad = structuredClone(state);
    bad.apps.find((a: any) => a.app.appId === APP_ID).campaigns.campaigns[0].templateId = "nope";
    const refusedState = await e.put("/_emulator/state", bad, { key: null });
    expect(refusedState.status).toBe(400);
    expect(JSON.stringify(refusedState.body)).toContain("campaigns.campaigns[0].templateId");
  });

  it("is kept with --data and back after a restart, when a schedule that came due meanwhile runs", async () => {
    const file = join(tempDir("campaigns"), "state.json");
    e = await emulator({ data: file });
    await freeze(T0);
    const { t, later } = await made();
    await e.persistence!.flush();
    e.persistence!.close();
    e = await emulator({ data: file });
    expect((await get(`/templates/${t.id}`)).body.data.templateId).toBe("spring_sale");
    expect((await get("/notification-feed", as("superhero1"))).body.data).toHaveLength(1);
    // The restarted emulator runs on the real clock, long past the schedule.
    expect((await get(`/campaigns/${later.id}`)).body.data.status).toBe("completed");
    expect((await get("/notification-feed", as("superhero2"))).body.data).toHaveLength(1);
    expect((await get("/analytics/overview")).body.data.totals.sent).toBe(4);
  });

  it("is seedable: a seed's templates, channels and scheduled campaigns are served, and a bad one is refused with its path", async () => {
    const app = { appId: "campseed", name: "Campaigns", region: "eu" };
    const apiKeys = [{ apiKey: "k".repeat(40), name: "Rest API Key", scope: "fullAccess" }];
    const users = [{ uid: "a", name: "A" }];
    const template = { id: "tpl", templateId: "hello", name: "Hello", tags: [], status: "approved", config: {}, currentVersion: 1, createdAt: T0, updatedAt: T0, versions: [{ version: 1, channels: [IN_APP], variableSchema: [{ key: "name", default: "you" }], createdAt: T0 }] };
    const campaign = { id: "cmp", name: "Seeded", templateId: "tpl", templateVersion: 1, variables: { code: "SEED" }, config: {}, status: "scheduled", scheduledAt: T0 + 60, createdAt: T0, updatedAt: T0, recipients: [{ id: "r1", userId: "a", variables: {}, status: "pending", createdAt: T0, updatedAt: T0 }] };
    const campaigns = { lastId: 10, items: [], pushes: [], categories: [], templates: [template], channels: [{ id: "ch", name: "Inbox", type: "in_app", channelId: "inbox", enabled: true, metadata: {}, createdAt: T0, updatedAt: T0 }], campaigns: [campaign] };
    const seeded = await emulator({ seed: { apps: [{ app, apiKeys, users, campaigns }] } });
    const S = "/campseed.api-eu/v3/campaigns";
    const key = { key: "k".repeat(40) };
    expect((await seeded.get(`${S}/templates/hello`, key)).body.data.id).toBe("tpl");
    // The seed's schedule is long past on the real clock: it ran when the emulator started.
    expect((await seeded.get(`${S}/campaigns/cmp`, key)).body.data.status).toBe("completed");
    const feed = await seeded.get(`${S}/notification-feed`, { ...key, headers: { onbehalfof: "a" } });
    expect(feed.body.data[0]).toMatchObject({ channelId: "inbox", content: { title: "Hi you", body: "Use SEED at {{shop}}" } });
    const bad = { apps: [{ app, apiKeys, users, campaigns: { ...campaigns, campaigns: [{ ...campaign, templateVersion: 2 }] } }] };
    await expect(emulator({ seed: bad })).rejects.toThrow("apps[0].campaigns.campaigns[0].templateVersion must name one of the template's versions");
  });
});
