import { beforeEach, describe, expect, it } from "vitest";
import { emulator, expectError, type TestEmulator } from "./helpers.js";

let e: TestEmulator;
beforeEach(async () => {
  e = await emulator();
  e.clock.freeze(2_000_000_000_000);
  // supergroup (seed): superhero1 owner/admin, superhero2 and superhero3 participants.
  await e.post("/v3/users", { uid: "hero6", name: "Hero Six" });
  await e.post("/v3/users", { uid: "hero7", name: "Hero Seven" });
});

const scopes = async (guid = "supergroup") =>
  Object.fromEntries((await e.get(`/v3/groups/${guid}/members`)).body.data.map((m: any) => [m.uid, m.scope]));
const actions = () =>
  e.store.defaultApp!.messages.conversation("group_supergroup").filter((m) => m.category === "action").map((m) => m.data.action);

describe("POST /groups/{guid}/members", () => {
  it("adds per list and answers each uid with its `added` action message, ids and counts increasing", async () => {
    const r = await e.post("/v3/groups/supergroup/members", { moderators: ["superhero4"], participants: ["superhero5", "hero6"] });
    expect(r.status).toBe(200);
    const first = r.body.data.moderators.superhero4;
    expect(first).toEqual({
      success: true,
      data: {
        id: expect.stringMatching(/^\d+$/),
        conversationId: "group_supergroup",
        sender: "app_system",
        receiverType: "group",
        receiver: "supergroup",
        category: "action",
        type: "groupMember",
        data: {
          action: "added",
          entities: {
            by: { entity: { uid: "app_system", name: "System", role: "default", status: "offline", createdAt: expect.any(Number) }, entityType: "user" },
            on: { entity: expect.objectContaining({ uid: "superhero4", name: "Wolverine", status: "offline", role: "default" }), entityType: "user" },
            for: {
              entity: expect.objectContaining({ guid: "supergroup", name: "Comic Heros' Hangout", type: "public", owner: "superhero1", membersCount: 4, conversationId: "group_supergroup" }),
              entityType: "group",
            },
          },
        },
        sentAt: 2_000_000_000,
        updatedAt: 2_000_000_000,
      },
    });
    const second = r.body.data.participants.superhero5.data;
    const third = r.body.data.participants.hero6.data;
    expect(Number(second.id)).toBe(Number(first.data.id) + 1);
    expect(Number(third.id)).toBe(Number(second.id) + 1);
    expect([second.data.entities.for.entity.membersCount, third.data.entities.for.entity.membersCount]).toEqual([5, 6]);
    expect(await scopes()).toEqual({ superhero1: "admin", superhero2: "participant", superhero3: "participant", superhero4: "moderator", superhero5: "participant", hero6: "participant" });
    expect((await e.get("/v3/groups/supergroup")).body.data.membersCount).toBe(6);
  });

  it("reports unknown, already-added and banned uids per item and still answers 200", async () => {
    await e.post("/v3/groups/supergroup/bannedusers/superhero3");
    const r = await e.post("/v3/groups/supergroup/members", { participants: ["superhero2", "ghost", "superhero3", "hero6"] });
    expect(r.status).toBe(200);
    const items = r.body.data.participants;
    expect(items.superhero2).toMatchObject({ success: false, error: { code: "ERR_ALREADY_JOINED", source: "chat-api" } });
    expect(items.ghost).toMatchObject({ success: false, message: expect.stringContaining("ghost"), error: { code: "ERR_UID_NOT_FOUND" } });
    expect(items.superhero3).toMatchObject({ success: false, error: { code: "ERR_BANNED_GROUPMEMBER" } });
    expect(items.hero6).toMatchObject({ success: true });
    expect((await e.get("/v3/groups/supergroup")).body.data.membersCount).toBe(3);
  });

  // rest-api/group-members.mdx: "A maximum of 25 users can be added per API Call."
  it("refuses more than 25 users in one call across the lists, adding nobody", async () => {
    const uids = (n: number, p: string) => Array.from({ length: n }, (_, i) => `${p}${i}`);
    const before = (await e.get("/v3/groups/supergroup")).body.data.membersCount;
    const refused = await e.post("/v3/groups/supergroup/members", { participants: uids(13, "p"), admins: uids(13, "a") });
    expectError(refused, 400, "ERR_BAD_REQUEST");
    expect(refused.body.error.details).toEqual({ members: ["At most 25 users can be added in one request, across all scopes; 26 were given."] });
    expect((await e.get("/v3/groups/supergroup")).body.data.membersCount).toBe(before);
    expect((await e.post("/v3/groups/supergroup/members", { participants: uids(25, "p") })).status).toBe(200);
  });

  it("usersToBan bans members and non-members alike", async () => {
    const r = await e.post("/v3/groups/supergroup/members", { usersToBan: ["superhero2", "hero6"] });
    expect(r.body.data).toEqual({ admins: {}, moderators: {}, participants: {}, usersToBan: { superhero2: { success: true }, hero6: { success: true } } });
    expect((await e.get("/v3/groups/supergroup/bannedusers")).body.data.map((u: any) => u.uid)).toEqual(["superhero2", "hero6"]);
    expect((await e.get("/v3/groups/supergroup")).body.data.membersCount).toBe(2);
  });

  it("on behalf of a user: joining oneself a public group is `joined`; clearance limits who adds whom", async () => {
    const join = await e.post("/v3/groups/supergroup/members", { participants: ["superhero5"] }, { onBehalfOf: "superhero5" });
    expect(join.body.data.participants.superhero5.data.data.action).toBe("joined");
    // A participant cannot add others.
    const byParticipant = await e.post("/v3/groups/supergroup/members", { participants: ["hero6"] }, { onBehalfOf: "superhero2" });
    expect(byParticipant.body.data.participants.hero6.error.code).toBe("ERR_GROUP_NO_SCOPE_CLEARANCE");
    // A moderator adds participants and moderators, not admins.
    await e.put("/v3/groups/supergroup/members/superhero3", { scope: "moderator" });
    const byModerator = await e.post("/v3/groups/supergroup/members", { admins: ["hero6"], moderators: ["hero7"] }, { onBehalfOf: "superhero3" });
    expect(byModerator.body.data.admins.hero6.error.code).toBe("ERR_GROUP_NO_SCOPE_CLEARANCE");
    expect(byModerator.body.data.moderators.hero7.success).toBe(true);
    // A non-member cannot add anyone.
    const byOutsider = await e.post("/v3/groups/supergroup/members", { participants: ["hero6"] }, { onBehalfOf: "superhero4" });
    expect(byOutsider.body.data.participants.hero6.error.code).toBe("ERR_GROUP_NOT_JOINED");
  });

  it("joining oneself a private group is not allowed", async () => {
    await e.post("/v3/groups", { guid: "vip", name: "VIP", type: "private" });
    const r = await e.post("/v3/groups/vip/members", { participants: ["superhero5"] }, { onBehalfOf: "superhero5" });
    expect(r.body.data.participants.superhero5.error.code).toBe("ERR_GROUP_JOIN_NOT_ALLOWED");
  });

  it("validates the lists; an empty request is refused; unknown group is 404", async () => {
    const bad = await e.post("/v3/groups/supergroup/members", { admins: "superhero4", participants: [5] });
    expect(expectError(bad, 400, "ERR_BAD_REQUEST").details).toEqual({
      admins: ["The admins must be an array."],
      "participants.0": ["The participants.0 must be a string."],
    });
    const empty = await e.post("/v3/groups/supergroup/members", {});
    expect(expectError(empty, 400, "ERR_BAD_REQUEST").details!.admins).toEqual([
      "The admins field is required when none of moderators / participants / usersToBan are present.",
    ]);
    // A list that is given names someone (minItems: 1), and a refused request adds nobody.
    const emptyList = await e.post("/v3/groups/supergroup/members", { participants: ["hero6"], admins: [] });
    expect(expectError(emptyList, 400, "ERR_BAD_REQUEST").details).toEqual({ admins: ["The admins must have at least 1 items."] });
    expect((await e.get("/v3/groups/supergroup/members")).body.data.map((m: any) => m.uid)).not.toContain("hero6");
    expectError(await e.post("/v3/groups/nope/members", { participants: ["hero6"] }), 404, "ERR_GUID_NOT_FOUND");
  });

  it("enforces 2000 groups per user with ERR_PLAN_QUOTA_RESTRICTION", async () => {
    const app = e.store.defaultApp!;
    for (let i = 0; i < 2000; i++) {
      app.groups.add({ guid: `g${i}`, name: `G${i}`, type: "public", tags: [], createdAt: 1 });
      app.groups.addMember(`g${i}`, { uid: "hero6", scope: "participant", joinedAt: 1 });
    }
    const r = await e.post("/v3/groups/supergroup/members", { participants: ["hero6"] });
    expect(r.body.data.participants.hero6.error.code).toBe("ERR_PLAN_QUOTA_RESTRICTION");
    const create = await e.post("/v3/groups", { guid: "one-more", name: "x", type: "public" }, { onBehalfOf: "hero6" });
    expectError(create, 403, "ERR_PLAN_QUOTA_RESTRICTION");
    expectError(await e.get("/v3/groups/one-more"), 404, "ERR_GUID_NOT_FOUND");
  });
});

