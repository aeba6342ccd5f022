import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { APP_ID, emulator, expectError, MGMT, type TestEmulator } from "./helpers.js";
import { tempDir } from "./tmp.helpers.js";

let e: TestEmulator;
beforeEach(async () => {
  e = await emulator();
});

const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}` });
const tenant = { name: "Example User", email: "My-Email@example.com", password: "somePassword#!", contactNumber: "1111111111", role: "engineer", appName: "Create App", appRegion: "eu" };

describe("management API: collaborators", () => {
  it("invites, lists, re-roles and removes collaborators with per-email outcomes", async () => {
    const r = await e.mgmt("POST", `/apps/${APP_ID}/collaborators`, { admins: ["Admin1@example.com", "not-an-email"], moderators: ["mod@example.com"] });
    expect(r.status).toBe(200);
    expect(r.body.data.admins["Admin1@example.com"]).toEqual({ success: true });
    expect(r.body.data.admins["not-an-email"]).toMatchObject({ success: false, error: { code: "ERR_BAD_REQUEST" } });
    expect(r.body.data).toMatchObject({ developers: [], collaboratorsToRemove: [], moderators: { "mod@example.com": { success: true } } });
    const owner = await e.mgmt("POST", `/apps/${APP_ID}/collaborators`, { developers: ["owner@chat-emulator.local", "mod@example.com"] });
    expect(owner.body.data.developers["owner@chat-emulator.local"].error.code).toBe("ERR_ALREADY_AN_OWNER");
    const list = await e.mgmt("GET", `/apps/${APP_ID}/collaborators`);
    expect(list.body.data).toEqual([
      { id: "1", name: "admin1", email: "admin1@example.com", role: "admin", createdAt: expect.any(Number) },
      { id: "2", name: "mod", email: "mod@example.com", role: "developer", createdAt: expect.any(Number) },
    ]);
    expect(list.body.meta.pagination).toMatchObject({ total: 2 });
    const removed = await e.mgmt("POST", `/apps/${APP_ID}/collaborators`, { collaboratorsToRemove: ["admin1@example.com", "ghost@example.com"] });
    expect(removed.body.data.collaboratorsToRemove["admin1@example.com"]).toEqual({ success: true });
    expect(removed.body.data.collaboratorsToRemove["ghost@example.com"].error.code).toBe("ERR_NOT_A_COLLABORATOR");
    expect((await e.mgmt("GET", `/apps/${APP_ID}/collaborators`)).body.data).toHaveLength(1);
    expectError(await e.mgmt("POST", `/apps/${APP_ID}/collaborators`, {}), 400, "ERR_BAD_REQUEST");
    expectError(await e.mgmt("POST", `/apps/${APP_ID}/collaborators`, { admins: "a@b.co" }), 400, "ERR_BAD_REQUEST");
  });
});

describe("management API: app settings", () => {
  it("starts from the birth settings, maps and un-maps keys, and a reset restores them", async () => {
    const birth = (await e.mgmt("GET", `/apps/${APP_ID}/settings`)).body.data;
    expect(birth).toMatchObject({ "core.conversations.updateOnReplies": false, "core.threads.updateOnMessageActions": false });
    const r = await e.mgmt("POST", `/apps/${APP_ID}/settings`, { settings: { "core.threads.updateOnMessageActions": true, "custom.flag": false } });
    expect(r.body.data).toEqual({
      "core.threads.updateOnMessageActions": { success: true, message: "Added setting(s) successfully." },
      "custom.flag": { success: true, message: "Added setting(s) successfully." },
    });
    expect((await e.mgmt("GET", `/apps/${APP_ID}/settings`)).body.data["core.threads.updateOnMessageActions"]).toBe(true);
    const del = await e.mgmt("DELETE", `/apps/${APP_ID}/settings`, { settings: ["custom.flag"] });
    expect(del.body.data).toEqual({ success: true, message: "Removed setting(s) successfully." });
    expect((await e.mgmt("GET", `/apps/${APP_ID}/settings`)).body.data["custom.flag"]).toBeUndefined();
    const bad = expectError(await e.mgmt("POST", `/apps/${APP_ID}/settings`, { settings: { "a b": true, ok: "yes" } }), 400, "ERR_BAD_REQUEST");
    expect(Object.keys(bad.details!)).toEqual(["settings.a b", "settings.ok"]);
    expectError(await e.mgmt("DELETE", `/apps/${APP_ID}/settings`, {}), 400, "ERR_BAD_REQUEST");
    await e.call("POST", "/_emulator/reset", { key: null, body: { appId: APP_ID } });
    expect((await e.mgmt("GET", `/apps/${APP_ID}/settings`)).body.data).toEqual(birth);
  });
});

describe("app settings take effect", () => {
  it("core.conversations.* decide which messages update a conversation", async () => {
    const as1 = { onBehalfOf: "superhero1" };
    const last = async () => (await e.get("/v3/users/superhero2/conversation", as1)).body.data.lastMessage;
    const text = (await e.post("/v3/messages", { receiver: "superhero2", receiverType: "user", category: "message", type: "text", data: { text: "first" } }, as1)).body.data;
    const reply = (await e.post(`/v3/messages/${text.id}/thread`, { category: "message", type: "text", data: { text: "in thread" } }, as1)).body.data;
    expect((await last()).id).toBe(text.id);
    await e.mgmt("POST", `/apps/${APP_ID}/settings`, { settings: { "core.conversations.updateOnReplies": true } });
    expect((await last()).id).toBe(reply.id);
    await e.mgmt("POST", `/apps/${APP_ID}/settings`, { settings: { "core.conversations.updateOnReplies": false } });
    const custom = (await e.post("/v3/messages", { receiver: "superhero2", receiverType: "user", category: "custom", type: "location", data: { customData: { lat: 1 } } }, as1)).body.data;
    expect((await last()).id).toBe(custom.id);
    await e.mgmt("POST", `/apps/${APP_ID}/settings`, { settings: { "core.conversations.updateOnCustomMessage": false } });
    expect((await last()).id).toBe(text.id);
  });
});

describe("management API: tenants", () => {
  it("creates a tenant account with its app behind HTTP Basic authentication", async () => {
    const r = await e.call("POST", "/apimgmt/tenants", { key: null, body: tenant, headers: basic(MGMT.key, MGMT.secret) });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      name: "Example User",
      email: "my-email@example.com",
      createdAt: expect.any(Number),
      contactNumber: "1111111111",
      app: { name: "Create App", appId: expect.stringMatching(/^[0-9a-f]{16}$/), region: "eu", authKey: expect.any(String), apiKey: expect.any(String), createdAt: expect.any(Number), plan: "Build" },
    });
    const { appId, apiKey } = r.body.data.app;
    expect((await e.get(`/${appId}.api-eu/v3/users`, { key: apiKey })).status).toBe(200);
    const app = (await e.mgmt("GET", `/apps?searchKey=${appId}`)).body.data[0];
    expect(app).toMatchObject({ plan: "Build", appOwner: { name: "Example User", email: "my-email@example.com" } });
    const again = expectError(await e.call("POST", "/apimgmt/tenants", { key: null, body: tenant, headers: basic(MGMT.key, MGMT.secret) }), 400, "ERR_BAD_REQUEST");
    expect(again.details).toEqual({ email: ["The email has already been taken."] });
  });

  it("answers to Basic authentication only, and validates the account", async () => {
    const none = expectError(await e.call("POST", "/apimgmt/tenants", { key: null, body: tenant }), 401, "AUTH_ERR_EMPTY_AUTH_HEADER");
    expect(none.message).toContain("Basic authorization header");
    expectError(await e.call("POST", "/apimgmt/tenants", { key: null, body: tenant, headers: { ...MGMT } }), 401, "AUTH_ERR_EMPTY_AUTH_HEADER");
    expectError(await e.call("POST", "/apimgmt/tenants", { key: null, body: tenant, headers: basic(MGMT.key, "nope") }), 401, "AUTH_ERR_INVALID_CREDENTIALS");
    const err = expectError(await e.call("POST", "/apimgmt/tenants", { key: null, body: { email: "x", appRegion: "mars" }, headers: basic(MGMT.key, MGMT.secret) }), 400, "ERR_BAD_REQUEST");
    expect(Object.keys(err.details!).sort()).toEqual(["appName", "appRegion", "email", "name", "password"]);
    expectError(await e.call("GET", "/apimgmt/tenants", { key: null, headers: { ...MGMT } }), 404, "ERR_API_NOT_FOUND");
  });
});

describe("management API: usage", () => {
  it("accepts a usage request and reports the billing cycle's usage computed from the store", async () => {
    e.clock.freeze(Date.UTC(2026, 10, 23, 12) );
    await e.post("/v3/messages", { receiver: "superhero2", receiverType: "user", category: "message", type: "text", data: { text: "hi" } }, { onBehalfOf: "superhero1" });
    const r = await e.mgmt("POST", `/apps/${APP_ID}/usage`, { usePreviousBillingCycle: false });
    expect(r.status).toBe(200);
    expect(r.body.data.success).toBe(true);
    expect(r.body.data.message).toBe(
      "Your usage request has been accepted and is being processed for November 2026. You will receive an email with the details at owner@chat-emulator.local",
    );
    const usage = r.body.data.usage;
    expect(usage.cycle).toEqual({ from: Date.UTC(2026, 10, 1) / 1000, to: Date.UTC(2026, 11, 1) / 1000, name: "November 2026" });
    expect(usage.messages).toBeGreaterThanOrEqual(1);
    expect(usage.monthly_active_users).toBeGreaterThanOrEqual(1);
    expect(usage).toMatchObject({ total_users: 5, audio_minutes: expect.any(Number), video_minutes: expect.any(Number) });
    const previous = (await e.mgmt("POST", `/apps/${APP_ID}/usage`, { usePreviousBillingCycle: true })).body.data.usage;
    expect(previous.cycle.name).toBe("October 2026");
    expect(previous.messages).toBe(0);
    expect(usage.apps).toEqual([APP_ID]);
    expectError(await e.mgmt("POST", `/apps/${APP_ID}/usage`, { usePreviousBillingCycle: "soon" }), 400, "ERR_BAD_REQUEST");
    expectError(await e.mgmt("POST", "/apps/nosuch/usage", {}), 404, "ERR_APP_NOT_FOUND");
  });

  it("pools an account's apps in its base app: the base app reports them all, another app itself alone", async () => {
    const hi = (base: string, key?: string) =>
      e.post(`${base}/v3/messages`, { receiver: "superhero2", receiverType: "user", data: { text: "hi" } }, { onBehalfOf: "superhero1", key });
    const report = async (appId: string) => (await e.mgmt("POST", `/apps/${appId}/usage`, {})).body.data.usage;
    const before = await report(APP_ID);
    const other = (await e.mgmt("POST", "/apps", { name: "Tenant A", region: "eu" })).body.data;
    const key = Object.values(other.apiKeys as Record<string, { apiKey: string; scope: string }>).find((k) => k.scope === "fullAccess")!.apiKey;
    expect((await hi(`/${other.id}.api-eu`, key)).status).toBe(200);
    expect((await hi(`/${other.id}.api-eu`, key)).status).toBe(200);
    const alone = await report(other.id);
    expect(alone).toMatchObject({ apps: [other.id], total_users: 5 });
    expect(alone.messages).toBeGreaterThanOrEqual(2); // and the sample messages of its birth
    const pooled = await report(APP_ID);
    expect(pooled.apps).toEqual([APP_ID, other.id]);
    for (const figure of ["messages", "total_users", "monthly_active_users", "audio_minutes", "video_minutes"])
      expect(pooled[figure], figure).toBe(before[figure] + alone[figure]);
    // An account made with POST /tenants is another account: its first app is its own base app.
    const account = await e.call("POST", "/apimgmt/tenants", { key: null, body: tenant, headers: basic(MGMT.key, MGMT.secret) });
    const own = account.body.data.app.appId;
    expect((await report(own)).apps).toEqual([own]);
    expect((await report(APP_ID)).apps).toEqual([APP_ID, other.id]);
  });
});

describe("management data in the data file", () => {
  it("keeps extensions, widgets, certificates, collaborators, settings and tenants across a restart; a reset restores each app's birth", async () => {
    const file = join(tempDir("management"), "state.json");
    const first = await emulator({ data: file });
    const ext = (path: string) => `/apps/${APP_ID}/extensions${path}`;
    await first.mgmt("POST", ext(""), { enabled: ["profanity-filter", "widget", "push-notification"] });
    await first.mgmt("POST", ext("/profanity-filter/v1/settings"), { settings: { dropMessage: false, badwords: ["darn"] } });
    const widgetId = (await first.mgmt("POST", ext("/widget/v2/settings"), { settings: { name: "Help", version: "v2" } })).body.data.body.data.widgetId;
    const form = new FormData();
    form.append("certificate", new Blob([readFileSync(new URL("./fixtures/apns-test.p8", import.meta.url))]), "AuthKey.p8");
    const cert = await first.app.request(`http://localhost/apimgmt${ext("/push-notification/v1/upload-certificate-p8")}`, { method: "POST", headers: { ...MGMT }, body: form });
    expect(cert.status).toBe(200);
    await first.mgmt("POST", `/apps/${APP_ID}/collaborators`, { admins: ["ada@example.com"] });
    await first.mgmt("POST", `/apps/${APP_ID}/settings`, { settings: { "core.conversations.updateOnReplies": true } });
    const created = await first.call("POST", "/apimgmt/tenants", { key: null, body: tenant, headers: basic(MGMT.key, MGMT.secret) });
    const tenantApp = created.body.data.app.appId;
    await first.mgmt("POST", `/apps/${tenantApp}/extensions`, { enabled: ["xss-filter"] });
    await first.persistence!.flush();
    first.persistence!.close();

    const second = await emulator({ data: file });
    const listed = (await second.mgmt("GET", ext("?perPage=100"))).body.data.filter((x: any) => x.isActive).map((x: any) => x.id);
    expect(listed.sort()).toEqual(["profanity-filter", "push-notification", "widget"]);
    expect((await second.mgmt("GET", ext("/profanity-filter/v1/settings"))).body.data.body.data.settings.badwords).toEqual(["darn"]);
    expect((await second.mgmt("GET", ext("/widget/v2/settings"))).body.data.body.data.configuration).toEqual([{ name: "Help", version: "v2", appId: APP_ID, widgetId }]);
    expect((await second.mgmt("GET", ext("/push-notification/v1/query-certificates"))).body.data.body).toMatchObject({ certificate_p8: true, certificates: [{ type: "p8", fileName: "AuthKey.p8" }] });
    expect((await second.mgmt("GET", `/apps/${APP_ID}/collaborators`)).body.data).toMatchObject([{ email: "ada@example.com", role: "admin" }]);
    expect((await second.mgmt("GET", `/apps/${APP_ID}/settings`)).body.data["core.conversations.updateOnReplies"]).toBe(true);
    expect((await second.mgmt("GET", `/apps?searchKey=${tenantApp}`)).body.data[0].appOwner).toMatchObject({ email: "my-email@example.com" });
    const tenantListed = (await second.mgmt("GET", `/apps/${tenantApp}/extensions?perPage=100`)).body.data;
    expect(tenantListed.filter((x: any) => x.isActive).map((x: any) => x.id)).toEqual(["xss-filter"]);
    // The effect is back with the settings: the stored bad word is masked.
    const sent = await second.post("/v3/messages", { receiver: "superhero2", receiverType: "user", data: { text: "darn" } }, { onBehalfOf: "superhero1" });
    expect(sent.body.data.data.metadata["@injected"].extensions["profanity-filter"]).toEqual({ profanity: "yes", message_clean: "****" });

    await second.call("POST", "/_emulator/reset", { key: null, body: { appId: APP_ID } });
    expect((await second.mgmt("GET", ext("?perPage=100"))).body.data.filter((x: any) => x.isActive)).toEqual([]);
    expect((await second.mgmt("GET", `/apps/${APP_ID}/collaborators`)).body.data).toEqual([]);
    expect((await second.mgmt("GET", `/apps/${APP_ID}/settings`)).body.data["core.conversations.updateOnReplies"]).toBe(false);
    // An app created before the restart goes back to its own birth, not to what was loaded.
    await second.call("POST", "/_emulator/reset", { key: null, body: { appId: tenantApp } });
    expect((await second.mgmt("GET", `/apps/${tenantApp}/extensions?perPage=100`)).body.data.filter((x: any) => x.isActive)).toEqual([]);
    expect((await second.mgmt("GET", `/apps?searchKey=${tenantApp}`)).body.data[0]).toMatchObject({ plan: "Build", appOwner: { email: "my-email@example.com" } });
    second.persistence!.close();
  });
});
