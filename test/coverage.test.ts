import { beforeEach, describe, expect, it } from "vitest";
import { operationsOf } from "../src/control/coverage.js";
import { OPERATIONS } from "../src/http/operations.js";
import { clientOf, tokenOf } from "./client.helpers.js";
import { APP_ID, emulator, expectError, type TestEmulator } from "./helpers.js";

let e: TestEmulator;
beforeEach(async () => {
  e = await emulator();
});

const coverage = async (query = "") => {
  const r = await e.get(`/_emulator/coverage${query}`, { key: null });
  expect(r.status).toBe(200);
  return r.body;
};
const op = (body: any, slug: string) => body.operations.find((o: any) => o.slug === slug);

describe("the operation table", () => {
  it("holds every documented operation once, by slug, with method, path and area", () => {
    expect(OPERATIONS).toHaveLength(172);
    expect(new Set(OPERATIONS.map((o) => o.slug)).size).toBe(172);
    expect(OPERATIONS.find((o) => o.slug === "send-message")).toEqual({ slug: "send-message", method: "POST", path: "/messages", area: "Messages" });
  });

  it("matches the mounted routes of both planes to operations, once per route", () => {
    expect(operationsOf("GET", "/@rest/:appId/:region/v3/users/:uid")).toEqual([OPERATIONS.findIndex((o) => o.slug === "get-user")]);
    expect(operationsOf("GET", "/@client/:appId/:region/v3/blockedusers")).toEqual([OPERATIONS.findIndex((o) => o.slug === "list-blocked-users")]);
    expect(operationsOf("GET", "/@mgmt/apps")).toBeUndefined();
    expect(operationsOf("GET", "/@rest/:appId/:region/v3/users/:uid/nothing")).toBeUndefined();
  });
});