describe("GET /groups/{guid}/members", () => {
  it("lists members in join order as user objects with scope and joinedAt", async () => {
    const r = await e.get("/v3/groups/supergroup/members");
    expect(r.status).toBe(200);
    expect(r.body.data[0]).toEqual({
      uid: "superhero1",
      name: "Iron Man",
      avatar: "https://data-us.cometchat.io/assets/images/avatars/ironman.png",
      status: "offline",
      role: "default",
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
      scope: "admin",
      joinedAt: expect.any(Number),
    });
    expect(r.body.meta.pagination).toEqual({ total: 3, count: 3, per_page: 100, current_page: 1, total_pages: 1 });
    expect(r.body.cursor).toEqual({ updatedAt: expect.any(Number), affix: "prepend" });
  });

  it("filters by scopes and status and pages", async () => {
    expect((await e.get("/v3/groups/supergroup/members?scopes=participant")).body.data.map((m: any) => m.uid)).toEqual(["superhero2", "superhero3"]);
    expect((await e.get("/v3/groups/supergroup/members?scopes=admin,moderator")).body.data.map((m: any) => m.uid)).toEqual(["superhero1"]);
    expect((await e.get("/v3/groups/supergroup/members?status=available")).body.data).toEqual([]);
    const p = await e.get("/v3/groups/supergroup/members?perPage=2&page=2");
    expect(p.body.data.map((m: any) => m.uid)).toEqual(["superhero3"]);
    expect(p.body.meta.pagination).toEqual({ total: 3, count: 1, per_page: 2, current_page: 2, total_pages: 2 });
    expect(Object.keys(expectError(await e.get("/v3/groups/supergroup/members?scopes=owner&perPage=0"), 400, "ERR_BAD_REQUEST").details!).sort()).toEqual(["perPage", "scopes.0"]);
    expectError(await e.get("/v3/groups/nope/members"), 404, "ERR_GUID_NOT_FOUND");
  });

  it("a page of a 50k-member group walks only that group's members, and only up to the page", async () => {
    const app = e.store.defaultApp!;
    for (const guid of ["big", "other"]) app.groups.add({ guid, name: guid, type: "public", tags: [], createdAt: 1 });
    for (let i = 0; i < 50_000; i++) {
      const uid = `m${i}`;
      app.addUser({ uid, name: uid, role: "default", tags: [], status: "offline", createdAt: 1 });
      app.groups.addMember("big", { uid, scope: "participant", joinedAt: 1 });
      app.groups.addMember("other", { uid, scope: "participant", joinedAt: 1 });
    }
    const other = app.groups.membership("other").members;
    for (const method of ["values", "keys", "entries", "forEach", Symbol.iterator] as const)
      (other as any)[method] = () => {
        throw new Error("another group's members were walked");
      };
    const big = app.groups.membership("big").members;
    let steps = 0;
    const values = big.values.bind(big);
    (big as any).values = () => {
      const it = values();
      return { next: () => (steps++, it.next()), [Symbol.iterator]() { return this; } };
    };
    const r = await e.get("/v3/groups/big/members?perPage=100&page=3");
    expect(r.status).toBe(200);
    expect(r.body.data.map((m: any) => m.uid)[0]).toBe("m200");
    expect(r.body.meta.pagination).toMatchObject({ total: 50_000, count: 100, total_pages: 500 });
    expect(steps).toBeLessThanOrEqual(300);
  });
});

