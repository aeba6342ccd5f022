import { beforeEach, describe, expect, it } from "vitest";
import { AUTH_KEY, emulator, expectError, type TestEmulator } from "./helpers.js";

let e: TestEmulator;
beforeEach(async () => {
  e = await emulator();
});

const imp = (what: string, body: unknown) => e.post(`/v3/data_import/${what}`, body);
const text = (muid: string, sentAt: number | string, extra: Record<string, unknown> = {}) => ({
  muid,
  sender: "superhero1",
  receiverType: "user",
  receiver: "superhero2",
  category: "message",
  type: "text",
  data: { text: muid },
  sentAt,
  ...extra,
});

describe("data import: users, groups, members", () => {
  it("imports users keyed by uid with their times, one result per item (a bad item fails alone)", async () => {
    const r = await imp("users", {
      users: {
        uid1: { uid: "uid1", name: "User One", avatar: "https://example.com/1.webp", createdAt: "1673421419", lastActiveAt: "1673421425", metadata: { key: "value" } },
        gone1: { uid: "gone1", name: "Gone", createdAt: 1673421419, deactivatedAt: 1673500000 },
        superhero1: { uid: "superhero1", name: "Again" },
        noname: { uid: "noname" },
        other: { uid: "different", name: "Mismatch" },
      },
    });
    expect(r.status).toBe(200);
    expect(r.body.data.uid1).toEqual({
      success: true,
      data: { uid: "uid1", name: "User One", avatar: "https://example.com/1.webp", metadata: { key: "value" }, status: "offline", role: "default", createdAt: 1673421419, lastActiveAt: 1673421425, tags: [] },
    });
    expect(r.body.data.gone1.data.deactivatedAt).toBe(1673500000);
    expect(r.body.data.superhero1).toMatchObject({ success: false, error: { code: "ERR_UID_ALREADY_EXISTS" } });
    expect(r.body.data.noname).toMatchObject({ success: false, error: { code: "ERR_BAD_REQUEST", details: { name: ["The name field is required."] } } });
    expect(r.body.data.other).toMatchObject({ success: false, error: { code: "ERR_BAD_REQUEST" } });
    expect((await e.get("/v3/users/uid1")).body.data).toMatchObject({ createdAt: 1673421419, lastActiveAt: 1673421425 });
    expectError(await e.get("/v3/users/gone1"), 404, "ERR_UID_NOT_FOUND"); // imported deactivated
    expectError(await e.get("/v3/users/noname"), 404, "ERR_UID_NOT_FOUND");
  });

  it("refuses bodies that are no collection of items with each kind's format code, and more than 50 items", async () => {
    expectError(await imp("users", { users: "all of them" }), 400, "ERR_IMPORT_INVALID_USER_FORMAT");
    expectError(await imp("users", {}), 400, "ERR_IMPORT_INVALID_USER_FORMAT");
    expectError(await imp("groups", { groups: { g1: "g1" } }), 400, "ERR_IMPORT_INVALID_GROUP_FORMAT");
    expectError(await imp("members", { members: [1, 2] }), 400, "ERR_IMPORT_INVALID_MEMBER_FORMAT");
    expectError(await imp("messages", { messages: { m1: null } }), 400, "ERR_IMPORT_INVALID_MESSAGE_FORMAT");
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`u${i}`, { uid: `u${i}`, name: `U${i}` }]));
    const over = expectError(await imp("users", { users: many }), 400, "ERR_BAD_REQUEST");
    expect(over.details).toEqual({ users: ["The users may not have more than 50 items."] });
    expectError(await e.get("/v3/users/u0"), 404, "ERR_UID_NOT_FOUND");
    delete many.u50;
    const fifty = await imp("users", { users: many });
    expect(Object.values(fifty.body.data).every((x: any) => x.success)).toBe(true);
    // The API key: missing, unknown, or an Auth Key (authOnly) are refused before anything is read.
    const one = { users: { k1: { uid: "k1", name: "K" } } };
    expectError(await e.post("/v3/data_import/users", one, { key: null }), 401, "AUTH_ERR_EMPTY_APIKEY");
    expectError(await e.post("/v3/data_import/users", one, { key: "nope" }), 401, "AUTH_ERR_APIKEY_NOT_FOUND");
    expectError(await e.post("/v3/data_import/users", one, { key: AUTH_KEY }), 403, "AUTH_ERR_NO_ACCESS");
    expectError(await e.get("/v3/users/k1"), 404, "ERR_UID_NOT_FOUND");
    // An array of items is taken too, each keyed by its id.
    expect((await imp("users", { users: [{ uid: "arr1", name: "Arr" }] })).body.data.arr1.success).toBe(true);
  });

  it("imports groups with their owner (created from groupOwnerDetails) and members with joinedAt", async () => {
    const g = await imp("groups", {
      groups: {
        guid1: { guid: "guid1", name: "Guid One", type: "public", createdAt: "1673421419", owner: "owner1", groupOwnerDetails: { uid: "owner1", name: "Owner" } },
        secret: { guid: "secret", name: "Secret", type: "password" },
        supergroup: { guid: "supergroup", name: "Again", type: "public" },
      },
    });
    expect(g.body.data.guid1).toMatchObject({ success: true, data: { guid: "guid1", name: "Guid One", type: "public", conversationId: "group_guid1", createdAt: 1673421419, owner: "owner1" } });
    expect(g.body.data.secret).toMatchObject({ success: false, error: { code: "ERR_EMPTY_GROUP_PASS" } });
    expect(g.body.data.supergroup).toMatchObject({ success: false, error: { code: "ERR_GUID_ALREADY_EXISTS" } });
    expect((await e.get("/v3/users/owner1")).status).toBe(200);

    const now = e.clock.now();
    const m = await imp("members", {
      members: {
        guid1_member_uid2: { memberId: "guid1_member_uid2", guid: "guid1", uid: "uid2", scope: "admin", joinedAt: "1673421500", userDetails: { uid: "uid2", name: "Two" } },
        guid1_member_superhero3: { memberId: "guid1_member_superhero3", guid: "guid1", uid: "superhero3", isBanned: true, joinedAt: 1673421600 },
        guid1_member_superhero4: { memberId: "guid1_member_superhero4", guid: "guid1", uid: "superhero4", joinedAt: 1600000000 },
        guid1_member_superhero5: { memberId: "guid1_member_superhero5", guid: "guid1", uid: "superhero5", joinedAt: now + 100 },
        guid1_member_owner1: { memberId: "guid1_member_owner1", guid: "guid1", uid: "owner1", joinedAt: 1673421700 },
        newg_member_superhero1: { memberId: "newg_member_superhero1", guid: "newg", uid: "superhero1", joinedAt: 1673421700, groupDetails: { guid: "newg", name: "New", type: "private", createdAt: 1673421000 } },
        nog_member_superhero1: { memberId: "nog_member_superhero1", guid: "nog", uid: "superhero1", joinedAt: 1673421700 },
        wrong_key: { memberId: "wrong_key", guid: "guid1", uid: "superhero2", joinedAt: 1673421700 },
      },
    });
    const d = m.body.data;
    expect(d.guid1_member_uid2).toEqual({ success: true, data: { guid: "guid1", uid: "uid2", scope: "admin", joinedAt: 1673421500 } });
    expect(d.guid1_member_superhero3).toMatchObject({ success: true, data: { isBanned: true } });
    expect(d.guid1_member_superhero4).toMatchObject({ success: false, error: { code: "ERR_IMPORT_INVALID_JOINEDAT" } });
    expect(d.guid1_member_superhero5).toMatchObject({ success: false, error: { code: "ERR_IMPORT_INVALID_JOINEDAT" } });
    expect(d.guid1_member_owner1).toMatchObject({ success: false, error: { code: "ERR_ALREADY_JOINED" } });
    expect(d.newg_member_superhero1.success).toBe(true);
    expect(d.nog_member_superhero1).toMatchObject({ success: false, error: { code: "ERR_GUID_NOT_FOUND" } });
    expect(d.wrong_key).toMatchObject({ success: false, error: { code: "ERR_BAD_REQUEST" } });
    const members = (await e.get("/v3/groups/guid1/members")).body.data;
    expect(members.map((x: any) => [x.uid, x.scope, x.joinedAt])).toEqual(expect.arrayContaining([["uid2", "admin", 1673421500], ["owner1", "admin", 1673421419]]));
    expect((await e.get("/v3/groups/guid1/bannedusers")).body.data.map((x: any) => x.uid)).toEqual(["superhero3"]);
  });
});

