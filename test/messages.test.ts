import { beforeEach, describe, expect, it } from "vitest";
import { emulator, expectError, type TestEmulator } from "./helpers.js";

let e: TestEmulator;
beforeEach(async () => {
  e = await emulator();
  e.clock.freeze(2_000_000_000_000);
});

const send = (body: Record<string, unknown>, onBehalfOf?: string) => e.post("/v3/messages", body, { onBehalfOf });
const text = (receiver: string, t: string, onBehalfOf?: string, receiverType = "user") =>
  send({ receiver, receiverType, data: { text: t } }, onBehalfOf);
const ids = (r: any) => r.body.data.map((m: any) => m.data.text ?? m.data.action);

describe("POST /messages", () => {
  it("sends a text message and answers it with entities, as in the reference example", async () => {
    const r = await send({ receiver: "superhero5", receiverType: "user", data: { text: "test     hello", metadata: { key1: "val1" } } }, "superhero3");
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      id: expect.stringMatching(/^\d+$/),
      conversationId: "superhero3_user_superhero5",
      sender: "superhero3",
      receiverType: "user",
      receiver: "superhero5",
      category: "message",
      type: "text",
      data: {
        text: "test     hello",
        metadata: { key1: "val1" },
        entities: {
          sender: { entity: { uid: "superhero3", name: "Spiderman", avatar: expect.any(String), status: "offline", role: "default", createdAt: expect.any(Number) }, entityType: "user" },
          receiver: {
            entity: { uid: "superhero5", name: "Cyclops", avatar: expect.any(String), status: "offline", role: "default", createdAt: expect.any(Number), conversationId: "superhero3_user_superhero5" },
            entityType: "user",
          },
        },
      },
      sentAt: 2_000_000_000,
      updatedAt: 2_000_000_000,
    });
  });

  it("keeps the data's own keys as sent (a __proto__ key too) and puts the platform's entities last", async () => {
    const data = JSON.parse('{"text":"hi","__proto__":{"x":1},"entities":{"forged":true}}');
    const r = await send({ receiver: "superhero2", receiverType: "user", data }, "superhero1");
    expect(r.status).toBe(200);
    for (const m of [r.body.data, (await e.get(`/v3/messages/${r.body.data.id}`)).body.data]) {
      expect(Object.keys(m.data)).toEqual(["text", "__proto__", "entities"]);
      expect(Object.getOwnPropertyDescriptor(m.data, "__proto__")?.value).toEqual({ x: 1 });
      expect(m.data.entities.sender.entity.uid).toBe("superhero1");
    }
  });

  it("numbers messages per app, increasing by one", async () => {
    const a = await text("superhero2", "one", "superhero1");
    const b = await text("superhero2", "two", "superhero1");
    expect(Number(b.body.data.id)).toBe(Number(a.body.data.id) + 1);
  });

  it("without onBehalfOf the sender is app_system", async () => {
    const r = await text("supergroup", "announcement", undefined, "group");
    expect(r.body.data).toMatchObject({ sender: "app_system", conversationId: "group_supergroup", receiverType: "group" });
    expect(r.body.data.data.entities.sender.entity).toMatchObject({ uid: "app_system", name: "System" });
    expect(r.body.data.data.entities.receiver).toMatchObject({ entityType: "group", entity: { guid: "supergroup", membersCount: 3 } });
  });

  it("sends media with attachments, custom messages with customData, tags and muid", async () => {
    const image = await send(
      { receiver: "superhero2", receiverType: "user", type: "image", muid: "m-1", tags: ["pic"], data: { attachments: [{ url: "https://x.io/a.png", name: "a.png", mimeType: "image/png", extension: "png", size: "42" }] } },
      "superhero1",
    );
    expect(image.status).toBe(200);
    expect(image.body.data).toMatchObject({ type: "image", muid: "m-1", tags: ["pic"], data: { url: "https://x.io/a.png", attachments: [expect.objectContaining({ name: "a.png" })] } });
    const custom = await send({ receiver: "supergroup", receiverType: "group", category: "custom", type: "extension_poll", data: { customData: { q: "?" } } }, "superhero2");
    expect(custom.body.data).toMatchObject({ category: "custom", type: "extension_poll", data: { customData: { q: "?" } } });
  });

  it("fills mentionedUsers from <@uid:UID> mentions", async () => {
    const r = await text("supergroup", "hey <@uid:superhero2> and <@uid:ghost>", "superhero1", "group");
    expect(r.body.data.mentionedUsers).toEqual([expect.objectContaining({ uid: "superhero2", name: "Captain America" })]);
    expect(r.body.data.mentionedMe).toBe(false);
  });

  it("multipleReceivers: one message per receiver, a result per receiver", async () => {
    const r = await send({ multipleReceivers: { uids: ["superhero2", "ghost"], guids: ["supergroup", "nogroup"] }, data: { text: "all" } }, "superhero1");
    expect(r.status).toBe(200);
    expect(r.body.data.uids.superhero2).toMatchObject({ conversationId: "superhero1_user_superhero2", data: { text: "all" } });
    expect(r.body.data.uids.ghost).toMatchObject({ success: false, error: { code: "ERR_UID_NOT_FOUND" } });
    expect(r.body.data.guids.supergroup).toMatchObject({ conversationId: "group_supergroup" });
    expect(r.body.data.guids.nogroup).toMatchObject({ success: false, error: { code: "ERR_GUID_NOT_FOUND" } });
  });

  it("refuses bad input with the specific codes and stores nothing", async () => {
    const before = e.store.defaultApp!.messages.size;
    expectError(await send({ receiverType: "user", data: { text: "x" } }), 400, "ERR_EMPTY_RECEIVER");
    expectError(await send({ receiver: "superhero2", receiverType: "room", data: { text: "x" } }), 400, "ERR_INVALID_RECEIVER_TYPE");
    expectError(await send({ receiver: "superhero2", receiverType: "user", category: "action", data: { text: "x" } }), 400, "ERR_INVALID_MESSAGE_CATEGORY");
    expectError(await send({ receiver: "superhero2", receiverType: "user", type: "sticker", data: { text: "x" } }), 400, "ERR_INVALID_MESSAGE_TYPE");
    expectError(await send({ receiver: "superhero2", receiverType: "user", data: {} }), 400, "ERR_EMPTY_MESSAGE_TEXT");
    expectError(await send({ receiver: "superhero2", receiverType: "user", data: { text: 5 } }), 400, "ERR_INVALID_MESSAGE_TEXT");
    expectError(await send({ receiver: "superhero2", receiverType: "user", data: "hi" }), 400, "ERR_INVALID_MESSAGE_DATA");
    expectError(await send({ receiver: "superhero2", receiverType: "user", data: { text: "x", metadata: [] } }), 400, "ERR_INVALID_METADATA");
    expectError(await send({ receiver: "superhero2", receiverType: "user", type: "file", data: {} }), 400, "ERR_EMPTY_MESSAGE_FILE");
    expectError(await send({ receiver: "superhero2", receiverType: "user", type: "file", data: { attachments: [{ name: "x" }] } }), 400, "ERR_INVALID_MEDIA_MESSAGE");
    expectError(await send({ receiver: "superhero2", receiverType: "user", category: "custom", data: { customData: {} } }), 400, "ERR_EMPTY_MESSAGE_TYPE");
    expectError(await send({ receiver: "superhero2", receiverType: "user", category: "custom", type: "poll", data: {} }), 400, "ERR_EMPTY_CUSTOM_DATA");
    expectError(await send({ receiver: "superhero2", receiverType: "user", category: "custom", type: "poll", data: { customData: 1 } }), 400, "ERR_INVALID_CUSTOM_DATA");
    expectError(await send({ receiver: "ghost", receiverType: "user", data: { text: "x" } }), 404, "ERR_UID_NOT_FOUND");
    expectError(await send({ receiver: "nogroup", receiverType: "group", data: { text: "x" } }), 404, "ERR_GUID_NOT_FOUND");
    expectError(await text("superhero2", "x", "ghost"), 404, "ERR_UID_NOT_FOUND");
    expect(expectError(await send({ receiver: "superhero2", receiverType: "user", tags: "t", data: { text: "x" } }), 400, "ERR_BAD_REQUEST").details).toEqual({ tags: ["The tags must be an array."] });
    expect(e.store.defaultApp!.messages.size).toBe(before);
  });

  it("sending to a group needs membership; banned members are refused as banned", async () => {
    expectError(await text("supergroup", "hi", "superhero5", "group"), 403, "ERR_GROUP_NOT_JOINED");
    await e.post("/v3/groups/supergroup/bannedusers/superhero3");
    expectError(await text("supergroup", "hi", "superhero3", "group"), 403, "ERR_BANNED_GROUPMEMBER");
  });
});