describe("PUT /groups/{guid}/members/{uid}", () => {
  it("changes the scope, answers {guid, uid, scope, joinedAt} and leaves a scopeChanged action", async () => {
    const r = await e.put("/v3/groups/supergroup/members/superhero2", { scope: "moderator" });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ guid: "supergroup", uid: "superhero2", scope: "moderator", joinedAt: expect.any(Number) });
    const action = e.store.defaultApp!.messages.conversation("group_supergroup").at(-1)!;
    expect(action.data).toMatchObject({ action: "scopeChanged", extras: { scope: { new: "moderator", old: "participant" } } });
    expect(actions()).toEqual(["scopeChanged"]);
  });

  it("defaults to participant; the same scope again is 403 ERR_SAME_SCOPE", async () => {
    expectError(await e.put("/v3/groups/supergroup/members/superhero2", {}), 403, "ERR_SAME_SCOPE");
    expectError(await e.put("/v3/groups/supergroup/members/superhero2", { scope: "owner" }), 400, "ERR_BAD_REQUEST");
  });

  it("applies the clearance rules when acting on behalf of a member", async () => {
    await e.post("/v3/groups/supergroup/members", { moderators: ["superhero4"], admins: ["superhero5"], participants: ["hero6"] });
    const put = (uid: string, scope: string, actor: string) => e.put(`/v3/groups/supergroup/members/${uid}`, { scope }, { onBehalfOf: actor });
    // Nobody changes their own scope.
    expectError(await put("superhero5", "participant", "superhero5"), 403, "ERR_GROUP_NO_SELF_ACTION");
    // Participants cannot change scopes.
    expectError(await put("hero6", "moderator", "superhero2"), 403, "ERR_GROUP_NO_CLEARANCE");
    // Moderators act on participants only, and cannot make admins.
    expectError(await put("superhero5", "participant", "superhero4"), 403, "ERR_GROUP_NO_CLEARANCE");
    expectError(await put("hero6", "admin", "superhero4"), 403, "ERR_GROUP_NO_SCOPE_CLEARANCE");
    expect((await put("hero6", "moderator", "superhero4")).status).toBe(200);
    // Admins act on everyone but the owner.
    expectError(await put("superhero1", "participant", "superhero5"), 403, "ERR_GROUP_NO_CLEARANCE");
    expect((await put("superhero4", "admin", "superhero5")).status).toBe(200);
    // A non-member cannot act; a non-member target is 404.
    expectError(await put("hero6", "participant", "hero7"), 403, "ERR_GROUP_NOT_JOINED");
    expectError(await put("hero7", "moderator", "superhero1"), 404, "ERR_NOT_A_MEMBER");
    // The app itself has full clearance.
    expect((await e.put("/v3/groups/supergroup/members/superhero1", { scope: "moderator" })).status).toBe(200);
    expectError(await e.put("/v3/groups/supergroup/members/ghost", { scope: "moderator" }), 404, "ERR_UID_NOT_FOUND");
  });
});

