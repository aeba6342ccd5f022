import { beforeEach, describe, expect, it } from "vitest";
import { emulator, expectError, type TestEmulator } from "./helpers.js";

let e: TestEmulator;
beforeEach(async () => {
  e = await emulator();
});

const ban = (uid: string, onBehalfOf?: string) => e.post(`/v3/groups/supergroup/bannedusers/${uid}`, undefined, { onBehalfOf });
const unban = (uid: string, onBehalfOf?: string) => e.del(`/v3/groups/supergroup/bannedusers/${uid}`, undefined, { onBehalfOf });
const lastAction = () => e.store.defaultApp!.messages.conversation("group_supergroup").at(-1)!.data.action;

describe("banned users", () => {
  it("a banned user is not a member, is listed as banned, and cannot be added back until unbanned", async () => {
    const r = await ban("SuperHero2");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: { success: true, message: "The user with uid superhero2 has been banned from the Group with supergroup." } });
    expect(lastAction()).toBe("banned");
    expect((await e.get("/v3/groups/supergroup")).body.data.membersCount).toBe(2);
    expect((await e.get("/v3/groups/supergroup", { onBehalfOf: "superhero2" })).body.data.hasJoined).toBe(false);

    const list = await e.get("/v3/groups/supergroup/bannedusers");
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([
      expect.objectContaining({ uid: "superhero2", name: "Captain America", status: "offline", role: "default", createdAt: expect.any(Number) }),
    ]);
    expect(list.body.meta.pagination).toEqual({ total: 1, count: 1, per_page: 100, current_page: 1, total_pages: 1 });

    const readd = await e.post("/v3/groups/supergroup/members", { participants: ["superhero2"] });
    expect(readd.body.data.participants.superhero2.error.code).toBe("ERR_BANNED_GROUPMEMBER");
    expectError(await ban("superhero2"), 400, "ERR_ALREADY_BANNED");

    const u = await unban("superhero2");
    expect(u.body).toEqual({ data: { success: true, message: "The user with uid superhero2 has been unbanned from the Group with supergroup." } });
    expect(lastAction()).toBe("unbanned");
    expect((await e.get("/v3/groups/supergroup/bannedusers")).body.data).toEqual([]);
    expect((await e.post("/v3/groups/supergroup/members", { participants: ["superhero2"] })).body.data.participants.superhero2.success).toBe(true);
  });

  it("banning a non-member is 404 ERR_NOT_A_MEMBER; unbanning a user who is not banned is ERR_NOT_A_BANNED_USER", async () => {
    expectError(await ban("superhero5"), 404, "ERR_NOT_A_MEMBER");
    expectError(await unban("superhero5"), 404, "ERR_NOT_A_BANNED_USER");
    expectError(await ban("ghost"), 404, "ERR_UID_NOT_FOUND");
    expectError(await e.post("/v3/groups/nope/bannedusers/superhero2"), 404, "ERR_GUID_NOT_FOUND");
    expectError(await e.get("/v3/groups/nope/bannedusers"), 404, "ERR_GUID_NOT_FOUND");
  });

  it("clearance: participants cannot ban, moderators ban participants only, admins everyone but the owner", async () => {
    await e.post("/v3/groups/supergroup/members", { moderators: ["superhero4"], admins: ["superhero5"] });
    expectError(await ban("superhero3", "superhero2"), 403, "ERR_GROUP_NO_CLEARANCE");
    expectError(await ban("superhero5", "superhero4"), 403, "ERR_GROUP_NO_CLEARANCE");
    expectError(await ban("superhero1", "superhero5"), 403, "ERR_GROUP_NO_CLEARANCE");
    expectError(await ban("superhero4", "superhero4"), 403, "ERR_GROUP_NO_SELF_ACTION");
    expect((await ban("superhero3", "superhero4")).status).toBe(200);
    expectError(await unban("superhero3", "superhero2"), 403, "ERR_GROUP_NO_CLEARANCE");
    expect((await unban("superhero3", "superhero4")).status).toBe(200);
    expect((await ban("superhero4", "superhero5")).status).toBe(200);
  });

  it("pages the banned list and validates its query", async () => {
    await e.post("/v3/groups/supergroup/members", { usersToBan: ["superhero4", "superhero5"] });
    const p = await e.get("/v3/groups/supergroup/bannedusers?perPage=1&page=2");
    expect(p.body.data.map((u: any) => u.uid)).toEqual(["superhero5"]);
    expect(p.body.meta.pagination).toEqual({ total: 2, count: 1, per_page: 1, current_page: 2, total_pages: 2 });
    expectError(await e.get("/v3/groups/supergroup/bannedusers?page=zero"), 400, "ERR_BAD_REQUEST");
  });

  it("deleting a user takes them out of members and ban lists", async () => {
    await ban("superhero2");
    await e.del("/v3/users/superhero2");
    await e.del("/v3/users/superhero3", { permanent: true });
    expect((await e.get("/v3/groups/supergroup/bannedusers")).body.data).toEqual([]);
    expect((await e.get("/v3/groups/supergroup")).body.data.membersCount).toBe(1);
  });

  it("lists each ban with the user's former scope (participant for a non-member) and bannedAt, kept through the state file", async () => {
    await e.put("/v3/groups/supergroup/members/superhero2", { scope: "moderator" });
    await ban("superhero2");
    await e.post("/v3/groups/supergroup/members", { usersToBan: ["superhero5"] });
    const listed = async () => (await e.get("/v3/groups/supergroup/bannedusers")).body.data.map((u: any) => [u.uid, u.scope, typeof u.bannedAt]);
    expect(await listed()).toEqual([
      ["superhero2", "moderator", "number"],
      ["superhero5", "participant", "number"],
    ]);
    const state = (await e.get("/_emulator/state", { key: null })).body;
    expect((await e.put("/_emulator/state", state, { key: null })).status).toBe(200);
    expect(await listed()).toEqual([
      ["superhero2", "moderator", "number"],
      ["superhero5", "participant", "number"],
    ]);
  });
});