describe("GET /_emulator/coverage", () => {
  it("counts each documented operation's calls, statuses and error codes, with totals overall and per area", async () => {
    expect((await coverage()).covered).toBe(0);
    expect((await e.post("/v3/users", { uid: "cov1", name: "Cov" })).status).toBe(200);
    expect((await e.get("/v3/users/cov1")).status).toBe(200);
    expectError(await e.get("/v3/users/nobody"), 404, "ERR_UID_NOT_FOUND");
    expect((await e.get("/v3/users")).status).toBe(200);
    await e.post("/v3/messages", { receiver: "superhero2", receiverType: "user", category: "message", type: "text", data: { text: "hi" } }, { onBehalfOf: "superhero1" });

    const body = await coverage();
    expect(body).toMatchObject({ appId: null, documented: 229, covered: 4, calls: 5 });
    expect(op(body, "create-user")).toEqual({
      slug: "create-user",
      method: "POST",
      path: "/users",
      area: "Users",
      calls: 1,
      plane: { rest: 1, client: 0 },
      statuses: { "200": 1 },
      codes: {},
    });
    expect(op(body, "get-user")).toMatchObject({ calls: 2, statuses: { "200": 1, "404": 1 }, codes: { ERR_UID_NOT_FOUND: 1 } });
    expect(op(body, "send-message")).toMatchObject({ calls: 1, statuses: { "200": 1 } });
    expect(op(body, "delete-user")).toMatchObject({ calls: 0, statuses: {}, codes: {} });
    expect(body.areas.find((a: any) => a.area === "Users")).toEqual({ area: "Users", documented: 7, covered: 3 });
    expect(body.areas.find((a: any) => a.area === "Messages")).toEqual({ area: "Messages", documented: 17, covered: 1 });
    // The chat REST API's 172, the campaigns service's 50, data import's 4 and the calls API's 3.
    expect(body.areas.reduce((n: number, a: any) => n + a.documented, 0)).toBe(229);
    expect(body.areas.find((a: any) => a.area === "Campaigns")).toEqual({ area: "Campaigns", documented: 50, covered: 0 });
    expect(body.areas.find((a: any) => a.area === "Data Import")).toEqual({ area: "Data Import", documented: 4, covered: 0 });
    // The calls API's operations are counted on the calls plane.
    expect((await e.get(`/${APP_ID}.call-us/v3/calls`)).status).toBe(200);
    const after = await coverage();
    expect(op(after, "list-calls")).toMatchObject({ area: "Calls", path: "/calls", calls: 1, statuses: { "200": 1 } });
    expect(after.areas.find((a: any) => a.area === "Calls")).toEqual({ area: "Calls", documented: 3, covered: 1 });
  });

  it("counts a client-plane call under its REST twin's slug, by plane", async () => {
    const token = await tokenOf(e, "superhero1");
    const client = clientOf(e, token);
    expect((await client.get("/users/superhero2")).status).toBe(200);
    expect((await client.get("/blockedusers")).status).toBe(200);
    await e.get("/v3/users/superhero2");
    const body = await coverage();
    expect(op(body, "get-user")).toMatchObject({ calls: 2, plane: { rest: 1, client: 1 } });
    expect(op(body, "list-blocked-users")).toMatchObject({ calls: 1, plane: { rest: 0, client: 1 } });
    expect(op(body, "create-authtoken")).toMatchObject({ calls: 1, plane: { rest: 1, client: 0 } });
  });

  it("narrows to one app with ?app=, and refuses an app that does not exist", async () => {
    const created = (await e.mgmt("POST", "/apps", { name: "Other", region: "us" })).body.data;
    const other = { appId: created.id as string, key: Object.values(created.apiKeys as Record<string, { apiKey: string; scope: string }>).find((k) => k.scope === "fullAccess")!.apiKey };
    expect((await e.get(`/${other.appId}.api-us/v3/users`, { key: other.key })).status).toBe(200);
    await e.get("/v3/users");
    await e.get("/v3/users");
    // The management call that made the app is not a documented operation of the chat API.
    expect(op(await coverage(), "list-users").calls).toBe(3);
    expect(op(await coverage(`?app=${APP_ID}`), "list-users").calls).toBe(2);
    const mine = await coverage(`?app=${other.appId}`);
    expect(mine).toMatchObject({ appId: other.appId, covered: 1 });
    expect(op(mine, "list-users").calls).toBe(1);
    expect(op(await coverage(`?appId=${other.appId}`), "list-users").calls).toBe(1); // as the journal's filter names it
    const err = expectError(await e.get("/_emulator/coverage?app=deadbeefdeadbeef", { key: null }), 404, "ERR_APP_NOT_FOUND");
    expect(err.source).toBe("emulator");
    const typo = expectError(await e.get(`/_emulator/coverage?ap=${APP_ID}`, { key: null }), 400, "ERR_BAD_REQUEST");
    expect(typo.details).toEqual({ ap: ["The ap parameter is unknown (coverage takes app)."] });
  });

  it("does not count control requests, unknown routes or calls to apps that do not exist", async () => {
    await e.get("/_emulator/requests", { key: null });
    await e.post("/_emulator/reset", {}, { key: null });
    await e.get("/v3/nothing-here");
    await e.get("/deadbeefdeadbeef.api-us/v3/users");
    expect(await coverage()).toMatchObject({ covered: 0, calls: 0 });
  });

  it("counts calls that a rule failed, with the rule's code", async () => {
    const rule = await e.post("/_emulator/rules", { match: { method: "GET", path: "/v3/users" }, effect: { status: 503 } }, { key: null });
    expect(rule.status).toBeLessThan(300);
    const r = await e.get("/v3/users");
    expect(r.status).toBe(503);
    expect(op(await coverage(), "list-users")).toMatchObject({ calls: 1, statuses: { "503": 1 }, codes: { [r.body.error.code]: 1 } });
  });
});

describe("what else counts", () => {
  it("counts with the journal off, and a connection a rule reset under the status reset", async () => {
    e = await emulator({ journalSize: 0 });
    await e.post("/_emulator/rules", { match: { path: "/v3/users/superhero1" }, effect: { reset: true }, times: 1 }, { key: null });
    await expect(e.get("/v3/users/superhero1")).rejects.toThrow();
    expect((await e.get("/v3/users/superhero1")).status).toBe(200);
    expect(op(await coverage(), "get-user")).toMatchObject({ calls: 2, statuses: { reset: 1, "200": 1 }, codes: {} });
  });

  it("reads of the inspector (x-emulator-inspector) are not counted; its writes are", async () => {
    await e.get("/v3/users", { headers: { "x-emulator-inspector": "1" } });
    await e.post("/v3/users", { uid: "from-inspector", name: "From the inspector" }, { headers: { "x-emulator-inspector": "1" } });
    const body = await coverage();
    expect([op(body, "list-users").calls, op(body, "create-user").calls]).toEqual([0, 1]);
  });
});

describe("DELETE /_emulator/coverage and reset", () => {
  it("a reset keeps the counts; DELETE clears them", async () => {
    await e.get("/v3/users");
    expect((await e.post("/_emulator/reset", {}, { key: null })).status).toBe(200);
    expect((await coverage()).covered).toBe(1);
    const r = await e.del("/_emulator/coverage", undefined, { key: null });
    expect([r.status, r.body]).toEqual([200, { cleared: true }]);
    expect(await coverage()).toMatchObject({ covered: 0, calls: 0 });
  });
});
