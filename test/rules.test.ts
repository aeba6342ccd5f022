import { beforeEach, describe, expect, it } from "vitest";
import { APP_ID, emulator, expectError, type TestEmulator } from "./helpers.js";

let e: TestEmulator;
beforeEach(async () => {
  e = await emulator();
});

const addRule = (rule: unknown) => e.post("/_emulator/rules", rule);

describe("/_emulator/rules", () => {
  it("adds a rule, answering 201 with its id and normalized form", async () => {
    const r = await addRule({ match: { method: "get", path: "/v3/users*" }, effect: { status: 503 }, times: 2 });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: "r1",
      match: { method: "GET", path: "/v3/users*" },
      effect: { status: 503, code: "ERR_OPERATION_FAILED", message: "The operation failed. Please try again." },
      probability: 1,
      times: 2,
      hits: 0,
      expired: false,
    });
  });

  it("lists rules in order with remaining times and hit counts, and gets one by id", async () => {
    await addRule({ effect: { latencyMs: 1 } });
    await addRule({ match: { path: "/v3/users/superhero1" }, effect: { status: 500 }, times: 3 });
    await e.get("/v3/users/superhero1");
    await e.get("/v3/users/superhero2");
    const list = await e.get("/_emulator/rules");
    expect(list.status).toBe(200);
    expect(list.body.rules.map((r: any) => [r.id, r.hits, r.times])).toEqual([
      ["r1", 2, null],
      ["r2", 1, 2],
    ]);
    const one = await e.get("/_emulator/rules/r2");
    expect(one.body).toMatchObject({ id: "r2", hits: 1, times: 2, expired: false });
    expectError(await e.get("/_emulator/rules/r9"), 404, "ERR_RULE_NOT_FOUND");
  });

  it("deletes one rule, or all of them", async () => {
    await addRule({ effect: { status: 500 } });
    await addRule({ effect: { status: 502 } });
    expect((await e.del("/_emulator/rules/r1")).body).toEqual({ deleted: ["r1"] });
    expect((await e.get("/_emulator/rules")).body.rules.map((r: any) => r.id)).toEqual(["r2"]);
    expectError(await e.del("/_emulator/rules/r1"), 404, "ERR_RULE_NOT_FOUND");
    expect((await e.del("/_emulator/rules")).body).toEqual({ deleted: ["r2"] });
    expect((await e.get("/_emulator/rules")).body).toEqual({ rules: [] });
    expect((await e.get("/v3/users/superhero1")).status).toBe(200);
  });

  it("refuses bad rules with 400 ERR_BAD_REQUEST, naming every bad field, and adds nothing", async () => {
    const err = expectError(
      await addRule({ match: { methd: "GET", plane: "web" }, effect: { status: 200, latency: 5 }, probability: 2, times: 0 }),
      400,
      "ERR_BAD_REQUEST",
    );
    expect(err.source).toBe("emulator");
    expect(err.details).toEqual({
      "match.methd": ["The match.methd field is not allowed."],
      "match.plane": ["The selected match.plane is invalid."],
      "effect.latency": ["The effect.latency field is not allowed."],
      "effect.status": ["The effect.status must be between 400 and 599."],
      probability: ["The probability must be between 0 and 1."],
      times: ["The times must be at least 1."],
    });
    expectError(await addRule({}), 400, "ERR_BAD_REQUEST");
    const empty = expectError(await addRule({ effect: {} }), 400, "ERR_BAD_REQUEST");
    expect(empty.details!.effect[0]).toMatch(/must inject an error .* or a delay/);
    const unknownCode = expectError(await addRule({ effect: { code: "ERR_MADE_UP" } }), 400, "ERR_BAD_REQUEST");
    expect(Object.keys(unknownCode.details!)).toEqual(["effect.status"]);
    expectError(await addRule({ effect: { reset: true, status: 500 } }), 400, "ERR_BAD_REQUEST");
    expect((await e.get("/_emulator/rules")).body.rules).toEqual([]);
  });
});

