import { beforeEach, describe, expect, it } from "vitest";
import { emulator, expectError, type TestEmulator } from "./helpers.js";
import { clientAs, clientOf } from "./client.helpers.js";

/**
 * Requests of the official SDKs and UI kit on the client plane, exactly as their code makes them, and the answers
 * their code reads (issue 36's defects 1–6).
 */

let e: TestEmulator;

beforeEach(async () => {
  e = await emulator();
});

const text = (receiver: string, t: string, receiverType = "user") => ({ receiver, receiverType, category: "message", type: "text", data: { text: t } });

describe("the SDK's message categories and types", () => {
  it("accepts every category and type the SDK defines (the UI kit's first request) and filters by them", async () => {
    for (const uid of ["ann", "ben"]) await e.post("/v3/users", { uid, name: uid });
    const a = await clientAs(e, "ann");
    await a.post("/messages", text("ben", "chat"));
    await a.post("/messages", { receiver: "ben", receiverType: "user", category: "custom", type: "poll", data: { customData: { q: "?" } } });
    const kit =
      "/users/ben/messages?per_page=30&hideReplies=true&hideDeleted=1&affix=prepend" +
      "&categories=message,action,call,custom,card,agentic&types=text,image,video,audio,file,poll,groupMember,audio,video,extension_sticker" +
      "&withThreadSubscribed=true";
    const r = await a.get(kit);
    expect(r.status).toBe(200);
    expect(r.body.data.map((m: { type: string }) => m.type)).toEqual(["text", "poll"]);
    expect((await a.get("/users/ben/messages?categories=card,agentic")).body.data).toEqual([]);
    expect((await a.get("/users/ben/messages?categories=custom")).body.data.map((m: { type: string }) => m.type)).toEqual(["poll"]);
    // Chat-only lists accept the SDK's own message types, and refuse anything else.
    expect((await a.get("/users/ben/messages?categories=message&types=text,media,assistant,tool-result,tool-arguments")).status).toBe(200);
    expectError(await a.get("/users/ben/messages?categories=message&types=nonsense"), 400, "ERR_BAD_REQUEST");
    expectError(await a.get("/users/ben/messages?categories=nonsense"), 400, "ERR_BAD_REQUEST");
  });
});

describe("the SDK's unread counts", () => {
  /** superhero2 and superhero3 write to superhero1 and the group; superhero1 reads superhero3's conversation. */
  async function unreadFixture() {
    const two = await clientAs(e, "superhero2");
    const three = await clientAs(e, "superhero3");
    for (const t of ["a", "b", "c"]) await two.post("/messages", text("superhero1", t));
    await three.post("/messages", text("superhero1", "x"));
    await two.post("/messages", text("supergroup", "g1", "group"));
    await three.post("/messages", text("supergroup", "g2", "group"));
    const one = await clientAs(e, "superhero1");
    // The sample data's own group messages, read first so that only the new ones count.
    await one.post("/groups/supergroup/conversation/read", {});
    await two.post("/messages", text("supergroup", "g3", "group"));
    await three.post("/messages", text("superhero1", "y"));
    await one.post("/users/superhero3/conversation/read", {});
    return one;
  }
  const byEntity = (r: { status: number; body: { data: { entityId: string; entityType: string; count: number }[] } }) => {
    expect(r.status).toBe(200);
    return Object.fromEntries(r.body.data.map((x) => [`${x.entityType}:${x.entityId}`, x.count]));
  };

  it("answers getUnreadMessageCount and its ForAllUsers / ForAllGroups variants with {entityId, entityType, count} per conversation", async () => {
    const one = await unreadFixture();
    const all = await one.get("/messages?unread=1&count=1&hideMessagesFromBlockedUsers=0");
    expect(all.body.data.every((x: object) => Object.keys(x).sort().join() === "count,entityId,entityType")).toBe(true);
    expect(byEntity(all)).toEqual({ "user:superhero2": 3, "group:supergroup": 1 });
    expect(byEntity(await one.get("/messages?hideMessagesFromBlockedUsers=0&receiverType=user&unread=1&count=1"))).toEqual({ "user:superhero2": 3 });
    expect(byEntity(await one.get("/messages?hideMessagesFromBlockedUsers=0&receiverType=group&unread=1&count=1"))).toEqual({ "group:supergroup": 1 });
    // Blocked users' messages leave the counts when the SDK asks so.
    await one.post("/blockedusers", { blockedUids: ["superhero2"] });
    expect(byEntity(await one.get("/messages?unread=1&count=1&hideMessagesFromBlockedUsers=1"))).toEqual({});
    expect(byEntity(await one.get("/messages?unread=1&count=1&hideMessagesFromBlockedUsers=0"))).toEqual({ "user:superhero2": 3, "group:supergroup": 1 });
  });

  it("answers ...ForUser and ...ForGroup on the conversation's own list", async () => {
    const one = await unreadFixture();
    expect(byEntity(await one.get("/users/superhero2/messages?hideMessagesFromBlockedUsers=0&unread=1&count=1&uid=superhero2"))).toEqual({ "user:superhero2": 3 });
    expect(byEntity(await one.get("/users/superhero3/messages?hideMessagesFromBlockedUsers=0&unread=1&count=1&uid=superhero3"))).toEqual({});
    expect(byEntity(await one.get("/groups/supergroup/messages?hideMessagesFromBlockedUsers=0&unread=1&count=1&guid=supergroup"))).toEqual({ "group:supergroup": 1 });
    expectError(await one.get("/users/nobody/messages?unread=1&count=1"), 404, "ERR_UID_NOT_FOUND");
    expectError(await (await clientAs(e, "superhero5")).get("/groups/supergroup/messages?unread=1&count=1"), 403, "ERR_GROUP_NOT_JOINED");
    // The REST plane keeps its own answer: the unread messages, their count in meta.
    const rest = await e.get("/v3/users/superhero2/messages?unread=true&count=true", { onBehalfOf: "superhero1" });
    expect(rest.body.meta.current.unreadCount).toBe(3);
    expect(rest.body.data).toHaveLength(3);
  });
});