describe("threads", () => {
  it("replies carry parentId, the parent counts them, and GET lists them", async () => {
    const parent = (await text("supergroup", "parent", "superhero1", "group")).body.data;
    const reply = await e.post(`/v3/messages/${parent.id}/thread`, { receiver: "supergroup", receiverType: "group", data: { text: "reply 1" } }, { onBehalfOf: "superhero2" });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({ parentId: parent.id, conversationId: "group_supergroup", data: { text: "reply 1" } });
    // The receiver defaults to the parent's conversation.
    await e.post(`/v3/messages/${parent.id}/thread`, { data: { text: "reply 2" } }, { onBehalfOf: "superhero3" });
    expect((await e.get(`/v3/messages/${parent.id}`)).body.data.replyCount).toBe(2);
    const list = await e.get(`/v3/messages/${parent.id}/thread`);
    expect(ids(list)).toEqual(["reply 1", "reply 2"]);
    expect(list.body.meta.current).toEqual({ limit: 10, count: 2 });
    expect(list.body.meta.next).toEqual({ affix: "append", sentAt: 2_000_000_000, id: expect.any(String) });
    // hideReplies keeps them out of the conversation list.
    expect(ids(await e.get("/v3/groups/supergroup/messages?hideReplies=true&affix=prepend&limit=1"))).toEqual(["parent"]);
  });

  it("needs onBehalfOf, refuses nesting, the wrong conversation and action parents", async () => {
    const parent = (await text("superhero2", "parent", "superhero1")).body.data;
    expectError(await e.post(`/v3/messages/${parent.id}/thread`, { data: { text: "x" } }), 400, "ERR_BAD_REQUEST");
    const reply = (await e.post(`/v3/messages/${parent.id}/thread`, { data: { text: "r" } }, { onBehalfOf: "superhero2" })).body.data;
    expect(reply.receiver).toBe("superhero1");
    expectError(await e.post(`/v3/messages/${reply.id}/thread`, { data: { text: "x" } }, { onBehalfOf: "superhero1" }), 400, "ERR_MESSAGE_THREAD_NESTING");
    expectError(await e.post(`/v3/messages/${parent.id}/thread`, { receiver: "superhero3", receiverType: "user", data: { text: "x" } }, { onBehalfOf: "superhero1" }), 400, "ERR_WRONG_MESSAGE_THREAD");
    expectError(await e.post(`/v3/messages/${parent.id}/thread`, { data: { text: "x" } }, { onBehalfOf: "superhero4" }), 403, "ERR_MESSAGE_NO_ACCESS");
    const action = (await e.del(`/v3/messages/${parent.id}`)).body.data;
    expectError(await e.post(`/v3/messages/${action.id}/thread`, { data: { text: "x" } }, { onBehalfOf: "superhero1" }), 400, "ERR_WRONG_MESSAGE_THREAD_CATEGORY");
    expectError(await e.post("/v3/messages/999999/thread", { data: { text: "x" } }, { onBehalfOf: "superhero1" }), 404, "ERR_MESSAGE_ID_NOT_FOUND");
  });
});

