import { beforeEach, describe, expect, it } from "vitest";
import { emulator, expectError, type TestEmulator } from "./helpers.js";

let e: TestEmulator;
beforeEach(async () => {
  e = await emulator();
  e.clock.freeze(2_000_000_000_000);
});

const block = (uid: string, blockedUids: unknown) => e.post(`/v3/users/${uid}/blockedusers`, { blockedUids });
const say = (from: string, to: string) => e.post("/v3/messages", { receiver: to, receiverType: "user", data: { text: "hi" } }, { onBehalfOf: from });

describe("blocked users", () => {
  it("blocks per uid (unknown ones still 200) and lists them with the blocked flags", async () => {
    const r = await block("superhero1", ["superhero3", "ghost", "superhero1"]);
    expect(r.status).toBe(200);
    expect(r.body.data.superhero3).toEqual({ success: true, message: "The user with UID superhero1 has blocked user with UID superhero3 successfully." });
    expect(r.body.data.ghost.error.code).toBe("ERR_UID_NOT_FOUND");
    expect(r.body.data.superhero1.error.code).toBe("ERR_CANNOT_BLOCK_SELF");
    const list = await e.get("/v3/users/superhero1/blockedusers");
    expect(list.body.data).toEqual([
      expect.objectContaining({ uid: "superhero3", blockedByMe: true, blockedByMeAt: 2_000_000_000, blockedAt: 2_000_000_000, conversationId: "superhero1_user_superhero3" }),
    ]);
    expect(list.body.meta.cursor).toEqual({ updatedAt: expect.any(Number), affix: "prepend" });
  });

  it("direction lists who blocked me, or both", async () => {
    await block("superhero1", ["superhero3"]);
    await block("superhero2", ["superhero1"]);
    expect((await e.get("/v3/users/superhero1/blockedusers?direction=hasBlockedMe")).body.data).toEqual([
      expect.objectContaining({ uid: "superhero2", hasBlockedMe: true, blockedAt: 2_000_000_000 }),
    ]);
    expect((await e.get("/v3/users/superhero1/blockedusers?direction=both")).body.data.map((u: any) => u.uid)).toEqual(["superhero2", "superhero3"]);
    expectError(await e.get("/v3/users/superhero1/blockedusers?direction=sideways"), 400, "ERR_BAD_REQUEST");
    expectError(await e.get("/v3/users/ghost/blockedusers"), 404, "ERR_UID_NOT_FOUND");
  });

  it("unblocks per uid", async () => {
    await block("superhero1", ["superhero3"]);
    const r = await e.del("/v3/users/superhero1/blockedusers", { blockedUids: ["superhero3"] });
    expect(r.body.data.superhero3).toEqual({ success: true, message: "The user with UID superhero1 has unblocked user with UID superhero3 successfully." });
    expect((await e.get("/v3/users/superhero1/blockedusers")).body.data).toEqual([]);
    expect(expectError(await e.del("/v3/users/superhero1/blockedusers", {}), 400, "ERR_BAD_REQUEST").details).toEqual({ blockedUids: ["The blockedUids field is required."] });
  });

  it("messages between a blocked pair are refused both ways", async () => {
    await block("superhero1", ["superhero2"]);
    expectError(await say("superhero1", "superhero2"), 403, "ERR_BLOCKED_RECEIVER");
    expectError(await say("superhero2", "superhero1"), 403, "ERR_BLOCKED_SENDER");
    expect((await say("superhero1", "superhero3")).status).toBe(200);
  });

  it("GET /users with onBehalfOf shows the blocked flags", async () => {
    await block("superhero1", ["superhero2"]);
    await block("superhero3", ["superhero1"]);
    const r = await e.get("/v3/users", { onBehalfOf: "superhero1" });
    const byUid = Object.fromEntries(r.body.data.map((u: any) => [u.uid, u]));
    expect(byUid.superhero2).toMatchObject({ blockedByMe: true, blockedByMeAt: 2_000_000_000, blockedAt: 2_000_000_000 });
    expect(byUid.superhero3).toMatchObject({ hasBlockedMe: true, blockedAt: 2_000_000_000 });
    expect(byUid.superhero4).not.toHaveProperty("blockedByMe");
    expect((await e.get("/v3/users/superhero2", { onBehalfOf: "superhero1" })).body.data.blockedByMe).toBe(true);
  });

  it("hideMessagesFromBlockedUsers hides what blocked users said", async () => {
    await e.post("/v3/messages", { receiver: "supergroup", receiverType: "group", data: { text: "from 2" } }, { onBehalfOf: "superhero2" });
    await e.post("/v3/messages", { receiver: "supergroup", receiverType: "group", data: { text: "from 3" } }, { onBehalfOf: "superhero3" });
    await block("superhero1", ["superhero2"]);
    const r = await e.get("/v3/groups/supergroup/messages?hideMessagesFromBlockedUsers=true&category=message&limit=100", { onBehalfOf: "superhero1" });
    expect(r.body.data.map((m: any) => m.data.text)).not.toContain("from 2");
    expect(r.body.data.map((m: any) => m.data.text)).toContain("from 3");
  });

  it("deleting a user permanently removes their blocks and friendships; a deactivation keeps them for their return", async () => {
    await block("superhero1", ["superhero2"]);
    await e.post("/v3/users/superhero1/friends", { accepted: ["superhero3"] });
    await e.del("/v3/users/superhero3"); // deactivated (rest-api/users/delete)
    expect((await e.get("/_emulator/state")).body.apps[0].friends).toHaveLength(1);
    await e.del("/v3/users/superhero2", { permanent: true });
    await e.del("/v3/users/superhero3", { permanent: true });
    expect((await e.get("/v3/users/superhero1/blockedusers")).body.data).toEqual([]);
    const state = (await e.get("/_emulator/state")).body.apps[0];
    expect(state.blocks).toEqual([]);
    expect(state.friends).toEqual([]);
  });
});
