import { beforeEach, describe, expect, it } from "vitest";
import { APP_ID, emulator, expectError, MGMT, type TestEmulator } from "./helpers.js";

let e: TestEmulator;
beforeEach(async () => {
  e = await emulator();
});

describe("management API: apps", () => {
  it("needs the key and secret headers", async () => {
    expectError(await e.call("GET", "/apimgmt/apps", { key: null }), 401, "AUTH_ERR_EMPTY_AUTH_HEADER");
    const wrong = await e.call("GET", "/apimgmt/apps", { key: null, headers: { key: MGMT.key, secret: "nope" } });
    expectError(wrong, 401, "AUTH_ERR_INVALID_CREDENTIALS");
  });

  it("creates an app with a fullAccess Rest API Key, an authOnly Auth Key and the sample data", async () => {
    const r = await e.mgmt("POST", "/apps", { name: "My App", region: "eu" });
    expect(r.status).toBe(200);
    const app = r.body.data;
    expect(app).toMatchObject({ id: expect.stringMatching(/^[0-9a-f]{16}$/), name: "My App", region: "eu", state: "active", plan: "trial" });
    expect(app.appRegion).toEqual({ id: "eu", name: "Europe", description: expect.any(String) });
    const keys = Object.values(app.apiKeys) as any[];
    expect(keys.map((k) => [k.name, k.scope, k.createdBy])).toEqual([
      ["Rest API Key", "fullAccess", "app_system"],
      ["Auth Key", "authOnly", "app_system"],
    ]);
    for (const [value, k] of Object.entries(app.apiKeys)) expect((k as any).apiKey).toBe(value);

    const rest = keys[0].apiKey;
    const users = await e.get(`/${app.id}.api-eu/v3/users`, { key: rest });
    expect(users.body.meta.pagination.total).toBe(5);
    expectError(await e.get(`/${app.id}.api-us/v3/users`, { key: rest }), 401, "AUTH_ERR_INVALID_APPID");
  });

  it("creates an empty app with skipSampleData", async () => {
    const app = (await e.mgmt("POST", "/apps", { name: "Empty", region: "in", skipSampleData: true })).body.data;
    const key = Object.keys(app.apiKeys)[0];
    const users = await e.get(`http://${app.id}.api-in.cometchat.io/v3/users`, { key });
    expect(users.body.data).toEqual([]);
  });

  it("validates create", async () => {
    const err = expectError(await e.mgmt("POST", "/apps", { region: "mars" }), 400, "ERR_BAD_REQUEST");
    expect(err.details).toEqual({ name: ["The name field is required."], region: ["The selected region is invalid."] });
  });

  it("lists apps with their keys, searchable by id or name", async () => {
    await e.mgmt("POST", "/apps", { name: "Searchable One", region: "us" });
    const all = await e.mgmt("GET", "/apps");
    expect(all.body.data.map((a: any) => a.name)).toEqual(["Default App", "Searchable One"]);
    expect(all.body.meta.pagination).toMatchObject({ total: 2, per_page: 25 });
    expect(Object.keys(all.body.data[0].apiKeys)).toHaveLength(2);
    expect((await e.mgmt("GET", "/apps?searchKey=searchable")).body.data).toHaveLength(1);
    expect((await e.mgmt("GET", `/apps?searchKey=${APP_ID}`)).body.data[0].id).toBe(APP_ID);
  });

  it("deletes an app: its API stops answering and it stays archived", async () => {
    const app = (await e.mgmt("POST", "/apps", { name: "Doomed", region: "us" })).body.data;
    const key = Object.keys(app.apiKeys)[0];
    e.clock.freeze(1_700_000_000_000);
    const r = await e.mgmt("DELETE", `/apps/${app.id}`);
    expect(r.body.data).toEqual({ success: true, scheduledToDeleteAt: 1_700_000_000 + 30 * 86400 });
    expectError(await e.get(`/${app.id}.api-us/v3/users`, { key }), 401, "AUTH_ERR_INVALID_APPID");
    expectError(await e.mgmt("DELETE", `/apps/${app.id}`), 403, "ERR_APP_ARCHIVED");
    expectError(await e.mgmt("DELETE", "/apps/doesnotexist"), 404, "ERR_APP_NOT_FOUND");
  });

  it("answers through the apimgmt Host label too", async () => {
    const r = await e.call("GET", "http://apimgmt.cometchat.io/apps", { key: null, headers: { ...MGMT } });
    expect(r.status).toBe(200);
    expect(r.body.data).toHaveLength(1);
  });

  it("answers ERR_API_NOT_FOUND for unknown management routes", async () => {
    expectError(await e.mgmt("GET", "/apps/x/nothing"), 404, "ERR_API_NOT_FOUND");
  });
});

