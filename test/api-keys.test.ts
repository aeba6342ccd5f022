import { beforeEach, describe, expect, it } from "vitest";
import { AUTH_KEY, emulator, expectError, REST_KEY, type TestEmulator } from "./helpers.js";

let e: TestEmulator;
beforeEach(async () => {
  e = await emulator();
});

describe("API keys", () => {
  it("lists the two keys every app starts with", async () => {
    const r = await e.get("/v3/apikeys");
    expect(r.body.data).toEqual([
      { apiKey: REST_KEY, name: "Rest API Key", scope: "fullAccess", createdAt: expect.any(Number) },
      { apiKey: AUTH_KEY, name: "Auth Key", scope: "authOnly", createdAt: expect.any(Number) },
    ]);
    expect(r.body.meta.pagination).toEqual({ total: 2, count: 2, per_page: 100, current_page: 1, total_pages: 1 });
  });

  it("creates a 40-hex key that works at once", async () => {
    const r = await e.post("/v3/apikeys", { name: "CI key", scope: "fullAccess" });
    expect(r.body.data).toEqual({ apiKey: expect.stringMatching(/^[0-9a-f]{40}$/), name: "CI key", scope: "fullAccess", createdAt: expect.any(Number) });
    expect((await e.get("/v3/users", { key: r.body.data.apiKey })).status).toBe(200);
  });

  it("filters by scope and searchKey", async () => {
    await e.post("/v3/apikeys", { name: "Mobile auth", scope: "authOnly" });
    expect((await e.get("/v3/apikeys?scope=authOnly")).body.data.map((k: any) => k.name)).toEqual(["Auth Key", "Mobile auth"]);
    expect((await e.get("/v3/apikeys?searchKey=mobile")).body.data.map((k: any) => k.name)).toEqual(["Mobile auth"]);
    expectError(await e.get("/v3/apikeys?scope=all"), 400, "ERR_BAD_REQUEST");
  });

  it("validates create and update", async () => {
    const err = expectError(await e.post("/v3/apikeys", { name: "", scope: "root" }), 400, "ERR_BAD_REQUEST");
    expect(err.details).toEqual({ name: ["The name field is required."], scope: ["The selected scope is invalid."] });
    const key = (await e.post("/v3/apikeys", { name: "k", scope: "authOnly" })).body.data.apiKey;
    const upd = expectError(await e.put(`/v3/apikeys/${key}`, { name: "" }), 400, "ERR_BAD_REQUEST");
    expect(upd.details).toEqual({ name: ["The name field must have a value."] });
  });

  it("gets, updates and deletes a key; a deleted key stops working at once", async () => {
    const key = (await e.post("/v3/apikeys", { name: "temp", scope: "authOnly" })).body.data.apiKey;
    expect((await e.get(`/v3/apikeys/${key}`)).body.data.name).toBe("temp");
    const upd = await e.put(`/v3/apikeys/${key}`, { name: "promoted", scope: "fullAccess" });
    expect(upd.body.data).toMatchObject({ apiKey: key, name: "promoted", scope: "fullAccess", updatedAt: expect.any(Number) });
    expect((await e.get("/v3/users", { key })).status).toBe(200);
    const del = await e.del(`/v3/apikeys/${key}`);
    expect(del.body.data).toEqual({ success: true, message: `The Api Key ${key} has been deleted successfully.` });
    expectError(await e.get("/v3/users", { key }), 401, "AUTH_ERR_APIKEY_NOT_FOUND");
    expectError(await e.get(`/v3/apikeys/${key}`), 404, "ERR_APIKEY_NOT_FOUND");
  });

  it("refuses a key acting on itself", async () => {
    expectError(await e.del(`/v3/apikeys/${REST_KEY}`), 403, "ERR_APIKEY_NO_SELF_ACTION");
    expectError(await e.put(`/v3/apikeys/${REST_KEY}`, { name: "x" }), 403, "ERR_APIKEY_NO_SELF_ACTION");
  });

  it("allows at most 25 keys per app", async () => {
    for (let i = 0; i < 23; i++) expect((await e.post("/v3/apikeys", { name: `k${i}`, scope: "authOnly" })).status).toBe(200);
    expectError(await e.post("/v3/apikeys", { name: "one too many", scope: "authOnly" }), 403, "ERR_PLAN_QUOTA_RESTRICTION");
  });
});

describe("key authentication", () => {
  it("requires the apikey header (any case)", async () => {
    expectError(await e.get("/v3/users", { key: null }), 401, "AUTH_ERR_EMPTY_APIKEY");
    expect((await e.get("/v3/users", { key: null, headers: { APIKEY: REST_KEY } })).status).toBe(200);
  });

  it("masks an unknown key in the message: first 5, stars, last 5", async () => {
    const key = "11111" + "2".repeat(22) + "11111";
    const err = expectError(await e.get("/v3/users", { key }), 401, "AUTH_ERR_APIKEY_NOT_FOUND");
    expect(err.message).toBe(`The key 11111${"*".repeat(22)}11111 does not exist. Please use correct apiKey.`);
    expect(err.devMessage).toBe(`The 11111${"*".repeat(22)}11111 key doesn't work. Please use correct apiKey.`);
  });

  it("refuses a key of another app", async () => {
    const other = await e.mgmt("POST", "/apps", { name: "Other", region: "us" });
    const otherKey = Object.keys(other.body.data.apiKeys)[0];
    expectError(await e.get("/v3/users", { key: otherKey }), 401, "AUTH_ERR_APIKEY_NOT_FOUND");
  });

  it("lets the authOnly key create users and auth tokens only", async () => {
    expect((await e.post("/v3/users", { uid: "via-auth-key", name: "x" }, { key: AUTH_KEY })).status).toBe(200);
    expect((await e.post("/v3/users/via-auth-key/auth_tokens", {}, { key: AUTH_KEY })).status).toBe(200);
    const err = expectError(await e.get("/v3/users", { key: AUTH_KEY }), 403, "AUTH_ERR_NO_ACCESS");
    expect(err.message).toBe(
      `The key 061e8${"*".repeat(30)}33aca cannot be used to perform this operation. Please use API key with a correct scope to perform the operation.`,
    );
    expectError(await e.del("/v3/users/via-auth-key", {}, { key: AUTH_KEY }), 403, "AUTH_ERR_NO_ACCESS");
    expectError(await e.get("/v3/apikeys", { key: AUTH_KEY }), 403, "AUTH_ERR_NO_ACCESS");
  });

  it("checks the app before the key, and the key before the route", async () => {
    expectError(await e.get("/ffffffffffff.api-us/v3/nothing", { key: null }), 401, "AUTH_ERR_INVALID_APPID");
    expectError(await e.get("/v3/nothing", { key: null }), 401, "AUTH_ERR_EMPTY_APIKEY");
    expectError(await e.get("/v3/nothing"), 404, "ERR_API_NOT_FOUND");
  });
});

describe("onBehalfOf", () => {
  it("rejects unknown and deactivated users with ERR_UID_NOT_FOUND", async () => {
    expectError(await e.get("/v3/users/superhero1", { onBehalfOf: "nobody" }), 404, "ERR_UID_NOT_FOUND");
    await e.del("/v3/users", { uidsToDeactivate: ["superhero2"] });
    const err = expectError(await e.get("/v3/users/superhero1", { onBehalfOf: "SuperHero2" }), 404, "ERR_UID_NOT_FOUND");
    expect(err.message).toContain("superhero2");
  });
});
