import { beforeEach, describe, expect, it } from "vitest";
import { APP_ID, emulator, expectError, MGMT, REST_KEY, type TestEmulator } from "./helpers.js";

let e: TestEmulator;
beforeEach(async () => {
  e = await emulator();
});

const requests = async (query = "") => (await e.get(`/_emulator/requests${query}`)).body.requests as any[];

describe("GET /_emulator/requests", () => {
  it("records every platform request with its request and response, the apikey masked", async () => {
    e.clock.freeze(Date.UTC(2024, 0, 2, 3, 4, 5));
    await e.post("/v3/users?source=test", { uid: "journaled", name: "Journaled" }, { onBehalfOf: "superhero1" });
    const r = await e.get("/_emulator/requests");
    expect(r.status).toBe(200);
    expect(r.body.capacity).toBe(1000);
    expect(r.body.requests).toEqual([
      {
        id: 1,
        time: "2024-01-02T03:04:05.000Z",
        timeMs: Date.UTC(2024, 0, 2, 3, 4, 5),
        appId: APP_ID,
        plane: "rest",
        method: "POST",
        path: "/v3/users",
        query: { source: "test" },
        requestHeaders: {
          apikey: "1f9f0******************************afeb6",
          "content-type": "application/json",
          onbehalfof: "superhero1",
        },
        requestBody: { uid: "journaled", name: "Journaled" },
        status: 200,
        responseBody: { data: expect.objectContaining({ uid: "journaled", createdAt: 1704164645 }) },
        durationMs: expect.any(Number),
        rules: [],
        // POST /v3/users reads no query parameter: the platform ignores `source`.
        advice: [{ code: "unknown-query-parameter", in: "query", name: "source", message: "unknown query parameter `source` (ignored by the platform)" }],
      },
    ]);
    expect(JSON.stringify(r.body)).not.toContain(REST_KEY);
  });

  it("records failures, every plane and unknown paths, with the app each one addressed", async () => {
    await e.get("/v3/users/nobody");
    await e.get("/v3/users", { key: null });
    await e.mgmt("GET", "/apps");
    await e.get(`/${APP_ID}.api-us/v3/groups`);
    await e.get("/v2/users");
    const list = await requests();
    expect(list.map((r) => [r.plane, r.appId, r.method, r.path, r.status])).toEqual([
      ["rest", APP_ID, "GET", "/v3/users/nobody", 404],
      ["rest", APP_ID, "GET", "/v3/users", 401],
      ["mgmt", null, "GET", "/apps", 200],
      ["rest", APP_ID, "GET", "/v3/groups", 200],
      [null, null, "GET", "/v2/users", 404],
    ]);
    expect(list[0].responseBody.error.code).toBe("ERR_UID_NOT_FOUND");
    expect(list[2].requestHeaders).toMatchObject({ key: `chat-${"*".repeat(18)}t-key`, secret: `chat-${"*".repeat(21)}ecret` });
    expect(JSON.stringify(list)).not.toContain(MGMT.secret);
  });

  it("keeps the body of a request refused before it was read", async () => {
    await e.post("/v3/users", { uid: "nokey", name: "No key" }, { key: null });
    const [r] = await requests();
    expect(r.status).toBe(401);
    expect(r.requestBody).toEqual({ uid: "nokey", name: "No key" });
  });

  it("keeps large and non-ASCII bodies intact", async () => {
    const metadata = { note: "ü€😀".repeat(200), pad: "x".repeat(2500) }; // over the 4 KB a journal slot holds
    const created = await e.post("/v3/users", { uid: "big", name: "Zoë 😀", metadata });
    expect(created.status).toBe(200);
    await e.get("/v3/users?perPage=100");
    await e.post("/v3/users", { uid: "small", name: "Émile 😀" });
    const [post, list, small] = await requests();
    expect(small.requestBody).toEqual({ uid: "small", name: "Émile 😀" });
    expect(small.responseBody.data.name).toBe("Émile 😀");
    expect(post.requestBody).toEqual({ uid: "big", name: "Zoë 😀", metadata });
    expect(post.responseBody.data).toMatchObject({ uid: "big", name: "Zoë 😀", metadata });
    expect(list.responseBody.data.map((u: any) => u.uid)).toContain("big");
  });

  it("keeps each entry's own text as a small journal wraps over slots that held large ones", async () => {
    const small = await emulator({ journalSize: 2 });
    const sizes = [2400, 300, 2500, 2200, 50, 2450]; // "é" is two bytes (metadata: 5 KB at most): over a 4 KB slot with the rest
    for (const [i, n] of sizes.entries())
      expect((await small.post("/v3/users", { uid: `u${i}`, name: "N", metadata: { pad: "é".repeat(n) } })).status).toBe(200);
    const kept = (await small.get("/_emulator/requests")).body.requests as any[];
    expect(kept.map((r) => [r.requestBody.uid, r.requestBody.metadata.pad.length, r.responseBody.data.metadata.pad.length])).toEqual([
      ["u4", 50, 50],
      ["u5", 2450, 2450],
    ]);
  });

  it("does not journal control calls", async () => {
    await e.get("/_emulator/health");
    await e.post("/_emulator/reset");
    expect(await requests()).toEqual([]);
  });

  it("filters by appId, method, path glob, status (exact or class), since, afterId, and limits to the newest", async () => {
    e.clock.freeze(1_700_000_000_000);
    await e.get("/v3/users/superhero1");
    await e.post("/v3/users", { uid: "f1", name: "F" });
    e.clock.advance(10);
    await e.get("/v3/users/nobody");
    await e.get("/v3/groups/supergroup/members");
    const ids = async (q: string) => (await requests(q)).map((r) => r.id);
    expect(await ids("?method=post")).toEqual([2]);
    expect(await ids("?path=/v3/users/*")).toEqual([1, 3]);
    expect(await ids("?path=*members")).toEqual([4]);
    expect(await ids("?status=404")).toEqual([3]);
    expect(await ids("?status=2xx")).toEqual([1, 2, 4]);
    expect(await ids(`?since=${1_700_000_005_000}`)).toEqual([3, 4]);
    expect(await ids("?since=2023-11-14T22:13:25Z")).toEqual([3, 4]);
    expect(await ids("?afterId=2")).toEqual([3, 4]);
    expect(await ids(`?appId=${APP_ID.toUpperCase()}&method=GET&limit=2`)).toEqual([3, 4]);
    expect(await ids("?appId=otherapp")).toEqual([]);
  });

  it("refuses bad filters with 400 ERR_BAD_REQUEST", async () => {
    const err = expectError(await e.get("/_emulator/requests?status=abc&since=yesterday&limit=0&method=FETCH"), 400, "ERR_BAD_REQUEST");
    expect(Object.keys(err.details!).sort()).toEqual(["limit", "method", "since", "status"]);
  });
});