describe("DELETE /groups/{guid}/members/{uid}", () => {
  it("kicks with the platform's sentence and a kicked action; membersCount drops", async () => {
    const r = await e.del("/v3/groups/supergroup/members/superhero2");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: { success: true, message: "The member with superhero2 has been kicked from the Group with supergroup." } });
    expect((await e.get("/v3/groups/supergroup")).body.data.membersCount).toBe(2);
    expect(actions()).toEqual(["kicked"]);
    expectError(await e.del("/v3/groups/supergroup/members/superhero2"), 404, "ERR_NOT_A_MEMBER");
  });

  it("a member removing themselves leaves (`left`); the owner cannot leave; clearance applies to others", async () => {
    expect((await e.del("/v3/groups/supergroup/members/superhero3", undefined, { onBehalfOf: "superhero3" })).status).toBe(200);
    expect(actions()).toEqual(["left"]);
    expectError(await e.del("/v3/groups/supergroup/members/superhero1", undefined, { onBehalfOf: "superhero1" }), 403, "ERR_GROUP_NO_SELF_ACTION");
    expectError(await e.del("/v3/groups/supergroup/members/superhero1", undefined, { onBehalfOf: "superhero2" }), 403, "ERR_GROUP_NO_CLEARANCE");
    expect((await e.del("/v3/groups/supergroup/members/superhero2", undefined, { onBehalfOf: "superhero1" })).status).toBe(200);
  });
});
