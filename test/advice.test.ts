import { beforeEach, describe, expect, it } from "vitest";
import { APP_ID, emulator, expectError, type TestEmulator } from "./helpers.js";

/** Request advice (docs/insight.md): what the platform would silently ignore, beside an unchanged answer. */

let e: TestEmulator;
beforeEach(async () => {
  e = await emulator();
  e.clock.freeze(2_000_000_000_000);
});

const lastEntry = async () => (await e.get("/_emulator/requests?limit=1", { key: null })).body.requests[0];
const adviceOf = async () => (await lastEntry()).advice.map((a: any) => [a.code, a.in, a.name, a.suggestion]);
const setAdvice = (body: unknown) => e.put("/_emulator/advice", body, { key: null });

describe("request advice", () => {
  it("names an unknown body field with the nearest known one; the answer is the platform's", async () => {
    const plain = await e.post("/v3/users", { uid: "a1", name: "A", metadata: { x: 1 } });
    expect(await adviceOf()).toEqual([]);
    const typo = await e.post("/v3/users", { uid: "a2", name: "A", metaData: { x: 1 } });
    expect(typo.status).toBe(200);
    expect(typo.headers.get("x-chat-emulator-advice")).toBeNull();
    expect(Object.keys(typo.body.data).sort()).toEqual(Object.keys(plain.body.data).filter((k) => k !== "metadata").sort());
    const entry = await lastEntry();
    expect(entry.advice).toEqual([
      {
        code: "unknown-body-field",
        in: "body",
        name: "metaData",
        suggestion: "metadata",
        message: "unknown body field `metaData` (ignored by the platform; did you mean `metadata`?)",
      },
    ]);
  });

  it("covers the body fields of several operations, and names no field an operation reads", async () => {
    await e.put("/v3/groups/supergroup", { descripton: "typo" });
    expect(await adviceOf()).toEqual([["unknown-body-field", "body", "descripton", "description"]]);
    await e.post("/v3/messages", { receiver: "superhero2", receiverType: "user", category: "message", type: "text", data: { text: "hi" }, tag: ["x"] }, { onBehalfOf: "superhero1" });
    expect(await adviceOf()).toEqual([["unknown-body-field", "body", "tag", "tags"]]);
    await e.post("/v3/groups", { guid: "g1", name: "G", type: "public", owner: "superhero1", members: { participants: ["superhero2"] }, tags: ["t"], metadata: {} });
    expect(await adviceOf()).toEqual([]);
    await e.post("/v3/messages", { receiver: "supergroup", receiverType: "group", category: "custom", type: "poll", data: { customData: { q: 1 } }, muid: "m1", tags: ["a"] }, { onBehalfOf: "superhero1" });
    expect(await adviceOf()).toEqual([]);
    // Roles validate a copy of the body: the fields it names still count as read.
    await e.post("/v3/roles", { role: "vip", name: "VIP", description: "d", metadata: {}, settings: { listUsers: "all" } });
    expect(await adviceOf()).toEqual([]);
    await e.post("/v3/roles", { role: "vip2", name: "VIP", descripton: "d" });
    expect(await adviceOf()).toEqual([["unknown-body-field", "body", "descripton", "description"]]);
    await e.post("/v3/users/superhero1/auth_tokens", { forced: true });
    expect(await adviceOf()).toEqual([["unknown-body-field", "body", "forced", "force"]]);
    await e.mgmt("POST", `/apps/${APP_ID}/settings`, { setting: {} });
    expect(await adviceOf()).toEqual([]); // refused (400): a refused request gets no advice
    expect((await lastEntry()).status).toBe(400);
  });

  it("names unknown query parameters and misspelled platform headers", async () => {
    const r = await e.get("/v3/users?perpage=2");
    expect(r.body.meta.pagination.per_page).toBe(100);
    expect(await adviceOf()).toEqual([["unknown-query-parameter", "query", "perpage", "perPage"]]);
    await e.get("/v3/groups?searchkey=super&perPage=1");
    expect(await adviceOf()).toEqual([["unknown-query-parameter", "query", "searchkey", "searchKey"]]);
    await e.get("/v3/users?perPage=2&page=1&searchKey=s&searchIn=name");
    expect(await adviceOf()).toEqual([]);

    const asApp = await e.get("/v3/users/superhero1", { headers: { "on-behalf-of": "superhero2" } });
    expect(asApp.status).toBe(200);
    expect(await adviceOf()).toEqual([["unknown-header", "header", "on-behalf-of", "onBehalfOf"]]);
    await e.get("/v3/users/superhero1", { headers: { onbehalfof: "superhero2", "x-api-key": "k", "user-agent": "test" } });
    expect(await adviceOf()).toEqual([["unknown-header", "header", "x-api-key", "apikey"]]);
  });

  it("says where the reference documents a value as ignored: an update's owner beside onBehalfOf, toTimestamp alone", async () => {
    const r = await e.put("/v3/groups/supergroup", { owner: "superhero2", name: "Renamed" }, { onBehalfOf: "superhero1" });
    expect([r.status, r.body.data.owner, r.body.data.name]).toEqual([200, "superhero1", "Renamed"]);
    expect((await lastEntry()).advice).toEqual([
      {
        code: "ignored-value",
        in: "body",
        name: "owner",
        message: "`owner` is ignored by the platform: with onBehalfOf the owner stays; send the update without onBehalfOf to hand the group over",
      },
    ]);
    await e.get("/v3/messages?toTimestamp=2000000000");
    expect(await adviceOf()).toEqual([["ignored-value", "query", "toTimestamp", undefined]]);
    await e.get("/v3/messages?fromTimestamp=1&toTimestamp=2000000000");
    expect(await adviceOf()).toEqual([]);
  });

  it("leaves the SDK's client plane alone", async () => {
    const token = (await e.post("/v3/users/superhero1/auth_tokens", {})).body.data.authToken;
    const r = await e.get(`http://localhost/${APP_ID}.apiclient-us/v3.0/users?per_page=2&bogus=1`, { key: null, headers: { appid: APP_ID, authtoken: token } });
    expect(r.status).toBe(200);
    expect(await adviceOf()).toEqual([]);
  });

  it("sends the advice in x-chat-emulator-advice when asked", async () => {
    expect((await e.get("/_emulator/advice", { key: null })).body).toEqual({ header: false, strict: false });
    expect((await setAdvice({ header: true })).body).toEqual({ header: true, strict: false });
    const r = await e.get("/v3/users?perpage=2&tagz=x");
    expect(r.status).toBe(200);
    expect(r.headers.get("x-chat-emulator-advice")).toBe("unknown-query-parameter perpage, unknown-query-parameter tagz");
    expect((await e.get("/v3/users?perPage=2")).headers.get("x-chat-emulator-advice")).toBeNull();
  });

  it("strict mode refuses with ERR_EMULATOR_STRICT, a detail per item; clean requests pass", async () => {
    await setAdvice({ strict: true });
    const refused = expectError(await e.get("/v3/users?perpage=2"), 400, "ERR_EMULATOR_STRICT");
    expect(refused.details).toEqual({ "query.perpage": ["unknown query parameter `perpage` (ignored by the platform; did you mean `perPage`?)"] });
    expect(refused.message).toContain("not a platform error");
    expect(refused.source).toBe("emulator");
    expect((await e.get("/v3/users?perPage=2")).status).toBe(200);
    // Refused before the handler runs: nothing changes.
    const typo = expectError(await e.post("/v3/users", { uid: "strictx", name: "X", metaData: {} }), 400, "ERR_EMULATOR_STRICT");
    expect(typo.details).toEqual({ "body.metaData": ["unknown body field `metaData` (ignored by the platform; did you mean `metadata`?)"] });
    expect((await lastEntry()).advice.map((a: any) => a.name)).toEqual(["metaData"]);
    expectError(await e.get("/v3/users/strictx"), 404, "ERR_UID_NOT_FOUND");
    expect((await e.post("/v3/users", { uid: "clean", name: "Clean" })).status).toBe(200);
    // A send reads its body itself (JSON, or the SDK's multipart): refused before anything is stored all the same.
    const sent = async () => (await e.get("/v3/messages?limit=1000")).body.data.length;
    const before = await sent();
    const send = { receiver: "superhero2", receiverType: "user", category: "message", type: "text", data: { text: "hi" } };
    const tag = expectError(await e.post("/v3/messages", { ...send, tag: ["x"] }, { onBehalfOf: "superhero1" }), 400, "ERR_EMULATOR_STRICT");
    expect(tag.details).toEqual({ "body.tag": ["unknown body field `tag` (ignored by the platform; did you mean `tags`?)"] });
    expect(await sent()).toBe(before);
    expect((await e.post("/v3/messages", send, { onBehalfOf: "superhero1" })).status).toBe(200);
    await setAdvice({ strict: false });
    expect((await e.get("/v3/users?perpage=2")).status).toBe(200);
  });

  it("takes strict and adviceHeader as emulator options (--strict, --advice-header)", async () => {
    const strict = await emulator({ strict: true });
    const refused = await strict.mgmt("GET", "/apps?perpage=1");
    expect([refused.status, refused.body.error.code]).toEqual([400, "ERR_EMULATOR_STRICT"]);
    const header = await emulator({ adviceHeader: true });
    expect((await header.get("/v3/users?perpage=1")).headers.get("x-chat-emulator-advice")).toBe("unknown-query-parameter perpage");
  });

  it("refuses bad control input and keeps the settings", async () => {
    const r = await setAdvice({ strict: "yes", bogus: 1 });
    expect(r.status).toBe(400);
    expect(r.body.error.details).toHaveProperty("strict");
    expect(r.body.error.details).toHaveProperty("bogus");
    expect((await e.get("/_emulator/advice", { key: null })).body).toEqual({ header: false, strict: false });
  });
});