describe("adding members answers all four lists", () => {
  it("answers admins, moderators, participants and usersToBan, {} for a list that named nobody, on both planes", async () => {
    const owner = await clientAs(e, "superhero1");
    const added = await owner.put("/groups/supergroup/members", { participants: ["superhero4"] });
    expect(added.status).toBe(200);
    expect(added.body.data).toEqual({ admins: {}, moderators: {}, participants: { superhero4: expect.objectContaining({ success: true }) }, usersToBan: {} });
    const rest = await e.post("/v3/groups/supergroup/members", { usersToBan: ["superhero5"] });
    expect(rest.body.data).toEqual({ admins: {}, moderators: {}, participants: {}, usersToBan: { superhero5: { success: true } } });
    expectError(await owner.put("/groups/supergroup/members", {}), 400, "ERR_BAD_REQUEST");
  });
});

describe("receipts on GET messages/{id}", () => {
  it("lists the one-on-one receiver's delivery and read as data.receipts.data[] of {recipient, deliveredAt, readAt}", async () => {
    const one = await clientAs(e, "superhero1");
    const two = await clientAs(e, "superhero2");
    const id = (await one.post("/messages", text("superhero2", "hi"))).body.data.id;
    expect((await one.get(`/messages/${id}`)).body.data.receipts).toEqual({ data: [] });
    await two.post("/users/superhero1/conversation/delivered", {});
    const delivered = (await one.get(`/messages/${id}`)).body.data.receipts.data;
    expect(delivered).toEqual([{ recipient: expect.objectContaining({ uid: "superhero2", name: "Captain America" }), deliveredAt: expect.any(Number) }]);
    await two.post("/users/superhero1/conversation/read", {});
    const read = (await one.get(`/messages/${id}`)).body.data.receipts.data;
    expect(read).toEqual([{ recipient: expect.objectContaining({ uid: "superhero2" }), deliveredAt: delivered[0].deliveredAt, readAt: expect.any(Number) }]);
    // The REST plane's message has no receipts list.
    expect((await e.get(`/v3/messages/${id}`)).body.data.receipts).toBeUndefined();
  });

  it("lists each group member who received or read a group message, not its sender", async () => {
    const one = await clientAs(e, "superhero1");
    const id = (await one.post("/messages", text("supergroup", "all", "group"))).body.data.id;
    await (await clientAs(e, "superhero2")).post("/groups/supergroup/conversation/read", {});
    await (await clientAs(e, "superhero3")).post("/groups/supergroup/conversation/delivered", {});
    const receipts = (await one.get(`/messages/${id}`)).body.data.receipts.data;
    const byUid = Object.fromEntries(receipts.map((r: { recipient: { uid: string } }) => [r.recipient.uid, Object.keys(r).sort()]));
    expect(byUid).toEqual({ superhero2: ["deliveredAt", "readAt", "recipient"], superhero3: ["deliveredAt", "recipient"] });
  });
});