describe("GET /messages/{id}, PUT, DELETE", () => {
  it("gets a message; onBehalfOf users outside the conversation get ERR_MESSAGE_NO_ACCESS", async () => {
    const m = (await text("superhero2", "private", "superhero1")).body.data;
    expect((await e.get(`/v3/messages/${m.id}`)).body.data).toMatchObject({ id: m.id, data: { text: "private" } });
    expect((await e.get(`/v3/messages/${m.id}`, { onBehalfOf: "superhero2" })).status).toBe(200);
    expectError(await e.get(`/v3/messages/${m.id}`, { onBehalfOf: "superhero3" }), 403, "ERR_MESSAGE_NO_ACCESS");
    expectError(await e.get("/v3/messages/abc"), 404, "ERR_MESSAGE_ID_NOT_FOUND");
  });

  it("edits: the sender or the app; answers the `edited` action message; sets editedAt/editedBy", async () => {
    const m = (await text("superhero2", "frist", "superhero1")).body.data;
    expectError(await e.put(`/v3/messages/${m.id}`, { data: { text: "x" } }, { onBehalfOf: "superhero2" }), 403, "ERR_MESSAGE_NOT_A_SENDER");
    e.clock.advance(5);
    const r = await e.put(`/v3/messages/${m.id}`, { data: { text: "first", metadata: { fixed: true } }, tags: ["typo"] }, { onBehalfOf: "superhero1" });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      id: String(Number(m.id) + 1),
      conversationId: m.conversationId,
      sender: "superhero1",
      receiverType: "user",
      receiver: "superhero2",
      category: "action",
      type: "message",
      sentAt: 2_000_000_005,
      data: {
        action: "edited",
        entities: {
          by: { entityType: "user", entity: expect.objectContaining({ uid: "superhero1" }) },
          for: { entityType: "user", entity: expect.objectContaining({ uid: "superhero2" }) },
          on: { entityType: "message", entity: expect.objectContaining({ id: m.id, editedAt: 2_000_000_005, editedBy: "superhero1", updatedAt: 2_000_000_005, tags: ["typo"], data: expect.objectContaining({ text: "first" }) }) },
        },
      },
    });
    const byApp = await e.put(`/v3/messages/${m.id}`, { data: { text: "again" } });
    expect(byApp.body.data.data.entities.on.entity.editedBy).toBe("app_system");
    expectError(await e.put(`/v3/messages/${r.body.data.id}`, { data: { text: "x" } }), 403, "ERR_MESSAGE_ACTION_NOT_ALLOWED");
    expectError(await e.put(`/v3/messages/${m.id}`, { data: { text: 1 } }), 400, "ERR_INVALID_MESSAGE_TEXT");
  });

  // sdk/javascript/edit-message.mdx: to edit, "you need to be either the sender of the message or the
  // admin/moderator of the group"; its table gives group owners and moderators "All messages in the group".
  it("lets a group's admins and moderators edit any member's message; a participant only their own", async () => {
    expect((await e.put("/v3/groups/supergroup/members/superhero3", { scope: "moderator" })).status).toBe(200);
    expect((await e.post("/v3/groups/supergroup/members", { participants: ["superhero4"] })).status).toBe(200);
    const m = (await text("supergroup", "typo", "superhero2", "group")).body.data;
    const byModerator = await e.put(`/v3/messages/${m.id}`, { data: { text: "fixed by a moderator" } }, { onBehalfOf: "superhero3" });
    expect(byModerator.status).toBe(200);
    expect(byModerator.body.data.data.entities.on.entity).toMatchObject({ id: m.id, editedBy: "superhero3", data: { text: "fixed by a moderator" } });
    expect((await e.put(`/v3/messages/${m.id}`, { data: { text: "fixed by the admin" } }, { onBehalfOf: "superhero1" })).status).toBe(200);
    expectError(await e.put(`/v3/messages/${m.id}`, { data: { text: "x" } }, { onBehalfOf: "superhero4" }), 403, "ERR_MESSAGE_NOT_A_SENDER");
  });

  it("deletes softly by default (deletedAt/deletedBy, `deleted` action), permanently on request", async () => {
    const m = (await text("supergroup", "oops", "superhero2", "group")).body.data;
    expectError(await e.del(`/v3/messages/${m.id}`, undefined, { onBehalfOf: "superhero3" }), 403, "ERR_MESSAGE_NOT_A_SENDER");
    const r = await e.del(`/v3/messages/${m.id}`, undefined, { onBehalfOf: "superhero1" }); // group admin may
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ category: "action", type: "message", data: { action: "deleted", entities: { on: { entity: { id: m.id, deletedBy: "superhero1", deletedAt: 2_000_000_000 } } } } });
    expect((await e.get(`/v3/messages/${m.id}`)).body.data).toMatchObject({ deletedAt: 2_000_000_000, deletedBy: "superhero1" });
    expectError(await e.del(`/v3/messages/${m.id}`), 403, "ERR_MESSAGE_ACTION_NOT_ALLOWED");
    expect((await e.del(`/v3/messages/${m.id}`, { permanent: true })).status).toBe(200);
    expectError(await e.get(`/v3/messages/${m.id}`), 404, "ERR_MESSAGE_ID_NOT_FOUND");
    expectError(await e.del(`/v3/messages/${m.id}`, { permanent: "yes" }), 404, "ERR_MESSAGE_ID_NOT_FOUND");
  });
});

