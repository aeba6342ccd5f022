import { beforeEach, describe, expect, it } from "vitest";
import { emulator, expectError, type TestEmulator } from "./helpers.js";

let e: TestEmulator;
beforeEach(async () => {
  e = await emulator();
});

const add = (uid: string, accepted: unknown) => e.post(`/v3/users/${uid}/friends`, { accepted });

describe("friends", () => {
  it("adds per uid with the platform's sentence; the relationship is two-way", async () => {
    const r = await add("superhero1", ["superhero2", "superhero3"]);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      data: {
        accepted: {
          superhero2: { success: true, message: "Created relationship with status accepted." },
          superhero3: { success: true, message: "Created relationship with status accepted." },
        },
      },
    });
    const mine = await e.get("/v3/users/superhero1/friends");
    expect(mine.body.data.map((u: any) => u.uid)).toEqual(["superhero2", "superhero3"]);
    expect(mine.body.data[0]).toMatchObject({ uid: "superhero2", name: "Captain America", conversationId: "superhero1_user_superhero2", status: "offline" });
    expect(mine.body.meta).toEqual({
      pagination: { total: 2, count: 2, per_page: 100, current_page: 1, total_pages: 1 },
      cursor: { updatedAt: expect.any(Number), affix: "prepend" },
    });
    expect((await e.get("/v3/users/superhero2/friends")).body.data.map((u: any) => u.uid)).toEqual(["superhero1"]);
  });

  // rest-api/friends.mdx: "Maximum of 25 users can be passed in the accepted array."
  it("refuses more than 25 users in accepted, adding nobody", async () => {
    const uids = Array.from({ length: 26 }, (_, i) => `f${i}`);
    const refused = await add("superhero1", uids);
    expectError(refused, 400, "ERR_BAD_REQUEST");
    expect(refused.body.error.details).toEqual({ accepted: ["The accepted may not have more than 25 items."] });
    expect((await add("superhero1", uids.slice(0, 25))).status).toBe(200);
  });

  it("reports self, unknown and existing friends per item", async () => {
    await add("superhero1", ["superhero2"]);
    const r = await add("superhero1", ["superhero1", "ghost", "superhero2"]);
    expect(r.status).toBe(200);
    expect(r.body.data.accepted.superhero1.error.code).toBe("ERR_CANNOT_FORM_SELF_RELATION");
    expect(r.body.data.accepted.ghost.error.code).toBe("ERR_UID_NOT_FOUND");
    expect(r.body.data.accepted.superhero2.error.code).toBe("ERR_ALREADY_FRIEND");
  });

  it("searches and pages the friend list", async () => {
    await add("superhero1", ["superhero2", "superhero3", "superhero4"]);
    expect((await e.get("/v3/users/superhero1/friends?searchKey=spider")).body.data.map((u: any) => u.uid)).toEqual(["superhero3"]);
    expect((await e.get("/v3/users/superhero1/friends?searchKey=superhero4")).body.data.map((u: any) => u.uid)).toEqual(["superhero4"]);
    const p = await e.get("/v3/users/superhero1/friends?perPage=2&page=2");
    expect(p.body.data.map((u: any) => u.name)).toEqual(["Wolverine"]);
    expectError(await e.get("/v3/users/superhero1/friends?perPage=5000"), 400, "ERR_BAD_REQUEST");
    expectError(await e.get("/v3/users/ghost/friends"), 404, "ERR_UID_NOT_FOUND");
  });

  it("removes friends; none of them a friend is ERR_NOT_A_FRIEND", async () => {
    await add("superhero1", ["superhero2"]);
    const r = await e.del("/v3/users/superhero2/friends", { friends: ["superhero1"] });
    expect(r.body).toEqual({ data: { success: true, message: "Deleted the friend relations succussfully" } });
    expect((await e.get("/v3/users/superhero1/friends")).body.data).toEqual([]);
    expectError(await e.del("/v3/users/superhero2/friends", { friends: ["superhero1"] }), 403, "ERR_NOT_A_FRIEND");
    expect(expectError(await e.del("/v3/users/superhero2/friends", {}), 400, "ERR_BAD_REQUEST").details).toEqual({ friends: ["The friends field is required."] });
  });

  it("limits friends to 1000 per user, counting for both sides", async () => {
    const app = e.store.defaultApp!;
    for (let i = 0; i < 1000; i++) {
      app.addUser({ uid: `f${i}`, name: `F${i}`, role: "default", tags: [], status: "offline", createdAt: 1 });
      app.relations.befriend({ uid: "superhero5", friendUid: `f${i}`, createdAt: 1 });
    }
    expect((await add("superhero1", ["superhero5"])).body.data.accepted.superhero5.error.code).toBe("ERR_PLAN_QUOTA_RESTRICTION");
    expect((await add("superhero5", ["superhero1"])).body.data.accepted.superhero1.error.code).toBe("ERR_PLAN_QUOTA_RESTRICTION");
  });

  it("deleted and deactivated users vanish from friend lists", async () => {
    await add("superhero1", ["superhero2", "superhero3"]);
    await e.del("/v3/users", { uidsToDeactivate: ["superhero2"] });
    await e.del("/v3/users/superhero3");
    expect((await e.get("/v3/users/superhero1/friends")).body.data).toEqual([]);
    await e.put("/v3/users", { uidsToActivate: ["superhero2"] });
    expect((await e.get("/v3/users/superhero1/friends")).body.data.map((u: any) => u.uid)).toEqual(["superhero2"]);
  });
});
