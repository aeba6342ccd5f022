import { beforeEach, describe, expect, it } from "vitest";
import { APP_ID, emulator, expectError, type TestEmulator } from "./helpers.js";

let e: TestEmulator;
beforeEach(async () => {
  e = await emulator({ rateLimit: true });
  e.clock.freeze(1_699_999_990_000); // 10 s into a minute: the window resets at 1_700_000_040
});

const limit = (limits: Record<string, unknown>) => e.put(`/_emulator/rate-limits/${APP_ID}`, limits);

describe("rate limits", () => {
  it("are off by default: no headers, no limit", async () => {
    const plain = await emulator();
    const r = await plain.get("/v3/users");
    expect(r.headers.get("x-rate-limit")).toBeNull();
    expect((await plain.get("/_emulator/rate-limits")).body).toMatchObject({ enabled: false, limits: { core: 10000, standard: 20000 } });
  });

  it("send X-Rate-Limit and X-Rate-Limit-Remaining on every response, errors included", async () => {
    const ok = await e.get("/v3/users");
    expect(ok.headers.get("x-rate-limit")).toBe("20000");
    expect(ok.headers.get("x-rate-limit-remaining")).toBe("19999");
    const notFound = await e.get("/v3/users/nobody");
    expect(notFound.status).toBe(404);
    expect(notFound.headers.get("x-rate-limit-remaining")).toBe("19998");
    const core = await e.post("/v3/users", { uid: "counted", name: "Counted" });
    expect(core.headers.get("x-rate-limit")).toBe("10000");
    expect(core.headers.get("x-rate-limit-remaining")).toBe("9999");
  });

  it("answer 429 ERR_TOO_MANY_REQUESTS with Retry-After and X-Rate-Limit-Reset once a bucket is spent, until the clock moves to the next minute", async () => {
    expect((await limit({ standard: 2 })).body).toMatchObject({ appId: APP_ID, limits: { core: 10000, standard: 2 }, overridden: true });
    expect((await e.get("/v3/users")).headers.get("x-rate-limit-remaining")).toBe("1");
    expect((await e.get("/v3/groups")).headers.get("x-rate-limit-remaining")).toBe("0");
    const refused = await e.get("/v3/users");
    const err = expectError(refused, 429, "ERR_TOO_MANY_REQUESTS");
    expect(err.message).toBe("Too many requests. You have exceeded the rate limit. Please retry after the specified time.");
    expect(refused.headers.get("retry-after")).toBe("50");
    expect(refused.headers.get("x-rate-limit-reset")).toBe("1700000040");
    expect(refused.headers.get("x-rate-limit")).toBe("2");
    expect(refused.headers.get("x-rate-limit-remaining")).toBe("0");

    e.clock.advance(45); // still the same minute on the emulator clock
    const later = await e.get("/v3/users");
    expect(later.status).toBe(429);
    expect(later.headers.get("retry-after")).toBe("5");
    e.clock.advance(5);
    const next = await e.get("/v3/users");
    expect(next.status).toBe(200);
    expect(next.headers.get("x-rate-limit-remaining")).toBe("1");
  });

  it("count core operations (create/delete user, login, create/join/leave group) apart from standard ones", async () => {
    await limit({ core: 1, standard: 100 });
    expect((await e.post("/v3/users", { uid: "one", name: "One" })).status).toBe(200);
    const refused = await e.post("/v3/users/one/auth_tokens", {});
    expectError(refused, 429, "ERR_TOO_MANY_REQUESTS");
    expectError(await e.post("/v3/groups", { guid: "g", name: "G", type: "public" }), 429, "ERR_TOO_MANY_REQUESTS");
    const standard = await e.put("/v3/users/one", { name: "Still works" });
    expect(standard.status).toBe(200);
    expect(standard.headers.get("x-rate-limit-remaining")).toBe("99");
  });

  it("do not apply a refused request, and leave the management plane alone", async () => {
    await limit({ core: 0 });
    expectError(await e.post("/v3/users", { uid: "refused", name: "Refused" }), 429, "ERR_TOO_MANY_REQUESTS");
    await limit({ core: null });
    expectError(await e.get("/v3/users/refused"), 404, "ERR_UID_NOT_FOUND");
    const mgmt = await e.mgmt("GET", "/apps");
    expect(mgmt.status).toBe(200);
    expect(mgmt.headers.get("x-rate-limit")).toBeNull();
  });

  it("are shown, switched and reset through /_emulator/rate-limits", async () => {
    await e.get("/v3/users");
    const view = await e.get("/_emulator/rate-limits");
    expect(view.status).toBe(200);
    expect(view.body).toEqual({
      enabled: true,
      limits: { core: 10000, standard: 20000 },
      apps: [
        {
          appId: APP_ID,
          limits: { core: 10000, standard: 20000 },
          overridden: false,
          used: { core: 0, standard: 1 },
          remaining: { core: 10000, standard: 19999 },
          resetAt: 1_700_000_040,
        },
      ],
    });
    const off = await e.put("/_emulator/rate-limits", { enabled: false, standard: 500, core: 500 });
    expect(off.body).toMatchObject({ enabled: false, limits: { core: 500, standard: 500 } });
    expect((await e.get("/v3/users")).headers.get("x-rate-limit")).toBeNull();
    await e.put("/_emulator/rate-limits", { enabled: true });
    expect((await e.get("/v3/users")).headers.get("x-rate-limit")).toBe("500");
    const cleared = await e.del("/_emulator/rate-limits");
    expect(cleared.body.apps[0].used).toEqual({ core: 0, standard: 0 });
    await limit({ standard: 3 });
    expect((await e.del(`/_emulator/rate-limits/${APP_ID}`)).body).toMatchObject({ overridden: false, limits: { standard: 500 } });
  });

  it("refuse bad limits and unknown apps", async () => {
    const bad = expectError(await limit({ standard: -1, core: "many", burst: 3 }), 400, "ERR_BAD_REQUEST");
    expect(Object.keys(bad.details!).sort()).toEqual(["burst", "core", "standard"]);
    expectError(await e.put("/_emulator/rate-limits/nosuchapp", { core: 1 }), 404, "ERR_APP_NOT_FOUND");
    expectError(await e.put("/_emulator/rate-limits", { enabled: "yes" }), 400, "ERR_BAD_REQUEST");
  });
});
