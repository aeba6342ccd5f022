import { beforeEach, describe, expect, it } from "vitest";
import { AUTH_KEY, emulator, expectError, type TestEmulator } from "./helpers.js";

let e: TestEmulator;
beforeEach(async () => {
  e = await emulator();
});

const base = "/v3/users/superhero1/auth_tokens";

describe("auth tokens", () => {
  it("creates a token in the platform format, with the Auth Key too", async () => {
    e.clock.freeze(1_630_306_819_000);
    const r = await e.post(base, {}, { key: AUTH_KEY });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ uid: "superhero1", authToken: expect.stringMatching(/^superhero1_1630306819[0-9a-f]{30}$/), createdAt: 1_630_306_819 });
  });

  it("hands out the newest token again unless force is true", async () => {
    const first = (await e.post(base, {})).body.data.authToken;
    expect((await e.post(base, {})).body.data.authToken).toBe(first);
    const forced = (await e.post(base, { force: true })).body.data.authToken;
    expect(forced).not.toBe(first);
    expect((await e.post(base, {})).body.data.authToken).toBe(forced);
  });

  it("stores the SDK's platform, deviceId and appInfo", async () => {
    const r = await e.post(base, { platform: "WEB", deviceId: "d1", appInfo: { version: "4.0.10" } });
    const list = await e.get(base);
    expect(list.body.data).toEqual([{ ...r.body.data, platform: "WEB", appInfo: { version: "4.0.10" } }]);
  });

  it("lists tokens with the page envelope", async () => {
    for (let i = 0; i < 3; i++) await e.post(base, { force: true });
    const r = await e.get(`${base}?perPage=2&page=2`);
    expect(r.body.data).toHaveLength(1);
    expect(r.body.meta.pagination).toEqual({ total: 3, count: 1, per_page: 2, current_page: 2, total_pages: 2 });
  });

  it("keeps at most 100 active tokens per user, archiving the oldest", async () => {
    const tokens: string[] = [];
    for (let i = 0; i < 101; i++) tokens.push((await e.post(base, { force: true })).body.data.authToken);
    const list = await e.get(`${base}?perPage=1000`);
    expect(list.body.meta.pagination.total).toBe(100);
    expect(list.body.data[0].authToken).toBe(tokens[1]);
    expectError(await e.get(`${base}/${tokens[0]}`), 404, "ERR_AUTH_TOKEN_NOT_FOUND");
    expect((await e.get(`${base}/${tokens[100]}`)).status).toBe(200);
  });

  it("gets, updates and deletes one token", async () => {
    const token = (await e.post(base, {})).body.data.authToken;
    const got = await e.get(`${base}/${token}`);
    expect(got.body.data).toEqual({ uid: "superhero1", authToken: token, createdAt: expect.any(Number) });
    const updated = await e.put(`${base}/${token}`, { platform: "ios", userAgent: "UA/1", appInfo: { a: 1 } });
    expect(updated.body.data).toMatchObject({ authToken: token, platform: "ios", userAgent: "UA/1", appInfo: { a: 1 } });
    expectError(await e.put(`${base}/${token}`, { appInfo: "x" }), 400, "ERR_BAD_REQUEST");
    const deleted = await e.del(`${base}/${token}`);
    expect(deleted.body.data).toEqual({ success: true, message: `Auth token ${token} has been deleted successfully.` });
    expectError(await e.del(`${base}/${token}`), 404, "ERR_AUTH_TOKEN_NOT_FOUND");
    expectError(await e.get(`${base}/${token}`), 404, "ERR_AUTH_TOKEN_NOT_FOUND");
  });

  it("does not show one user's token under another user", async () => {
    const token = (await e.post(base, {})).body.data.authToken;
    expectError(await e.get(`/v3/users/superhero2/auth_tokens/${token}`), 404, "ERR_AUTH_TOKEN_NOT_FOUND");
  });

  it("flushes all tokens of a user", async () => {
    await e.post(base, { force: true });
    await e.post(base, { force: true });
    const r = await e.del(base);
    expect(r.body.data).toEqual({ success: true, message: "Cleared Auth Tokens successfully for uid superhero1." });
    expect((await e.get(base)).body.data).toEqual([]);
  });

  it("answers ERR_UID_NOT_FOUND for unknown or deactivated users", async () => {
    expectError(await e.post("/v3/users/ghost/auth_tokens", {}), 404, "ERR_UID_NOT_FOUND");
    expectError(await e.get("/v3/users/ghost/auth_tokens"), 404, "ERR_UID_NOT_FOUND");
    await e.del("/v3/users", { uidsToDeactivate: ["superhero1"] });
    expectError(await e.post(base, {}), 404, "ERR_UID_NOT_FOUND");
  });

  it("validates force", async () => {
    const err = expectError(await e.post(base, { force: "always" }), 400, "ERR_BAD_REQUEST");
    expect(err.details).toEqual({ force: ["The force field must be true or false."] });
  });
});