describe("private groups on the client plane", () => {
  it("shows a private group, its details and members to its members only", async () => {
    await e.post("/v3/groups", { guid: "hideout", name: "Hideout", type: "private", owner: "superhero1", members: { participants: ["superhero2"] } });
    const member = await clientAs(e, "superhero2");
    const outsider = await clientAs(e, "superhero5");
    const guids = async (c: typeof member, q = "") => (await c.get(`/groups?per_page=100${q}`)).body.data.map((g: { guid: string }) => g.guid);
    expect(await guids(member)).toContain("hideout");
    expect(await guids(outsider)).not.toContain("hideout");
    expect(await guids(outsider, "&searchKey=hide")).toEqual([]);
    expect(await guids(outsider)).toContain("supergroup");
    expect((await member.get("/groups/hideout")).status).toBe(200);
    expect((await member.get("/groups/hideout/members?per_page=10")).status).toBe(200);
    expectError(await outsider.get("/groups/hideout"), 403, "ERR_GROUP_NOT_JOINED");
    expectError(await outsider.get("/groups/hideout/members?per_page=10"), 403, "ERR_GROUP_NOT_JOINED");
    expectError(await outsider.get("/groups/hideout/messages?per_page=10"), 403, "ERR_GROUP_NOT_JOINED");
    expectError(await outsider.post("/groups/hideout/members", {}), 403, "ERR_GROUP_JOIN_NOT_ALLOWED");
    // A backend on the REST plane sees every group.
    expect((await e.get("/v3/groups/hideout", { onBehalfOf: "superhero5" })).status).toBe(200);
    expect((await e.get("/v3/groups?perPage=100")).body.data.map((g: { guid: string }) => g.guid)).toContain("hideout");
  });
});