describe("data import: messages", () => {
  it("keeps muid, sender and times, creates referenced users on the fly, and checks items as a send does", async () => {
    const r = await imp("messages", {
      messages: {
        "3117": text("3117", "1674104348", {
          sender: "s12",
          receiver: "r123",
          data: { text: "Hi there", metadata: { key: "value" } },
          deliveredAt: "1674224684",
          readAt: "1674224684",
          tags: ["tag1"],
          senderUserDetails: { uid: "s12", name: "user1" },
          receiverUserDetails: { uid: "r123", name: "user2" },
        }),
        nosender: text("nosender", 1674104349, { sender: "ghost" }),
        empty: text("empty", 1674104349, { data: {} }),
        grp: { muid: "grp", sender: "superhero2", receiverType: "group", receiver: "oldgroup", data: { text: "in a group" }, sentAt: 1674104350, receiverGroupDetails: { guid: "oldgroup", name: "Old", type: "public" } },
      },
    });
    expect(r.body.data["3117"]).toEqual({
      success: true,
      data: expect.objectContaining({ id: expect.any(String), muid: "3117", conversationId: "r123_user_s12", sender: "s12", receiver: "r123", receiverType: "user", sentAt: 1674104348, deliveredAt: 1674224684, readAt: 1674224684, updatedAt: 1674104348, tags: ["tag1"] }),
    });
    expect(r.body.data["3117"].data.data).toMatchObject({ text: "Hi there", metadata: { key: "value" }, entities: { sender: { entity: { uid: "s12" } } } });
    expect(r.body.data.nosender).toMatchObject({ success: false, error: { code: "ERR_UID_NOT_FOUND" } });
    expect(r.body.data.empty).toMatchObject({ success: false, error: { code: "ERR_EMPTY_MESSAGE_TEXT" } });
    expect(r.body.data.grp).toMatchObject({ success: true, data: { conversationId: "group_oldgroup", sender: "superhero2" } });
    // Another import of the same muid is refused; the first one stays as it was.
    const again = await imp("messages", { messages: { "3117": text("3117", 1674104348) } });
    expect(again.body.data["3117"]).toMatchObject({ success: false, error: { code: "ERR_IMPORT_MUID_ALREADY_EXISTS" } });
    const got = await e.get(`/v3/messages/${r.body.data["3117"].data.id}`);
    expect(got.body.data).toMatchObject({ muid: "3117", sentAt: 1674104348, readAt: 1674224684 });
  });

  it("shows an imported sender's metadata and lastActiveAt in the message's user entity, as the reply example does", async () => {
    const sender = { uid: "s12", name: "user1", avatar: "https://example.com/s12.png", metadata: { key: "value" }, createdAt: "1674228536", lastActiveAt: "1674228600" };
    const r = await imp("messages", { messages: { m1: text("m1", 1674104348, { sender: "s12", senderUserDetails: sender }) } });
    const entity = { uid: "s12", name: "user1", avatar: "https://example.com/s12.png", metadata: { key: "value" }, status: "offline", role: "default", createdAt: 1674228536, lastActiveAt: 1674228600 };
    expect(r.body.data.m1.data.data.entities.sender).toEqual({ entity, entityType: "user" });
    // The same in later replies, and for a user without either: no such keys.
    expect((await e.get(`/v3/messages/${r.body.data.m1.data.id}`)).body.data.data.entities.sender.entity).toEqual(entity);
    expect(Object.keys(r.body.data.m1.data.data.entities.receiver.entity)).not.toContain("lastActiveAt");
    expect(Object.keys(r.body.data.m1.data.data.entities.receiver.entity)).not.toContain("metadata");
  });

  it("places imported history in time order among live messages: lists, cursors, last message, unread counts", async () => {
    e.clock.freeze(1_700_000_000_000);
    const live = [];
    for (const t of ["live1", "live2"]) {
      live.push((await e.post("/v3/messages", { receiver: "superhero4", receiverType: "user", data: { text: t } }, { onBehalfOf: "superhero3" })).body.data);
      e.clock.advance(10);
    }
    expect((await e.post("/v3/users/superhero3/conversation/read", { messageId: Number(live[1].id) }, { onBehalfOf: "superhero4" })).status).toBe(200);
    const history = (k: string, at: number, extra = {}) => text(k, at, { sender: "superhero3", receiver: "superhero4", ...extra });
    const r = await imp("messages", {
      messages: {
        old1: history("old1", 1_699_999_000),
        old2: history("old2", 1_699_999_500, { readAt: 1_699_999_600 }),
        between: history("between", 1_700_000_005),
      },
    });
    expect(Object.values(r.body.data).every((x: any) => x.success)).toBe(true);
    const conv = "superhero3_user_superhero4";
    const texts = async (q: string) => (await e.get(`/v3/messages?conversationId=${conv}&${q}`, { onBehalfOf: "superhero4" })).body;
    expect((await texts("limit=10")).data.map((m: any) => m.data.text)).toEqual(["old1", "old2", "live1", "between", "live2"]);
    // Paging backwards with the cursor walks the same order.
    let page = await texts("limit=2&affix=prepend");
    const seen = [page.data.map((m: any) => m.data.text)];
    while (page.data.length > 0) {
      page = await texts(`limit=2&affix=prepend&id=${page.meta.previous.id}`);
      if (page.data.length) seen.unshift(page.data.map((m: any) => m.data.text));
    }
    expect(seen.flat()).toEqual(["old1", "old2", "live1", "between", "live2"]);
    expect((await texts(`limit=10&affix=append&id=${live[0].id}`)).data.map((m: any) => m.data.text)).toEqual(["between", "live2"]);
    // The conversation's last message stays the newest one; everything older than what superhero4 read is read.
    const c4 = (await e.get(`/v3/conversations/${conv}`, { onBehalfOf: "superhero4" })).body.data;
    expect(c4.lastMessage.data.text).toBe("live2");
    expect(c4.unreadMessageCount).toBe("0");
    expect((await texts("limit=10&unread=true")).data).toEqual([]);
    // Newer history is unread, unless imported as read.
    await imp("messages", { messages: { late: history("late", 1_700_000_100), lateRead: history("lateRead", 1_700_000_101, { readAt: 1_700_000_200 }) } });
    expect((await e.get(`/v3/conversations/${conv}`, { onBehalfOf: "superhero4" })).body.data).toMatchObject({ unreadMessageCount: "1", lastMessage: { data: { text: "lateRead" } } });
    expect((await texts("limit=10&unread=true")).data.map((m: any) => m.data.text)).toEqual(["late"]);
    // Saved state keeps the order and the muids (a second import of one is still refused).
    const state = (await e.get("/_emulator/state", { key: null })).body;
    await e.put("/_emulator/state", state, { key: null });
    expect((await texts("limit=10")).data.map((m: any) => m.data.text)).toEqual(["old1", "old2", "live1", "between", "live2", "late", "lateRead"]);
    expect((await imp("messages", { messages: { old1: history("old1", 1) } })).body.data.old1.error.code).toBe("ERR_IMPORT_MUID_ALREADY_EXISTS");
  });

  it("creates what an item names from its details only when the whole item succeeds", async () => {
    const now = e.clock.now();
    const r = await imp("messages", {
      messages: {
        // The sender is new, the receiver unknown: the item fails and no sender is left behind.
        orphan: text("orphan", now - 60, { sender: "new-sender", senderUserDetails: { uid: "new-sender", name: "New" }, receiver: "ghost" }),
        // A new group (with a new owner) and an invalid message: neither is made.
        badgroup: { muid: "badgroup", sender: "superhero1", receiverType: "group", receiver: "newgroup", category: "nope", data: { text: "x" }, sentAt: now - 60, receiverGroupDetails: { guid: "newgroup", name: "N", type: "public", owner: "newowner" }, receiverGroupOwnerDetails: { uid: "newowner", name: "Owner" } },
        // Mentioned users are created from mentionedUserDetails; a user named twice in one item is made once.
        mention: text("mention", now - 50, { sender: "twice", senderUserDetails: { uid: "twice", name: "Twice" }, receiver: "superhero2", data: { text: "hi <@uid:fresh> and <@uid:twice>" }, mentionedUserDetails: { fresh: { uid: "fresh", name: "Fresh" }, twice: { uid: "twice", name: "Twice" } } }),
      },
    });
    expect(r.body.data.orphan).toMatchObject({ success: false, error: { code: "ERR_UID_NOT_FOUND" } });
    expect(r.body.data.badgroup).toMatchObject({ success: false, error: { code: "ERR_INVALID_MESSAGE_CATEGORY" } });
    expect(r.body.data.mention).toMatchObject({ success: true, data: { sender: "twice" } });
    expect(r.body.data.mention.data.mentionedUsers.map((u: any) => u.uid)).toEqual(["fresh", "twice"]);
    expectError(await e.get("/v3/users/new-sender"), 404, "ERR_UID_NOT_FOUND");
    expectError(await e.get("/v3/users/newowner"), 404, "ERR_UID_NOT_FOUND");
    expectError(await e.get("/v3/groups/newgroup"), 404, "ERR_GUID_NOT_FOUND");
    expect((await e.get("/v3/users/fresh")).body.data).toMatchObject({ uid: "fresh", name: "Fresh" });

    // Members: a new group and user with a joinedAt out of range leave nothing behind either.
    const m = await imp("members", {
      members: { g9_member_u9: { memberId: "g9_member_u9", guid: "g9", uid: "u9", joinedAt: now + 60, groupDetails: { guid: "g9", name: "G9", type: "public", createdAt: now - 600 }, userDetails: { uid: "u9", name: "U9" } } },
    });
    expect(m.body.data.g9_member_u9).toMatchObject({ success: false, error: { code: "ERR_IMPORT_INVALID_JOINEDAT" } });
    expectError(await e.get("/v3/groups/g9"), 404, "ERR_GUID_NOT_FOUND");
    expectError(await e.get("/v3/users/u9"), 404, "ERR_UID_NOT_FOUND");
    // A group whose owner is its imported member: the owner is made once and is already a member.
    const own = await imp("members", {
      members: { g8_member_u8: { memberId: "g8_member_u8", guid: "g8", uid: "u8", joinedAt: now - 30, groupDetails: { guid: "g8", name: "G8", type: "public", owner: "u8", createdAt: now - 600 }, userDetails: { uid: "u8", name: "U8" } } },
    });
    expect(own.body.data.g8_member_u8).toMatchObject({ success: false, error: { code: "ERR_ALREADY_JOINED" } });
    expectError(await e.get("/v3/groups/g8"), 404, "ERR_GUID_NOT_FOUND");
  });

  it("lists conversations by the time of their last message, and threads live replies under imported messages", async () => {
    const now = e.clock.now();
    const conversations = async () => (await e.get("/v3/conversations", { onBehalfOf: "superhero1" })).body.data.map((c: any) => c.conversationId);
    const before = await conversations();
    // A conversation holding only old history lists after the ones active since, though its message id is newer.
    const r = await imp("messages", { messages: { past: text("past", now - 86_400, { receiver: "superhero3" }) } });
    const past = r.body.data.past.data;
    expect(await conversations()).toEqual([...before, "superhero1_user_superhero3"]);
    // A live message makes it the latest again.
    await e.post("/v3/messages", { receiver: "superhero3", receiverType: "user", data: { text: "back" } }, { onBehalfOf: "superhero1" });
    expect((await conversations())[0]).toBe("superhero1_user_superhero3");

    const reply = await e.post(`/v3/messages/${past.id}/thread`, { receiver: "superhero1", receiverType: "user", data: { text: "late reply" } }, { onBehalfOf: "superhero3" });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({ parentId: past.id, sender: "superhero3" });
    const thread = await e.get(`/v3/messages/${past.id}/thread`, { onBehalfOf: "superhero1" });
    expect(thread.body.data.map((m: any) => m.data.text)).toEqual(["late reply"]);
    expect((await e.get(`/v3/messages/${past.id}`)).body.data).toMatchObject({ muid: "past", sentAt: now - 86_400, replyCount: 1 });
  });

  it("fires no webhooks or events", async () => {
    const events: string[] = [];
    e.store.events.subscribe((ev) => events.push(ev.trigger));
    await imp("users", { users: { q1: { uid: "q1", name: "Q" } } });
    await imp("groups", { groups: { qg: { guid: "qg", name: "QG", type: "public", owner: "q1" } } });
    await imp("members", { members: { qg_member_superhero1: { memberId: "qg_member_superhero1", guid: "qg", uid: "superhero1", joinedAt: e.clock.now() - 1 } } });
    await imp("messages", { messages: { q: text("q", e.clock.now() - 5) } });
    expect(events).toEqual([]);
  });

  it("allows 60 requests per minute per endpoint when rate limits are on (--rate-limit)", async () => {
    e = await emulator({ rateLimit: true }); // what the --rate-limit flag sets
    e.clock.freeze(1_700_000_040_000); // the start of a minute
    for (let i = 0; i < 60; i++) expect((await imp("users", { users: { [`r${i}`]: { uid: `r${i}`, name: "R" } } })).status).toBe(200);
    const refused = expectError(await imp("users", { users: { r60: { uid: "r60", name: "R" } } }), 429, "ERR_TOO_MANY_REQUESTS");
    expect(refused.message).toBe("Too many requests for data import API. 60 per minute is the maximum request allowed. Please retry after 60 seconds.");
    expectError(await e.get("/v3/users/r60"), 404, "ERR_UID_NOT_FOUND");
    expect((await imp("groups", { groups: { rg: { guid: "rg", name: "RG", type: "public" } } })).status).toBe(200);
    e.clock.advance(60);
    expect((await imp("users", { users: { r60: { uid: "r60", name: "R" } } })).status).toBe(200);
  });
});
