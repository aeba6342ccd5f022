import { beforeEach, describe, expect, it } from "vitest";
import { emulator, expectError, type TestEmulator } from "./helpers.js";

let e: TestEmulator;
beforeEach(async () => {
  e = await emulator();
  e.clock.freeze(2_000_000_000_000);
  e.store.reset({ to: "empty" });
  for (const [uid, name] of [["a", "Alice"], ["b", "Bob"], ["c", "Carol"]]) await e.post("/v3/users", { uid, name, tags: [uid === "b" ? "vip" : "std"] });
  await e.post("/v3/groups", { guid: "g", name: "Garden", type: "public", tags: ["green"], members: { participants: ["b"] } }, { onBehalfOf: "a" });
});

const text = (receiver: string, t: string, from: string, receiverType = "user") =>
  e.post("/v3/messages", { receiver, receiverType, data: { text: t } }, { onBehalfOf: from });
const list = (uid: string, q = "") => e.get(`/v3/conversations${q}`, { onBehalfOf: uid });
const convIds = (r: any) => r.body.data.map((c: any) => c.conversationId);

describe("GET /conversations", () => {
  it("exists once a message is exchanged, with lastMessage, unread count (a string) and latest activity first", async () => {
    expect(convIds(await list("c"))).toEqual([]);
    await text("b", "hi bob", "a");
    e.clock.advance(10);
    await text("c", "hi carol", "a");
    e.clock.advance(10);
    await text("a", "hey alice", "b");
    const r = await list("a");
    expect(r.status).toBe(200);
    expect(convIds(r)).toEqual(["a_user_b", "a_user_c", "group_g"]);
    expect(r.body.data[0]).toEqual({
      conversationId: "a_user_b",
      conversationType: "user",
      unreadMessageCount: "1",
      createdAt: 2_000_000_000,
      updatedAt: 2_000_000_020,
      lastMessage: expect.objectContaining({ sender: "b", data: expect.objectContaining({ text: "hey alice" }) }),
      conversationWith: expect.objectContaining({ uid: "b", name: "Bob", conversationId: "a_user_b" }),
    });
    expect(r.body.data[2]).toMatchObject({ conversationType: "group", conversationWith: { guid: "g", scope: "admin", hasJoined: true } });
    expect(r.body.meta.pagination).toEqual({ total: 3, count: 3, per_page: 100, current_page: 1, total_pages: 1 });
  });

  it("filters by type, searchKey, userTags, groupTags, tags and unread; pages", async () => {
    await text("b", "1", "a");
    await text("c", "2", "a");
    await text("a", "3", "c");
    expect(convIds(await list("a", "?conversationType=group"))).toEqual(["group_g"]);
    expect(convIds(await list("a", "?searchKey=car"))).toEqual(["a_user_c"]);
    expect(convIds(await list("a", "?userTags=vip"))).toEqual(["a_user_b"]);
    expect(convIds(await list("a", "?groupTags=green"))).toEqual(["group_g"]);
    expect(convIds(await list("a", "?unread=true"))).toEqual(["a_user_c"]);
    await e.put("/v3/users/b/conversation", { tags: ["work"] }, { onBehalfOf: "a" });
    const tagged = await list("a", "?tags=work&withTags=true");
    expect(tagged.body.data).toEqual([expect.objectContaining({ conversationId: "a_user_b", tags: ["work"] })]);
    const withTags = await list("a", "?withUserAndGroupTags=true&conversationType=user");
    expect(withTags.body.data.map((c: any) => c.conversationWith.tags)).toEqual([["std"], ["vip"]]);
    const p = await list("a", "?perPage=2&page=2");
    expect(p.body.meta.pagination).toEqual({ total: 3, count: 1, per_page: 2, current_page: 2, total_pages: 2 });
    expectError(await list("a", "?conversationType=room"), 400, "ERR_BAD_REQUEST");
  });

  it("without onBehalfOf lists every user's conversations, by uid", async () => {
    await text("b", "1", "a");
    const r = await e.get("/v3/conversations");
    expect(r.body.data.map((c: any) => [c.conversationId, c.conversationWith.uid ?? c.conversationWith.guid])).toEqual([
      ["a_user_b", "b"],
      ["group_g", "g"],
      ["a_user_b", "a"],
      ["group_g", "g"],
    ]);
  });
});