describe("injected errors", () => {
  it("answer with the platform envelope and change nothing in the store", async () => {
    await addRule({ match: { method: "POST", path: "/v3/users" }, effect: { status: 503 } });
    let changes = 0;
    e.store.onChange(() => changes++);
    const err = expectError(await e.post("/v3/users", { uid: "ghost", name: "Ghost" }), 503, "ERR_OPERATION_FAILED");
    expect(err).toEqual({
      message: "The operation failed. Please try again.",
      devMessage: "The operation failed. Please try again.",
      source: "chat-api",
      code: "ERR_OPERATION_FAILED",
    });
    expect(changes).toBe(0);
    await e.del("/_emulator/rules");
    expectError(await e.get("/v3/users/ghost"), 404, "ERR_UID_NOT_FOUND");
  });

  it("send 429 ERR_TOO_MANY_REQUESTS with Retry-After and X-Rate-Limit-Reset", async () => {
    e.clock.freeze(1_700_000_000_000);
    await addRule({ effect: { status: 429, retryAfter: 7 } });
    const r = await e.get("/v3/users");
    const err = expectError(r, 429, "ERR_TOO_MANY_REQUESTS");
    expect(err.message).toBe("Too many requests. You have exceeded the rate limit. Please retry after the specified time.");
    expect(r.headers.get("retry-after")).toBe("7");
    expect(r.headers.get("x-rate-limit-reset")).toBe(String(1_700_000_000 + 7));
  });

  it("use a known code's status and message, or the given ones", async () => {
    await addRule({ match: { path: "/v3/groups" }, effect: { code: "ERR_TOO_MANY_REQUESTS" } });
    await addRule({ match: { path: "/v3/users" }, effect: { status: 418, code: "ERR_TEAPOT", message: "I am a teapot." } });
    expectError(await e.get("/v3/groups"), 429, "ERR_TOO_MANY_REQUESTS");
    const custom = expectError(await e.get("/v3/users"), 418, "ERR_TEAPOT");
    expect(custom.message).toBe("I am a teapot.");
  });

  it("match on method, path glob, app and plane; the first matching error rule wins", async () => {
    await addRule({ match: { method: "DELETE" }, effect: { status: 500 } });
    await addRule({ match: { path: "/v3/users/*/auth_tokens", appId: APP_ID.toUpperCase() }, effect: { status: 502 } });
    await addRule({ match: { plane: "mgmt" }, effect: { status: 504 } });
    await addRule({ match: { path: "/V3/USERS/*" }, effect: { status: 503 } });
    expectError(await e.get("/v3/users/superhero1/auth_tokens"), 502, "ERR_OPERATION_FAILED");
    expectError(await e.get(`/${APP_ID}.api-us/v3/users/superhero1`), 503, "ERR_OPERATION_FAILED");
    expectError(await e.del("/v3/users/superhero1"), 500, "ERR_OPERATION_FAILED");
    expectError(await e.mgmt("GET", "/apps"), 504, "ERR_OPERATION_FAILED");
    expect((await e.get("/v3/groups")).status).toBe(200);
    const rules = (await e.get("/_emulator/rules")).body.rules;
    expect(rules.map((r: any) => r.hits)).toEqual([1, 1, 1, 1]);
  });

  it("expire after `times` applications and stay listed as expired", async () => {
    await addRule({ match: { path: "/v3/users/superhero1" }, effect: { status: 503 }, times: 2 });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await e.get("/v3/users/superhero1")).status);
    expect(statuses).toEqual([503, 503, 200, 200]);
    expect((await e.get("/_emulator/rules/r1")).body).toMatchObject({ times: 0, hits: 2, expired: true });
  });

  it("never touch control calls", async () => {
    await addRule({ effect: { status: 500 } });
    expect((await e.get("/_emulator/health")).status).toBe(200);
    expect((await e.get("/_emulator/rules")).body.rules[0].hits).toBe(0);
  });

  it("close the connection for reset rules (in process, the request rejects)", async () => {
    await addRule({ match: { path: "/v3/users/superhero1" }, effect: { reset: true }, times: 1 });
    await expect(e.get("/v3/users/superhero1")).rejects.toThrow("connection reset by rule r1");
    expect((await e.get("/v3/users/superhero1")).status).toBe(200);
    const [reset] = (await e.get("/_emulator/requests")).body.requests;
    expect(reset).toMatchObject({ status: null, responseBody: null, rules: ["r1"] });
  });
});

