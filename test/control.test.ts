import { readFileSync } from "node:fs";
import { beforeEach, describe, expect, it } from "vitest";
import { APP_ID, emulator, expectError, REST_KEY, type TestEmulator } from "./helpers.js";
import { BAD_SEEDS, BAD_STATE_CHANGES, GOOD_SEEDS } from "./seed-cases.js";

let e: TestEmulator;
beforeEach(async () => {
  e = await emulator();
});

describe("POST /_emulator/reset", () => {
  it("refuses unknown fields with 400 and details, resetting nothing", async () => {
    await e.post("/v3/users", { uid: "kept", name: "Kept" });
    const r = await e.post("/_emulator/reset", { bogus: 1, app: APP_ID }, { key: null });
    const err = expectError(r, 400, "ERR_BAD_REQUEST");
    expect(err.details).toEqual({ bogus: ["The bogus field is not allowed."], app: ["The app field is not allowed."] });
    expect((await e.get("/v3/users/kept")).status).toBe(200);
  });

  it("returns every app to the seed by default", async () => {
    await e.post("/v3/users", { uid: "temp", name: "Temp" });
    await e.del("/v3/users/superhero1", { permanent: true });
    const r = await e.post("/_emulator/reset", {});
    expect(r.body).toEqual({ reset: [APP_ID], to: "seed" });
    expectError(await e.get("/v3/users/temp"), 404, "ERR_UID_NOT_FOUND");
    expect((await e.get("/v3/users/superhero1")).status).toBe(200);
  });

  it("empties one app but keeps it reachable with its keys", async () => {
    const created = await e.post("/v3/apikeys", { name: "mine", scope: "fullAccess" });
    const r = await e.post("/_emulator/reset", { appId: APP_ID, to: "empty" });
    expect(r.status).toBe(200);
    expect((await e.get("/v3/users")).body.data).toEqual([]);
    expect((await e.get("/v3/users", { key: created.body.data.apiKey })).status).toBe(200);
  });

  it("resets a created app to its own birth content and restores deleted seed apps", async () => {
    const app = (await e.mgmt("POST", "/apps", { name: "Created", region: "us", skipSampleData: true })).body.data;
    const key = Object.keys(app.apiKeys)[0];
    await e.post(`/${app.id}.api-us/v3/users`, { uid: "x", name: "X" }, { key });
    await e.mgmt("DELETE", `/apps/${APP_ID}`);
    await e.post("/_emulator/reset");
    expect((await e.get(`/${app.id}.api-us/v3/users`, { key })).body.data).toEqual([]);
    expect((await e.get("/v3/users", { key: REST_KEY })).body.meta.pagination.total).toBe(5);
  });

  it("refuses unknown apps and bad targets", async () => {
    const unknown = expectError(await e.post("/_emulator/reset", { appId: "nope" }), 404, "ERR_APP_NOT_FOUND");
    expect(unknown.source).toBe("emulator");
    expectError(await e.post("/_emulator/reset", { to: "yesterday" }), 400, "ERR_BAD_REQUEST");
  });
});

describe("GET/PUT /_emulator/state", () => {
  it("exports the whole state and replaces it from the same format", async () => {
    await e.post("/v3/users", { uid: "exported", name: "Exported", tags: ["t"] });
    const state = (await e.get("/_emulator/state")).body;
    expect(state.format).toBe("chat-emulator/state@1");
    expect(state.apps[0].users.map((u: any) => u.uid)).toContain("exported");

    await e.post("/_emulator/reset");
    expectError(await e.get("/v3/users/exported"), 404, "ERR_UID_NOT_FOUND");
    const put = await e.put("/_emulator/state", state);
    expect(put.body).toEqual({ apps: [APP_ID] });
    expect((await e.get("/v3/users/exported")).body.data.tags).toEqual(["t"]);
  });

  it("round-trips groups, members, bans and messages, keeping the message id sequence", async () => {
    await e.post("/v3/groups", { guid: "kept", name: "Kept", type: "password", password: "pw", tags: ["t"] }, { onBehalfOf: "superhero1" });
    await e.post("/v3/groups/kept/members", { moderators: ["superhero2"], usersToBan: ["superhero5"] });
    const state = (await e.get("/_emulator/state")).body;
    const kept = state.apps[0].groups.find((g: any) => g.guid === "kept");
    expect(kept).toMatchObject({ password: "pw", members: [{ uid: "superhero1", scope: "admin" }, { uid: "superhero2", scope: "moderator" }], bannedUsers: [{ uid: "superhero5", bannedBy: "app_system" }] });
    const lastId = state.apps[0].lastMessageId;
    expect(lastId).toBe(state.apps[0].messages.at(-1).id);

    await e.post("/_emulator/reset");
    expectError(await e.get("/v3/groups/kept"), 404, "ERR_GUID_NOT_FOUND");
    await e.put("/_emulator/state", state);
    expect((await e.get("/v3/groups/kept", { onBehalfOf: "superhero2" })).body.data).toMatchObject({ scope: "moderator", membersCount: 2 });
    expect((await e.get("/v3/groups/kept/bannedusers")).body.data.map((u: any) => u.uid)).toEqual(["superhero5"]);
    const next = await e.post("/v3/groups/kept/members", { participants: ["superhero3"] });
    expect(Number(next.body.data.participants.superhero3.data.id)).toBe(lastId + 1);
  });

  it("reloads a state that keeps messages and reactions of a user no longer in it (as older versions kept them)", async () => {
    const m = (await e.post("/v3/messages", { receiver: "superhero2", receiverType: "user", data: { text: "bye" } }, { onBehalfOf: "superhero5" })).body.data;
    await e.post(`/v3/messages/${m.id}/reactions/x`, undefined, { onBehalfOf: "superhero5" });
    const state = (await e.get("/_emulator/state")).body;
    state.apps[0].users = state.apps[0].users.filter((u: { uid: string }) => u.uid !== "superhero5");
    expect((await e.put("/_emulator/state", state)).status).toBe(200);
    expect((await e.get(`/v3/messages/${m.id}`)).body.data).toMatchObject({ sender: "superhero5", data: { text: "bye" } });
  });

  it("refuses an invalid state with the path of the bad field and keeps the current one", async () => {
    const state = (await e.get("/_emulator/state")).body;
    BAD_STATE_CHANGES.badUid.change(state);
    const err = expectError(await e.put("/_emulator/state", state), 400, "ERR_BAD_REQUEST");
    expect(err.details!.state[0]).toBe(`state: ${BAD_STATE_CHANGES.badUid.error}`);
    expect((await e.get("/v3/users")).body.meta.pagination.total).toBe(5);
  });
});