describe("journal capacity", () => {
  it("keeps only the newest entries (a ring buffer), ids continuing", async () => {
    const small = await emulator({ journalSize: 3 });
    for (const uid of ["superhero1", "superhero2", "superhero3", "superhero4", "superhero5"]) await small.get(`/v3/users/${uid}`);
    const r = await small.get("/_emulator/requests");
    expect(r.body.capacity).toBe(3);
    expect(r.body.requests.map((x: any) => [x.id, x.path])).toEqual([
      [3, "/v3/users/superhero3"],
      [4, "/v3/users/superhero4"],
      [5, "/v3/users/superhero5"],
    ]);
  });

  it("is off with size 0", async () => {
    const off = await emulator({ journalSize: 0 });
    await off.get("/v3/users");
    expect((await off.get("/_emulator/requests")).body).toEqual({ requests: [], capacity: 0 });
    expectError(await off.get("/_emulator/requests/wait?timeoutMs=10"), 400, "ERR_BAD_REQUEST");
  });
});

describe("DELETE /_emulator/requests", () => {
  it("clears the journal; ids keep counting", async () => {
    await e.get("/v3/users");
    await e.get("/v3/groups");
    expect((await e.del("/_emulator/requests")).body).toEqual({ cleared: 2 });
    expect(await requests()).toEqual([]);
    await e.get("/v3/users");
    expect((await requests()).map((r) => r.id)).toEqual([3]);
  });
});

describe("GET /_emulator/requests/wait", () => {
  it("answers at once with the first matching entry already journaled", async () => {
    await e.get("/v3/users/superhero1");
    await e.get("/v3/users/superhero2");
    const r = await e.get("/_emulator/requests/wait?path=/v3/users/*&timeoutMs=1000");
    expect(r.status).toBe(200);
    expect(r.body.request).toMatchObject({ id: 1, path: "/v3/users/superhero1", status: 200 });
    const next = await e.get("/_emulator/requests/wait?path=/v3/users/*&afterId=1&timeoutMs=1000");
    expect(next.body.request.id).toBe(2);
  });

  it("holds until a matching request is answered", async () => {
    const waiting = e.get("/_emulator/requests/wait?method=POST&path=/v3/messages&timeoutMs=5000");
    await e.get("/v3/users");
    setTimeout(() => {
      void e.post("/v3/messages", { receiver: "superhero2", receiverType: "user", data: { text: "hi" } }, { onBehalfOf: "superhero1" });
    }, 20);
    const r = await waiting;
    expect(r.status).toBe(200);
    expect(r.body.request).toMatchObject({
      method: "POST",
      path: "/v3/messages",
      status: 200,
      requestBody: { receiver: "superhero2", receiverType: "user", data: { text: "hi" } },
      responseBody: { data: expect.objectContaining({ receiver: "superhero2" }) },
    });
  });

  it("answers 408 ERR_WAIT_TIMEOUT in the envelope when nothing matching arrives", async () => {
    await e.get("/v3/users");
    const t = performance.now();
    const err = expectError(await e.get("/_emulator/requests/wait?method=DELETE&timeoutMs=50"), 408, "ERR_WAIT_TIMEOUT");
    expect(performance.now() - t).toBeGreaterThanOrEqual(45);
    expect(err.message).toBe("No request matching the filters arrived within 50 ms.");
    expect(err.source).toBe("emulator");
  });

  it("refuses a bad timeout", async () => {
    const err = expectError(await e.get("/_emulator/requests/wait?timeoutMs=-1"), 400, "ERR_BAD_REQUEST");
    expect(err.details).toEqual({ timeoutMs: ["The timeoutMs must be at least 0."] });
  });
});

describe("programmatic journal", () => {
  it("lists, clears and waits for requests; waitFor rejects on timeout", async () => {
    const waiting = e.journal.waitFor({ method: "DELETE", path: "/v3/users/*" }, 2000);
    await e.del("/v3/users/superhero5");
    expect((await waiting).path).toBe("/v3/users/superhero5");
    expect(e.journal.list({ method: "delete" })).toHaveLength(1);
    e.journal.clear();
    expect(e.journal.list()).toEqual([]);
    await expect(e.journal.waitFor({ path: "/never" }, 20)).rejects.toThrow('no request matching {"path":"/never"} within 20 ms');
  });
});
