import { beforeEach, describe, expect, it } from "vitest";
import { APP_ID, AUTH_KEY, emulator, expectError, type TestEmulator } from "./helpers.js";

let e: TestEmulator;
beforeEach(async () => {
  e = await emulator();
});

const state = async () => (await e.get("/_emulator/state")).body;

describe("/_emulator/snapshots", () => {
  it("round-trips the whole state: users, tokens, groups, members, messages", async () => {
    await e.post("/v3/users", { uid: "kept", name: "Kept", withAuthToken: true });
    await e.post("/v3/groups", { guid: "kept-group", name: "Kept group", type: "public" });
    await e.post("/v3/groups/kept-group/members", { participants: ["kept"] });
    await e.post("/v3/messages", { receiver: "kept-group", receiverType: "group", data: { text: "before" } }, { onBehalfOf: "kept" });
    const before = await state();

    const taken = await e.post("/_emulator/snapshots/base");
    expect(taken.status).toBe(201);
    expect(taken.body).toEqual({ name: "base", takenAtMs: expect.any(Number), apps: [APP_ID], records: expect.any(Number) });

    await e.post("/v3/users", { uid: "later", name: "Later" });
    await e.put("/v3/users/kept", { name: "Renamed" });
    await e.del("/v3/groups/kept-group");
    await e.post("/v3/messages", { receiver: "superhero2", receiverType: "user", data: { text: "after" } }, { onBehalfOf: "kept" });
    expect((await e.del(`/v3/apikeys/${AUTH_KEY}`)).status).toBe(200);

    const restored = await e.post("/_emulator/snapshots/base/restore");
    expect(restored.status).toBe(200);
    expect(restored.body).toEqual(taken.body);
    expect(await state()).toEqual(before);
    expectError(await e.get("/v3/users/later"), 404, "ERR_UID_NOT_FOUND");
    expect((await e.get("/v3/users/kept")).body.data.name).toBe("Kept");
    expect((await e.get("/v3/groups/kept-group/members")).body.data.map((m: any) => m.uid)).toContain("kept");
    expect((await e.post("/v3/users", { uid: "via-auth-key", name: "A" }, { key: AUTH_KEY })).status).toBe(200);
  });

  it("restores as often as asked, each time to the same content", async () => {
    await e.post("/_emulator/snapshots/clean");
    for (let i = 0; i < 3; i++) {
      await e.post("/v3/users", { uid: `temp${i}`, name: "Temp" });
      expect((await e.post("/_emulator/snapshots/clean/restore")).status).toBe(200);
      expect((await e.get("/v3/users")).body.meta.pagination.total).toBe(5);
    }
  });

  it("brings back deleted apps and removes apps created after it", async () => {
    await e.post("/_emulator/snapshots/apps");
    const created = (await e.mgmt("POST", "/apps", { name: "Later", region: "eu" })).body.data;
    await e.mgmt("DELETE", `/apps/${APP_ID}`);
    expectError(await e.get(`/${APP_ID}.api-us/v3/users`), 401, "AUTH_ERR_INVALID_APPID");
    await e.post("/_emulator/snapshots/apps/restore");
    expect((await e.get(`/${APP_ID}.api-us/v3/users`)).status).toBe(200);
    expect((await e.get("/v3/users")).status).toBe(200); // the default app again
    const apps = (await e.get("/_emulator/health")).body.apps.map((a: any) => a.appId);
    expect(apps).toEqual([APP_ID]);
    expect(apps).not.toContain(created.id);
  });

  it("lists, retakes and deletes snapshots", async () => {
    await e.post("/_emulator/snapshots/one");
    await e.post("/v3/users", { uid: "x", name: "X" });
    await e.post("/_emulator/snapshots/two");
    const list = await e.get("/_emulator/snapshots");
    expect(list.body.snapshots.map((s: any) => s.name)).toEqual(["one", "two"]);
    expect(list.body.snapshots[1].records).toBe(list.body.snapshots[0].records + 1);

    await e.post("/_emulator/snapshots/one"); // retaken: now includes x
    await e.post("/_emulator/snapshots/one/restore");
    expect((await e.get("/v3/users/x")).status).toBe(200);

    expect((await e.del("/_emulator/snapshots/two")).body).toEqual({ deleted: "two" });
    expectError(await e.del("/_emulator/snapshots/two"), 404, "ERR_SNAPSHOT_NOT_FOUND");
    expectError(await e.post("/_emulator/snapshots/two/restore"), 404, "ERR_SNAPSHOT_NOT_FOUND");
    expect((await e.get("/_emulator/snapshots")).body.snapshots.map((s: any) => s.name)).toEqual(["one"]);
  });

  it("leaves restored apps wired to webhook events", async () => {
    await e.post("/_emulator/snapshots/events");
    await e.post("/_emulator/snapshots/events/restore");
    const seen: string[] = [];
    e.store.events.subscribe((ev) => seen.push(ev.trigger));
    await e.post("/v3/messages", { receiver: "superhero2", receiverType: "user", data: { text: "hi" } }, { onBehalfOf: "superhero1" });
    expect(seen.length).toBeGreaterThan(0);
  });

  it("refuses bad names", async () => {
    const err = expectError(await e.post("/_emulator/snapshots/bad%20name"), 400, "ERR_BAD_REQUEST");
    expect(err.details!.name[0]).toMatch(/letters, numbers, dots, dashes and underscores/);
  });

  it("works programmatically", async () => {
    expect(e.snapshot("p")).toMatchObject({ name: "p", apps: [APP_ID] });
    await e.post("/v3/users", { uid: "gone", name: "Gone" });
    e.restore("p");
    expectError(await e.get("/v3/users/gone"), 404, "ERR_UID_NOT_FOUND");
    expect(() => e.restore("nope")).toThrow("chat-emulator: no snapshot named nope");
  });
});