describe("seed files", () => {
  it("starts with no apps for seed none", async () => {
    const empty = await emulator({ seed: "none" });
    expect((await empty.get("/_emulator/health")).body.apps).toEqual([]);
  });

  it("accepts seed data with its own users and roles", async () => {
    const custom = await emulator({ seed: GOOD_SEEDS.ownRoles });
    const r = await custom.get("/abc123.api-eu/v3/users", { key: "k".repeat(40) });
    expect(r.body.data).toEqual([expect.objectContaining({ uid: "mod1", role: "moderator" })]);
  });

  it("accepts groups with members and bans, and messages", async () => {
    const custom = await emulator({ seed: GOOD_SEEDS.groupsAndMessages });
    const key = { key: "k".repeat(40) };
    expect((await custom.get("/abc123.api-us/v3/groups/crew", key)).body.data).toMatchObject({ owner: "u1", membersCount: 2, type: "public" });
    const app = custom.store.apps.get("abc123")!;
    expect(app.messages.conversation("u1_user_u2").map((m) => m.id)).toEqual([11]);
    expect(app.messages.lastId).toBe(11);
  });

  it("refuses a bad seed with the path of the bad field", async () => {
    const { unknownRole, badRegion, unknownMember, passwordless, ownerNotMember, badScope } = BAD_SEEDS;
    for (const bad of [unknownRole, badRegion, unknownMember, passwordless, ownerNotMember, badScope])
      await expect(emulator({ seed: bad.doc as { apps: unknown[] } }), bad.name).rejects.toThrow(`seed: ${bad.error}`);
  });
});

describe("GET /_emulator", () => {
  it("answers a JSON index of the control endpoints, each of which exists", async () => {
    const r = await e.get("/_emulator", { key: null, headers: { accept: "application/json" } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ version: expect.any(String), docs: "docs/control-api.md" });
    const endpoints: { method: string; path: string }[] = r.body.endpoints;
    for (const wanted of ["GET /_emulator/health", "POST /_emulator/reset", "PUT /_emulator/state", "POST /_emulator/snapshots/{name}/restore", "GET /_emulator/requests/wait", "POST /_emulator/clock/advance"])
      expect(endpoints.map((x) => `${x.method} ${x.path}`)).toContain(wanted);
    for (const inspector of ["GET /_emulator", "GET /_emulator/ui", "POST /_emulator/ui", "GET /_emulator/ui/{file}"]) expect(endpoints.map((x) => `${x.method} ${x.path}`)).toContain(inspector);
    // Each listed GET without parameters answers something other than not found (the inspector's page is HTML).
    for (const x of endpoints.filter((x) => x.method === "GET" && !x.path.includes("{") && !/stream|wait|\/ui$/.test(x.path)))
      expect((await e.get(x.path, { key: null })).status, x.path).not.toBe(404);
  });

  // One index for people: the table of docs/control-api.md names every endpoint the index lists, and no other.
  it("is the table of docs/control-api.md", async () => {
    const listed = (await e.get("/_emulator", { key: null, headers: { accept: "application/json" } })).body.endpoints.map((x: { method: string; path: string }) => `${x.method} ${x.path}`);
    const doc = readFileSync(new URL("../docs/control-api.md", import.meta.url), "utf8");
    const documented = new Set<string>();
    for (const row of doc.split("\n").filter((l) => l.startsWith("| `")))
      for (const [, methods, path] of row.split(" | ")[0].matchAll(/`((?:GET|POST|PUT|DELETE)(?:\\\|(?:GET|POST|PUT|DELETE))*) (\/_emulator[^`?\s]*)/g))
        for (const method of methods.split("\\|")) documented.add(`${method} ${path}`);
    expect(listed.filter((x: string) => !documented.has(x)), "served, not in the table").toEqual([]);
    expect([...documented].filter((x) => !listed.includes(x)), "in the table, not served").toEqual([]);
  });

  it("keeps the control token's guard", async () => {
    const guarded = await emulator({ controlToken: "t" });
    expectError(await guarded.get("/_emulator", { key: null }), 401, "AUTH_ERR_EMPTY_EMULATOR_TOKEN");
    expect((await guarded.get("/_emulator", { key: null, headers: { "x-emulator-token": "t" } })).status).toBe(200);
  });
});