describe("one conversation", () => {
  beforeEach(async () => {
    for (let i = 1; i <= 3; i++) await text("b", `m${i}`, "a");
    await text("g", "group hello", "a", "group");
  });
  const lastId = (conv: string) => e.store.defaultApp!.messages.conversation(conv).at(-1)!.id;

  it("get per user and per group; a conversation without messages is not accessible", async () => {
    const u = await e.get("/v3/users/a/conversation", { onBehalfOf: "b" });
    expect(u.body.data).toMatchObject({ conversationId: "a_user_b", unreadMessageCount: "3", conversationWith: { uid: "a" } });
    const g = await e.get("/v3/groups/g/conversation", { onBehalfOf: "b" });
    expect(g.body.data).toMatchObject({ conversationId: "group_g", conversationType: "group", unreadMessageCount: "1" });
    expectError(await e.get("/v3/users/c/conversation", { onBehalfOf: "a" }), 403, "ERR_CONVERSATION_NOT_ACCESSIBLE");
    expectError(await e.get("/v3/groups/g/conversation", { onBehalfOf: "c" }), 403, "ERR_CONVERSATION_NOT_ACCESSIBLE");
    expectError(await e.get("/v3/users/a/conversation"), 400, "ERR_BAD_REQUEST");
  });

  it("delivered / read / unread move the per-user pointers, with the platform's sentences", async () => {
    const id = lastId("a_user_b");
    const d = await e.post("/v3/users/a/conversation/delivered", { messageId: id }, { onBehalfOf: "b" });
    expect(d.body).toEqual({ data: { success: true, Message: "All the messages from the user are marked as delivered for the requesting user." } });
    expect((await e.get(`/v3/messages/${id}`)).body.data.deliveredAt).toBe(2_000_000_000);
    const r = await e.post("/v3/users/a/conversation/read", { messageId: id }, { onBehalfOf: "b" });
    expect(r.body.data.Message).toBe("All the messages from the user are marked as read for the requesting user.");
    expect((await e.get("/v3/users/a/conversation", { onBehalfOf: "b" })).body.data.unreadMessageCount).toBe("0");
    const u = await e.del("/v3/users/a/conversation/read", { messageId: id - 2 }, { onBehalfOf: "b" });
    expect(u.body.data.message).toBe(`The messages after the message id ${id - 2} from the user a are marked as unread for the user b.`);
    expect((await e.get("/v3/users/a/conversation", { onBehalfOf: "b" })).body.data.unreadMessageCount).toBe("2");
    const g = await e.post("/v3/groups/g/conversation/read", { messageId: lastId("group_g") }, { onBehalfOf: "b" });
    expect(g.body.data).toEqual({ success: true, message: "All the messages in the group are marked as read for the requesting user." });
    expect((await e.post("/v3/groups/g/conversation/delivered", { messageId: lastId("group_g") }, { onBehalfOf: "b" })).body.data.message).toBe(
      "All the messages in the group are marked as delivered for the requesting user.",
    );
    // Marking a group conversation unread acts for a member: the newest reference declares onBehalfOf required.
    const gu = await e.del("/v3/groups/g/conversation/read", { messageId: lastId("group_g") }, { onBehalfOf: "b" });
    expect(gu.body.data.message).toBe(`The messages after the message id ${lastId("group_g")} in the group g are marked as unread for the user b.`);
    const anonymous = await e.del("/v3/groups/g/conversation/read", { messageId: lastId("group_g") });
    expect(expectError(anonymous, 400, "ERR_BAD_REQUEST").details).toEqual({ onBehalfOf: ["The onBehalfOf header is required."] });
    expectError(await e.post("/v3/users/a/conversation/read", { messageId: lastId("group_g") }, { onBehalfOf: "b" }), 404, "ERR_MESSAGE_ID_NOT_FOUND");
    expect(expectError(await e.post("/v3/users/a/conversation/read", {}, { onBehalfOf: "b" }), 400, "ERR_BAD_REQUEST").details).toEqual({
      messageId: ["The messageId field is required."],
    });
  });

  it("reset removes the conversation for the requester only; deleteMessagesPermanently removes the messages", async () => {
    const r = await e.del("/v3/users/b/conversation", { conversationWith: "b" }, { onBehalfOf: "a" });
    expect(r.body).toEqual({ data: { success: true, message: "The conversation a_user_b has been deleted successfully for UID a." } });
    expect(convIds(await list("a"))).toEqual(["group_g"]);
    expect(convIds(await list("b"))).toContain("a_user_b");
    expect((await e.get("/v3/users/b/messages", { onBehalfOf: "a" })).body.data).toEqual([]);
    await text("b", "new", "a");
    expect(convIds(await list("a"))).toEqual(["a_user_b", "group_g"]);
    await e.del("/v3/users/a/conversation", { deleteMessagesPermanently: true }, { onBehalfOf: "b" });
    expect(e.store.defaultApp!.messages.conversation("a_user_b")).toHaveLength(0);
    expect(convIds(await list("a"))).toEqual(["group_g"]);
    const g = await e.del("/v3/groups/g/conversation", undefined, { onBehalfOf: "b" });
    expect(g.body.data.message).toBe("The conversation group_g has been deleted successfully for UID b.");
    expect(convIds(await list("b"))).toEqual([]);
  });

  it("update sets the requester's conversation tags", async () => {
    const r = await e.put("/v3/groups/g/conversation", { tags: ["pinned"] }, { onBehalfOf: "b" });
    expect(r.body.data).toMatchObject({ conversationId: "group_g", tags: ["pinned"] });
    expect(expectError(await e.put("/v3/groups/g/conversation", {}, { onBehalfOf: "b" }), 400, "ERR_BAD_REQUEST").details).toEqual({ tags: ["The tags field is required."] });
  });

  it("deprecated get and delete of /conversations/{conversationId}", async () => {
    expect((await e.get("/v3/conversations/a_user_b", { onBehalfOf: "a" })).body.data.conversationId).toBe("a_user_b");
    expectError(await e.get("/v3/conversations/a_user_b", { onBehalfOf: "c" }), 404, "ERR_CONVERSATION_NOT_FOUND");
    expectError(await e.get("/v3/conversations/nonsense", { onBehalfOf: "a" }), 404, "ERR_CONVERSATION_NOT_FOUND");
    const d = await e.del("/v3/conversations/a_user_b", undefined, { onBehalfOf: "a" });
    expect(d.body.data.message).toBe("The conversation a_user_b has been deleted successfully for all the users.");
    expectError(await e.get("/v3/conversations/a_user_b", { onBehalfOf: "b" }), 404, "ERR_CONVERSATION_NOT_FOUND");
  });
});