describe("message lists", () => {
  beforeEach(async () => {
    e.store.reset({ to: "empty" });
    for (const uid of ["a", "b", "c"]) await e.post("/v3/users", { uid, name: uid.toUpperCase() });
    await e.post("/v3/groups", { guid: "g", name: "G", type: "public", members: { participants: ["b"] } }, { onBehalfOf: "a" });
    for (let i = 1; i <= 25; i++) {
      e.clock.advance(1);
      await text(i % 2 ? "b" : "c", `dm ${i}`, "a");
    }
  });

  it("walks a conversation forwards and backwards with cursors, without gaps or duplicates", async () => {
    const seen: string[] = [];
    let cursor = "";
    for (;;) {
      const r = await e.get(`/v3/users/b/messages?limit=4${cursor}`, { onBehalfOf: "a" });
      expect(r.status).toBe(200);
      if (r.body.data.length === 0) break;
      expect(r.body.meta.current).toEqual({ limit: 4, count: r.body.data.length });
      seen.push(...ids(r));
      cursor = `&affix=append&id=${r.body.meta.next.id}`;
    }
    const odd = Array.from({ length: 13 }, (_, i) => `dm ${2 * i + 1}`);
    expect(seen).toEqual(odd);

    const back: string[] = [];
    cursor = "&affix=prepend";
    for (;;) {
      const r = await e.get(`/v3/users/b/messages?limit=5${cursor}`, { onBehalfOf: "a" });
      if (r.body.data.length === 0) break;
      back.unshift(...ids(r));
      cursor = `&affix=prepend&id=${r.body.meta.previous.id}`;
    }
    expect(back).toEqual(odd);
  });

  it("GET /messages: the app sees all; onBehalfOf sees only their conversations; conversationId narrows", async () => {
    const all = await e.get("/v3/messages?limit=1000");
    expect(all.body.data.length).toBe(26); // 25 direct + the `added` action in g
    const b = await e.get("/v3/messages?limit=1000", { onBehalfOf: "b" });
    expect(b.body.data.every((m: any) => m.conversationId === "a_user_b" || m.conversationId === "group_g")).toBe(true);
    expect(b.body.data.length).toBe(14);
    const c = await e.get("/v3/messages?limit=1000&conversationId=a_user_c");
    expect(c.body.data.length).toBe(12);
    expectError(await e.get("/v3/messages?conversationId=a_user_c", { onBehalfOf: "b" }), 403, "ERR_CONVERSATION_NOT_ACCESSIBLE");
    expect((await e.get("/v3/messages")).body.meta.current).toEqual({ limit: 10, count: 10 });
  });

  it("filters: category, type, searchKey, sender, tags, attachments, mentions, links, deleted, timestamps", async () => {
    await send({ receiver: "g", receiverType: "group", type: "file", tags: ["doc"], data: { attachments: [{ url: "https://x.io/f.pdf" }], text: "see https://x.io" } }, "a");
    await text("g", "ping <@uid:b>", "a", "group");
    const del = (await text("g", "to delete", "b", "group")).body.data;
    await e.del(`/v3/messages/${del.id}`);
    const q = (s: string) => e.get(`/v3/groups/g/messages?limit=100&${s}`);
    expect(ids(await q("category=action"))).toEqual(["added", "deleted"]);
    expect(ids(await q("categories=message&types=file"))).toEqual(["see https://x.io"]);
    expect(ids(await q("searchKey=PING"))).toEqual(["ping <@uid:b>"]);
    expect(ids(await q("sender=b&category=message"))).toEqual(["to delete"]);
    expect(ids(await q("tags=doc"))).toEqual(["see https://x.io"]);
    expect(ids(await q("hasAttachments=true"))).toEqual(["see https://x.io"]);
    expect(ids(await q("attachmentTypes=image"))).toEqual([]);
    expect(ids(await q("hasMentions=true"))).toEqual(["ping <@uid:b>"]);
    expect(ids(await q("mentionedUids=b"))).toEqual(["ping <@uid:b>"]);
    expect(ids(await e.get("/v3/groups/g/messages?myMentionsOnly=true", { onBehalfOf: "b" }))).toEqual(["ping <@uid:b>"]);
    expect(ids(await q("hasLinks=true"))).toEqual(["see https://x.io"]);
    expect(ids(await q("onlyDeleted=true"))).toEqual(["to delete"]);
    expect(ids(await q("hideDeleted=true&category=message"))).toEqual(["see https://x.io", "ping <@uid:b>"]);
    expect(ids(await e.get(`/v3/users/b/messages?fromTimestamp=2000000003&toTimestamp=2000000005`, { onBehalfOf: "a" }))).toEqual(["dm 3", "dm 5"]);
    expect(ids(await e.get(`/v3/users/b/messages?sentAt=2000000023`, { onBehalfOf: "a" }))).toEqual(["dm 23", "dm 25"]);
    expect(Object.keys(expectError(await e.get("/v3/groups/g/messages?category=bogus&limit=0&hasReactions=maybe"), 400, "ERR_BAD_REQUEST").details!).sort()).toEqual([
      "category.0",
      "hasReactions",
      "limit",
    ]);
    expectError(await q("categories=message&types=sticker"), 400, "ERR_BAD_REQUEST");
  });

  it("unread, count and read pointers", async () => {
    const r = await e.get("/v3/users/a/messages?unread=true&count=true&limit=100", { onBehalfOf: "b" });
    expect(r.body.data.length).toBe(13);
    expect(r.body.meta.current.unreadCount).toBe(13);
    const tenth = e.store.defaultApp!.messages.conversation("a_user_b")[9];
    await e.post("/v3/users/a/conversation/read", { messageId: tenth.id }, { onBehalfOf: "b" });
    const after = await e.get("/v3/users/a/messages?unread=true&count=true&limit=100", { onBehalfOf: "b" });
    expect(after.body.data.length).toBe(3);
    expect(after.body.meta.current.unreadCount).toBe(3);
    expectError(await e.get("/v3/users/a/messages?unread=true"), 400, "ERR_BAD_REQUEST");
  });

  it("group messages need membership; kicked users keep what they saw, banned users see nothing", async () => {
    expectError(await e.get("/v3/groups/g/messages", { onBehalfOf: "c" }), 403, "ERR_GROUP_NOT_JOINED");
    await text("g", "before kick", "a", "group");
    await e.del("/v3/groups/g/members/b");
    await text("g", "after kick", "a", "group");
    const kicked = await e.get("/v3/groups/g/messages?limit=100", { onBehalfOf: "b" });
    expect(ids(kicked)).toEqual(["added", "before kick", "kicked"]);
    await e.post("/v3/groups/g/members", { usersToBan: ["b"] });
    expectError(await e.get("/v3/groups/g/messages", { onBehalfOf: "b" }), 403, "ERR_BANNED_GROUPMEMBER");
    expectError(await e.get("/v3/groups/nope/messages"), 404, "ERR_GUID_NOT_FOUND");
    expectError(await e.get("/v3/users/ghost/messages"), 404, "ERR_UID_NOT_FOUND");
  });
});
