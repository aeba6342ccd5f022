import { readFileSync } from "node:fs";
import { beforeEach, describe, expect, it } from "vitest";
import { APP_ID, emulator, expectError, MGMT, type TestEmulator } from "./helpers.js";
import { EXTENSIONS, WITH_SETTINGS } from "../src/extensions/catalogue.js";

let e: TestEmulator;
beforeEach(async () => {
  e = await emulator();
});

const ext = (path: string) => `/apps/${APP_ID}/extensions${path}`;
const enable = (...ids: string[]) => e.mgmt("POST", ext(""), { enabled: ids });

/** A setting value of the right type for each field kind (what a valid store request carries). */
function sample(type: string): unknown {
  return { string: "x", boolean: true, number: 3, integer: 1, object: {}, strings: ["a"], objects: [{}] }[type];
}

describe("management API: extensions", () => {
  it("lists every extension of the table with the list's fields, paged", async () => {
    const r = await e.mgmt("GET", ext("?perPage=1000"));
    expect(r.status).toBe(200);
    expect(r.body.data).toHaveLength(EXTENSIONS.length);
    expect(r.body.meta.pagination).toMatchObject({ total: EXTENSIONS.length, per_page: 1000 });
    const masking = r.body.data.find((x: any) => x.id === "data-masking");
    expect(masking).toMatchObject({ name: "Data Masking", author: "CometChat", isActive: false, isThirdParty: false, categories: { data: [] } });
    expect(masking.hooks.data[0]).toMatchObject({ hook: "before_message", isActive: true, enabled: 1 });
    expect((await e.mgmt("GET", ext(""))).body.data).toHaveLength(25);
    expectError(await e.mgmt("GET", ext("?perPage=0")), 400, "ERR_BAD_REQUEST");
    expectError(await e.mgmt("GET", "/apps/nosuchapp/extensions"), 404, "ERR_APP_NOT_FOUND");
  });

  it("enables and disables with per-id outcomes; unknown ids fail alone", async () => {
    const r = await e.mgmt("POST", ext(""), { enabled: ["profanity-filter", "nope"], disabled: ["polls"] });
    expect(r.status).toBe(200);
    expect(r.body.data.enabled["profanity-filter"]).toEqual({ success: true, message: "The extension profanity-filter has been enabled successfully." });
    expect(r.body.data.enabled.nope).toMatchObject({ success: false, error: { code: "ERR_EXTENSION_NOT_FOUND" } });
    expect(r.body.data.disabled.polls.message).toBe("The extension polls has been disabled successfully.");
    const listed = (await e.mgmt("GET", ext("?perPage=1000"))).body.data;
    expect(listed.filter((x: any) => x.isActive).map((x: any) => x.id)).toEqual(["profanity-filter"]);
    expectError(await e.mgmt("POST", ext(""), {}), 400, "ERR_BAD_REQUEST");
    expectError(await e.mgmt("POST", ext(""), { enabled: "polls" }), 400, "ERR_BAD_REQUEST");
  });

  it("stores, updates, reads and deletes the settings of every extension that has them, against its fields", async () => {
    expect(WITH_SETTINGS).toHaveLength(26);
    for (const x of WITH_SETTINGS) {
      const spec = x.settings!;
      const path = ext(`/${x.id}/v1/settings`);
      expectError(await e.mgmt("GET", path), 403, "ERR_EXTENSION_INACTIVE");
      await enable(x.id);
      const settings = Object.fromEntries(Object.entries(spec.fields).filter(([, f]) => f.required).map(([k, f]) => [k, f.in ? f.in[0] : sample(f.type)]));
      const body = spec.topLevel ? settings : { settings };
      const stored = await e.mgmt(spec.ops === "crud" ? "POST" : "PUT", path, body);
      expect(stored.status, `${x.id} ${JSON.stringify(stored.body)}`).toBe(200);
      expect(stored.body.data).toMatchObject({ statusCode: 200, success: true, responseTime: expect.any(Number) });
      const got = await e.mgmt("GET", path);
      expect(got.body.data.body.data.settings).toMatchObject({ ...settings, appId: APP_ID });
      if (spec.ops === "crud") {
        const required = Object.entries(spec.fields).find(([, f]) => f.required);
        if (required) {
          const err = expectError(await e.mgmt("POST", path, { settings: {} }), 400, "ERR_BAD_REQUEST");
          expect(err.details![`settings.${required[0]}`]).toEqual([`The settings.${required[0]} field is required.`]);
        }
        // An update may send only what changes.
        expect((await e.mgmt("PUT", path, { settings: {} })).status).toBe(200);
      } else expectError(await e.mgmt("POST", path, body), 404, "ERR_API_NOT_FOUND");
      const unknown = expectError(await e.mgmt("PUT", path, spec.topLevel ? { bogus: 1 } : { settings: { bogus: 1 } }), 400, "ERR_BAD_REQUEST");
      expect(Object.keys(unknown.details!)).toEqual([spec.topLevel ? "bogus" : "settings.bogus"]);
      // Giphy, the XSS filter and SMS notifications answer their published delete replies (shape-conformance.test.ts).
      const deleted = (await e.mgmt("DELETE", path)).body.data.body;
      if (!spec.replies?.delete) expect(deleted).toEqual({ data: { success: true } });
      const reply = spec.replyWebhook ? { webhookURL: expect.any(String) } : {};
      expect((await e.mgmt("GET", path)).body.data.body.data.settings).toEqual({ ...spec.defaults, appId: APP_ID, ...reply });
    }
    expectError(await e.mgmt("GET", ext("/polls/v1/settings")), 404, "ERR_API_NOT_FOUND");
    expectError(await e.mgmt("GET", ext("/nope/v1/settings")), 404, "ERR_API_NOT_FOUND");
  });

  it("checks setting types and allowed values", async () => {
    await enable("push-notification", "profanity-filter");
    const err = expectError(
      await e.mgmt("POST", ext("/push-notification/v1/settings"), { settings: { version: 7, pushProvider: "x", useP8: "maybe" } }),
      400,
      "ERR_BAD_REQUEST",
    );
    expect(err.details).toEqual({
      "settings.version": ["The selected settings.version is invalid."],
      "settings.pushProvider": ["The settings.pushProvider must be an integer."],
      "settings.useP8": ["The settings.useP8 field must be true or false."],
    });
    const bad = expectError(await e.mgmt("POST", ext("/profanity-filter/v1/settings"), { settings: { dropMessage: false, badwords: [1] } }), 400, "ERR_BAD_REQUEST");
    expect(bad.details).toEqual({ "settings.badwords.0": ["The settings.badwords.0 must be a string."] });
    expectError(await e.mgmt("POST", ext("/profanity-filter/v1/settings"), { settings: [] }), 400, "ERR_BAD_REQUEST");
    // Names every object has are no settings either, and a refused write stores nothing.
    await e.mgmt("POST", ext("/profanity-filter/v1/settings"), { settings: { dropMessage: false, badwords: ["darn"] } });
    for (const name of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
      const refused = expectError(await e.mgmt("PUT", ext("/profanity-filter/v1/settings"), JSON.parse(`{"settings": {"${name}": {"dropMessage": true}}}`)), 400, "ERR_BAD_REQUEST");
      expect(Object.keys(refused.details!)).toEqual([`settings.${name}`]);
    }
    expect((await e.mgmt("GET", ext("/profanity-filter/v1/settings"))).body.data.body.data.settings).toEqual({ dropMessage: false, badwords: ["darn"], appId: APP_ID });
  });

  it("keeps data masking's custom masks by id and refuses patterns RE2 cannot run", async () => {
    await enable("data-masking");
    const path = ext("/data-masking/v1/settings");
    await e.mgmt("PUT", path, { settings: { dropMessage: false, customregexData: [{ name: "order", regex: "ORD-\\d{6}", id: "9" }, { name: "pin", regex: "PIN\\d{4}" }] } });
    let s = (await e.mgmt("GET", path)).body.data.body.data.settings;
    expect(s.customregexData.map((m: any) => m.name)).toEqual(["order", "pin"]);
    expect(s.defaultRegexData.map((m: any) => m.name)).toEqual(["US Phone numbers", "Emails", "SSN"]);
    await e.mgmt("PUT", path, { settings: { dropMessage: true, deleteCustomRegexData: ["9"] } });
    s = (await e.mgmt("GET", path)).body.data.body.data.settings;
    expect(s.customregexData.map((m: any) => m.name)).toEqual(["pin"]);
    expect(s.dropMessage).toBe(true);
    for (const regex of ["(a)\\1", "(?<!x)y", "x{1,200}", "(unclosed", "x*"])
      expectError(await e.mgmt("PUT", path, { settings: { dropMessage: false, customregexData: [{ name: "bad", regex }] } }), 400, "ERR_BAD_REQUEST");
  });

  it("creates, updates and lists chat widgets", async () => {
    const path = ext("/widget/v2/settings");
    expectError(await e.mgmt("POST", path, { settings: { name: "W", version: "v2" } }), 403, "ERR_EXTENSION_INACTIVE");
    await enable("widget");
    const created = await e.mgmt("POST", path, { settings: { name: "Support", version: "v2", main: { enable_sending_messages: true } } });
    const widgetId = created.body.data.body.data.widgetId;
    expect(widgetId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const updated = await e.mgmt("PUT", path, { settings: { widgetId, name: "Help", version: "v2" } });
    expect(updated.body.data.body).toEqual({ data: { success: true } });
    const list = (await e.mgmt("GET", path)).body.data.body.data.configuration;
    expect(list).toEqual([{ name: "Help", version: "v2", appId: APP_ID, widgetId }]);
    const err = expectError(await e.mgmt("POST", path, { settings: { version: "v9" } }), 400, "ERR_BAD_REQUEST");
    expect(err.details).toEqual({ "settings.name": ["The settings.name field is required."], "settings.version": ["The selected settings.version is invalid."] });
    expectError(await e.mgmt("PUT", path, { settings: { widgetId: "nope", name: "x", version: "v2" } }), 400, "ERR_BAD_REQUEST");
  });

  it("records push certificates (p12 topic and expiry, p8 key) and never uses them", async () => {
    const upload = (kind: string, file: Buffer | string, name: string) => {
      const form = new FormData();
      form.append("certificate", new Blob([file]), name);
      return e.app.request(`http://localhost/apimgmt${ext(`/push-notification/v1/upload-certificate-${kind}`)}`, { method: "POST", headers: { ...MGMT }, body: form });
    };
    const query = () => e.mgmt("GET", ext("/push-notification/v1/query-certificates"));
    expect((await upload("p12", "x", "a.p12")).status).toBe(403);
    await enable("push-notification");
    const p12 = await upload("p12", readFileSync(new URL("./fixtures/apns-test.p12", import.meta.url)), "apns.p12");
    expect(p12.status).toBe(200);
    expect(((await p12.json()) as any).data.body).toEqual({ certificate_p12: true, certificate_p8: false });
    const p8 = await upload("p8", readFileSync(new URL("./fixtures/apns-test.p8", import.meta.url)), "AuthKey_ABC.p8");
    expect(((await p8.json()) as any).data.body).toEqual({ success: true });
    const body = (await query()).body.data.body;
    expect(body).toMatchObject({ success: true, certificate_p12: true, certificate_p8: true });
    expect(body.certificates[0]).toMatchObject({ type: "p12", fileName: "apns.p12", bundleId: "com.example.chatapp", expiresAt: 2110821058 });
    expect(body.certificates[1]).toMatchObject({ type: "p8", fileName: "AuthKey_ABC.p8", expiresAt: null, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect((await upload("p8", "not a key", "k.p8")).status).toBe(400);
    const none = await e.app.request(`http://localhost/apimgmt${ext("/push-notification/v1/upload-certificate-p12")}`, { method: "POST", headers: { ...MGMT }, body: new FormData() });
    expectError({ status: none.status, headers: none.headers, body: await none.json() }, 400, "ERR_BAD_REQUEST");
    const json = await e.mgmt("POST", ext("/push-notification/v1/upload-certificate-p12"), { certificate: "x" });
    expect(json.status).toBe(415);
  });

  it("keeps extension state across restarts of the data file and resets it to the app's birth state", async () => {
    await enable("profanity-filter");
    await e.mgmt("POST", ext("/profanity-filter/v1/settings"), { settings: { dropMessage: false, badwords: ["darn"] } });
    const state = (await e.call("GET", "/_emulator/state", { key: null })).body;
    const again = await emulator();
    expect((await again.call("PUT", "/_emulator/state", { key: null, body: state })).status).toBe(200);
    const s = (await again.mgmt("GET", ext("/profanity-filter/v1/settings"))).body.data.body.data.settings;
    expect(s.badwords).toEqual(["darn"]);
    await again.call("POST", "/_emulator/reset", { key: null, body: {} });
    expectError(await again.mgmt("GET", ext("/profanity-filter/v1/settings")), 403, "ERR_EXTENSION_INACTIVE");
  });
});