describe("probability", () => {
  async function pattern(seed: number): Promise<number[]> {
    const seeded = await emulator({ randomSeed: seed });
    await seeded.post("/_emulator/rules", { match: { path: "/v3/users/superhero1" }, effect: { status: 503 }, probability: 0.5 });
    const statuses = [];
    for (let i = 0; i < 40; i++) statuses.push((await seeded.get("/v3/users/superhero1")).status);
    return statuses;
  }

  it("is repeatable with the same --random-seed and applies about that often", async () => {
    const first = await pattern(42);
    expect(await pattern(42)).toEqual(first);
    const failed = first.filter((s) => s === 503).length;
    expect(failed).toBeGreaterThan(5);
    expect(failed).toBeLessThan(35);
    expect(await pattern(7)).not.toEqual(first);
  });

  it("counts hits only when the roll succeeds; 0 never applies", async () => {
    await addRule({ effect: { status: 500 }, probability: 0 });
    for (let i = 0; i < 5; i++) expect((await e.get("/v3/users")).status).toBe(200);
    expect((await e.get("/_emulator/rules/r1")).body.hits).toBe(0);
  });
});

describe("latency", () => {
  it("delays matching requests; latencies of several rules add up (measured loosely)", async () => {
    await addRule({ match: { path: "/v3/users/*" }, effect: { latencyMs: 60 } });
    await addRule({ match: { method: "GET" }, effect: { latencyMs: 40, jitterMs: 20 } });
    let t = performance.now();
    expect((await e.get("/v3/users/superhero1")).status).toBe(200);
    expect(performance.now() - t).toBeGreaterThanOrEqual(95);
    t = performance.now();
    await e.get("/v3/groups");
    expect(performance.now() - t).toBeGreaterThanOrEqual(35);
    const [slow] = (await e.get("/_emulator/requests?path=/v3/users/*")).body.requests;
    expect(slow.rules).toEqual(["r1", "r2"]);
    expect(slow.durationMs).toBeGreaterThanOrEqual(95);
  });

  it("comes before an injected error from the same rule", async () => {
    await addRule({ effect: { latencyMs: 50, status: 500 } });
    const t = performance.now();
    expectError(await e.get("/v3/users"), 500, "ERR_OPERATION_FAILED");
    expect(performance.now() - t).toBeGreaterThanOrEqual(45);
  });

  it("installs a global latency rule from the latency option (MIN-MAX)", async () => {
    const slow = await emulator({ latency: "30-50" });
    expect((await slow.get("/_emulator/rules")).body.rules).toEqual([
      { id: "r1", match: {}, effect: { latencyMs: 30, jitterMs: 20 }, probability: 1, times: null, hits: 0, expired: false },
    ]);
    const t = performance.now();
    await slow.get("/v3/users");
    expect(performance.now() - t).toBeGreaterThanOrEqual(25);
    await expect(emulator({ latency: "50-10" })).rejects.toThrow("latency must be MS or MIN-MAX");
  });
});

describe("programmatic rules", () => {
  it("adds, lists and removes rules; a bad rule throws with its problems", async () => {
    const rule = e.rules.add({ match: { path: "/v3/users" }, effect: { status: 500 }, times: 1 });
    expect(rule.id).toBe("r1");
    expectError(await e.get("/v3/users"), 500, "ERR_OPERATION_FAILED");
    expect(e.rules.list()[0]).toMatchObject({ id: "r1", expired: true, hits: 1 });
    expect(e.rules.remove("r1")).toBe(true);
    expect(() => e.rules.add({ effect: { status: 99 } })).toThrow(
      "chat-emulator: invalid rule: The effect.status must be between 400 and 599.",
    );
  });
});
