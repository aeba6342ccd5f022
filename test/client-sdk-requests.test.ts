import { beforeEach, describe, expect, it } from "vitest";
import { emulator, expectError, type TestEmulator } from "./helpers.js";
import { clientAs } from "./client.helpers.js";

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