/**
 * Every operation of the platform's published management file (`management-apis.json` in cometchat/docs): 128,
 * the count the README states. Listed here from the file, not from the emulator's own extension table.
 */
const SETTINGS_CRUD = [
  "gifs-giphy", "xss-filter", "image-moderation", "report-user", "report-message", "voice-transcription",
  "stickers-stipop", "sentiment-analysis", "url-shortener-tinyurl", "intercom", "url-shortener-bitly", "rich-media",
  "virus-malware-scanner", "broadcast", "gifs-tenor", "human-moderation", "e2ee", "email-replies",
  "sms-notification", "push-notification", "chatwoot", "message-shortcuts", "email-notification", "profanity-filter",
];
const A = `/apps/${APP_ID}`;
const X = `${A}/extensions`;
const PUBLISHED: [string, string][] = [
  ["POST", "/apps"], ["GET", "/apps"], ["POST", `${A}/usage`], ["DELETE", "/apps/{created}"],
  ["POST", X], ["GET", X],
  ...(["POST", "PUT", "GET"] as const).map((m): [string, string] => [m, `${X}/widget/v2/settings`]),
  ...SETTINGS_CRUD.flatMap((id) => ["POST", "PUT", "GET", "DELETE"].map((m): [string, string] => [m, `${X}/${id}/v1/settings`])),
  ...["PUT", "GET", "DELETE"].map((m): [string, string] => [m, `${X}/stickers/v1/settings`]),
  ...["GET", "PUT", "DELETE"].map((m): [string, string] => [m, `${X}/data-masking/v1/settings`]),
  ["POST", `${X}/push-notification/v1/upload-certificate-p12`], ["POST", `${X}/push-notification/v1/upload-certificate-p8`],
  ["GET", `${X}/push-notification/v1/query-certificates`],
  ["POST", `${A}/collaborators`], ["GET", `${A}/collaborators`],
  ["POST", `${A}/settings`], ["GET", `${A}/settings`], ["DELETE", `${A}/settings`],
  ["POST", `${A}/webhooks`], ["GET", `${A}/webhooks`],
  ...["GET", "PUT", "DELETE"].map((m): [string, string] => [m, `${A}/webhooks/w1`]),
  ...["POST", "GET", "DELETE"].map((m): [string, string] => [m, `${A}/webhooks/w1/triggers`]),
  ["POST", "/tenants"],
];

describe("management API: the published file", () => {
  it("serves every one of its 128 operations (none answers ERR_API_NOT_FOUND, none fails)", async () => {
    expect(PUBLISHED).toHaveLength(128);
    await e.mgmt("POST", X, { enabled: [...SETTINGS_CRUD, "stickers", "data-masking", "widget"] });
    const created = (await e.mgmt("POST", "/apps", { name: "Doomed" })).body.data.id;
    const basic = `Basic ${Buffer.from(`${MGMT.key}:${MGMT.secret}`).toString("base64")}`;
    for (const [method, template] of PUBLISHED) {
      const path = template.replace("{created}", created);
      const headers = path === "/tenants" ? { authorization: basic } : { ...MGMT };
      const r = await e.call(method, `/apimgmt${path}`, { key: null, headers, body: method === "GET" ? undefined : {} });
      expect(r.body?.error?.code, `${method} ${path}`).not.toBe("ERR_API_NOT_FOUND");
      expect(r.status, `${method} ${path} ${JSON.stringify(r.body)}`).toBeLessThan(500);
    }
  });
});