describe("the rest of the SDK's table, for the token's owner", () => {
  it("logs in and out through admin/users/auth", async () => {
    const token = (await e.post("/v3/users/superhero1/auth_tokens", {})).body.data.authToken;
    const c = clientOf(e, token);
    const login = await c.post("/admin/users/auth", { platform: "WEB", deviceId: "d1" });
    expect(login.status).toBe(200);
    expect(login.body.data).toMatchObject({ uid: "superhero1", authToken: token, status: "online", settings: expect.any(Object) });
    const other = (await e.post("/v3/users/superhero2/auth_tokens", {})).body.data.authToken;
    expectError(await c.del(`/admin/users/auth/${other}`), 404, "ERR_AUTH_TOKEN_NOT_FOUND");
    expect((await c.del(`/admin/users/auth/${token}`)).body.data.success).toBe(true);
    expectError(await c.get("/me"), 401, "AUTH_ERR_AUTH_TOKEN_NOT_FOUND");
  });

  it("promotes, demotes and hands a group over, with the REST plane's access rules", async () => {
    const owner = await clientAs(e, "superhero1");
    const promoted = await owner.put("/groups/supergroup/promote", { uid: "superhero2", scope: "moderator" });
    expect(promoted.body.data).toMatchObject({ guid: "supergroup", uid: "superhero2", scope: "moderator" });
    expect((await owner.del("/groups/supergroup/demote", { uid: "superhero2" })).body.data.scope).toBe("participant");
    expectError(await owner.del("/groups/supergroup/demote", { uid: "superhero2" }), 403, "ERR_SAME_SCOPE");
    expectError(await owner.put("/groups/supergroup/promote", { uid: "superhero5" }), 404, "ERR_NOT_A_MEMBER");
    expectError(await owner.put("/groups/supergroup/promote", {}), 400, "ERR_BAD_REQUEST");
    const member = await clientAs(e, "superhero3");
    expectError(await member.put("/groups/supergroup/promote", { uid: "superhero2" }), 403, "ERR_GROUP_NO_CLEARANCE");
    expectError(await member.patch("/groups/supergroup/owner", { owner: "superhero3" }), 403, "ERR_GROUP_NO_CLEARANCE");
    expectError(await owner.patch("/groups/supergroup/owner", {}), 400, "ERR_BAD_REQUEST");
    const handed = await owner.patch("/groups/supergroup/owner", { owner: "superhero3" });
    expect(handed.body.data).toEqual({ success: true, message: "Ownership transferred to user superhero3 for the group with guid supergroup." });
    const group = (await e.get("/v3/groups/supergroup")).body.data;
    expect(group.owner).toBe("superhero3");
    expect((await e.get("/v3/groups/supergroup/members?perPage=10")).body.data.find((m: { uid: string }) => m.uid === "superhero3").scope).toBe("admin");
  });

  it("finds the owner's message by its muid", async () => {
    const one = await clientAs(e, "superhero1");
    const sent = await one.post("/messages", { ...text("superhero2", "with a client id"), muid: "client-1" });
    const got = await one.get("/user/messages/client-1");
    expect(got.status).toBe(200);
    expect(got.body.data).toMatchObject({ id: sent.body.data.id, muid: "client-1", data: { text: "with a client id" } });
    expectError(await one.get("/user/messages/nothing"), 404, "ERR_MESSAGE_ID_NOT_FOUND");
    // Another user's muid is not theirs.
    expectError(await (await clientAs(e, "superhero2")).get("/user/messages/client-1"), 404, "ERR_MESSAGE_ID_NOT_FOUND");
  });

  it("keeps push preferences, muted conversations, the timezone and push tokens as the SDK's CometChatNotifications asks", async () => {
    const c = await clientAs(e, "superhero1");
    const prefs = await c.get("/notifications/push/v1/preferences");
    expect(Object.keys(prefs.body.data).sort()).toEqual(["groupPreferences", "mutePreferences", "oneOnOnePreferences", "usePrivacyTemplate"]);
    expect((await c.patch("/notifications/push/v1/preferences", { mutePreferences: { dnd: 9 } })).status).toBe(400);
    expect((await c.patch("/notifications/push/v1/preferences", { usePrivacyTemplate: false })).body.data).toHaveProperty("groupPreferences");
    expect((await c.del("/notifications/push/v1/preferences")).body.data).toHaveProperty("oneOnOnePreferences");

    expect((await c.put("/notifications/push/v1/preferences/mute", { conversations: [{ id: "superhero2", type: "oneOnOne" }] })).body.data).toEqual({ success: true });
    expect((await c.get("/notifications/push/v1/preferences/mute")).body.data.mutedConversations).toEqual([{ id: "superhero2", type: "oneOnOne" }]);
    expectError(await c.put("/notifications/push/v1/preferences/mute", { conversations: [{ id: "x", type: "nope" }] }), 400, "ERR_BAD_REQUEST");
    expect((await c.del("/notifications/push/v1/preferences/mute", { conversations: [{ id: "superhero2", type: "oneOnOne" }] })).body.data).toEqual({ success: true });
    // The same record the REST plane reads.
    expect((await e.get("/v3/notifications/v1/preferences/mute?uid=superhero1")).body.data.mutedConversations).toEqual([]);

    expect((await c.patch("/notifications/v1/preferences/timezone", { timezone: "Europe/Paris" })).body.data).toEqual({ timezone: "Europe/Paris", success: true });
    expect((await c.get("/notifications/v1/preferences/timezone")).body.data).toEqual({ timezone: "Europe/Paris", success: true });
    expectError(await c.patch("/notifications/v1/preferences/timezone", { timezone: "Mars/Base" }), 400, "ERR_BAD_REQUEST");

    const registered = await c.post("/notifications/push/v1/tokens", { providerId: "default", timezone: "Europe/Paris", fcmToken: "fcm-1", platform: "fcm_web" });
    expect(registered.body.data).toEqual({ success: true });
    expectError(await c.post("/notifications/push/v1/tokens", { platform: "fcm_web" }), 400, "ERR_BAD_REQUEST");
    expect((await e.get("/v3/notifications/push/v1/tokens?uid=superhero1&all=true&authToken=" + (await e.post("/v3/users/superhero1/auth_tokens", {})).body.data.authToken)).body.data.pushTokens.map((t: { pushToken: string }) => t.pushToken)).toEqual(["fcm-1"]);
    expect((await c.del("/notifications/push/v1/tokens")).body.data).toEqual({ pushTokens: [], success: true });
  });
});
