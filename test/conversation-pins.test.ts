import { beforeEach, describe, expect, it } from "vitest";
import { emulator, expectError, type TestEmulator } from "./helpers.js";

let e: TestEmulator;
beforeEach(async () => {
  e = await emulator();
  e.clock.freeze(2_000_000_000_000);
  e.store.reset({ to: "empty" });
  for (const uid of ["a", "b", "c", "d", "f", "h", "k"]) await e.post("/v3/users", { uid, name: uid.toUpperCase() });
  await e.post("/v3/groups", { guid: "g", name: "Garden", type: "public", members: { participants: ["b"] } }, { onBehalfOf: "a" });
  await e.post("/v3/groups", { guid: "x", name: "Closed", type: "private" });
});

const as = (onBehalfOf: string) => ({ onBehalfOf });
const text = async (receiver: string, t: string, from: string, receiverType = "user") => {
  e.clock.advance(1);
  return e.post("/v3/messages", { receiver, receiverType, data: { text: t } }, as(from));
};
const convIds = async (uid: string) => (await e.get("/v3/conversations", as(uid))).body.data.map((c: any) => c.conversationId);

describe("user conversation pins", () => {
  it("pins and unpins one-on-one and group conversations for the onBehalfOf user; pinned ones list first", async () => {
    for (const uid of ["b", "c", "d"]) await text(uid, `hi ${uid}`, "a");
    await text("g", "group hi", "a", "group");
    expect(await convIds("a")).toEqual(["group_g", "a_user_d", "a_user_c", "a_user_b"]);
    const pin = await e.post("/v3/users/b/conversation/pin", undefined, as("a"));
    expect(pin.status).toBe(200);
    expect(pin.body).toEqual({ data: { conversationId: "a_user_b", conversationType: "user", pinnedBy: "a", pinnedAt: 2_000_000_004 } });
    e.clock.advance(1);
    const g = await e.post("/v3/groups/g/conversation/pin", undefined, as("a"));
    expect(g.body.data).toEqual({ conversationId: "group_g", conversationType: "group", pinnedBy: "a", pinnedAt: 2_000_000_005 });
    // Idempotent: the first pinnedAt stays.
    expect((await e.post("/v3/users/b/conversation/pin", undefined, as("a"))).body.data.pinnedAt).toBe(2_000_000_004);
    expect(await convIds("a")).toEqual(["a_user_b", "group_g", "a_user_d", "a_user_c"]);
    const listed = (await e.get("/v3/conversations", as("a"))).body.data;
    expect(listed[0]).toMatchObject({ pinnedBy: "a", pinnedAt: 2_000_000_004 });
    expect(listed[2]).not.toHaveProperty("pinnedBy");
    // Pins are the user's own: b sees nothing pinned.
    expect((await e.get("/v3/users/a/conversation", as("b"))).body.data).not.toHaveProperty("pinnedAt");
    expect((await e.get("/v3/users/b/conversation", as("a"))).body.data).toMatchObject({ pinnedBy: "a" });
    const un = await e.del("/v3/users/b/conversation/pin", undefined, as("a"));
    expect(un.body).toEqual({ data: { conversationId: "a_user_b", conversationType: "user" } });
    expect((await e.del("/v3/users/b/conversation/pin", undefined, as("a"))).status).toBe(200);
    expect(await convIds("a")).toEqual(["group_g", "a_user_d", "a_user_c", "a_user_b"]);
  });

  it("allows 5 pins per user, needs onBehalfOf, existing users and groups the user belongs to", async () => {
    for (const uid of ["b", "c", "d", "f", "h"]) expect((await e.post(`/v3/users/${uid}/conversation/pin`, undefined, as("a"))).status).toBe(200);
    const err = expectError(await e.post("/v3/groups/g/conversation/pin", undefined, as("a")), 400, "ERR_PINNED_CONVERSATIONS_LIMIT_EXCEEDED");
    expect(err.message).toBe("The number of pinned conversations for the user with uid a has reached the allowed limit of 5.");
    expectError(await e.post("/v3/users/b/conversation/pin"), 400, "ERR_BAD_REQUEST");
    expectError(await e.post("/v3/users/nobody/conversation/pin", undefined, as("a")), 404, "ERR_UID_NOT_FOUND");
    expectError(await e.post("/v3/groups/nope/conversation/pin", undefined, as("a")), 404, "ERR_GUID_NOT_FOUND");
    expectError(await e.post("/v3/groups/x/conversation/pin", undefined, as("a")), 403, "ERR_GROUP_NOT_JOINED");
  });
});

describe("app-wide pinned conversations", () => {
  it("replaces the whole ordered list, keeps pinnedAt of kept entries, dedupes, and [] clears", async () => {
    expect((await e.get("/v3/conversations/pinned")).body).toEqual({ data: [] });
    const put = await e.put("/v3/conversations/pinned", { pinnedConversations: [{ guid: "g" }, { uid: "c" }, { guid: "g" }] });
    expect(put.status).toBe(200);
    expect(put.body.data).toEqual([
      { conversationId: "group_g", conversationType: "group", pinnedBy: "app_system", pinnedAt: 2_000_000_000 },
      { conversationId: "app_system_user_c", conversationType: "user", pinnedBy: "app_system", pinnedAt: 2_000_000_000 },
    ]);
    e.clock.advance(5);
    const next = await e.put("/v3/conversations/pinned", { pinnedConversations: [{ uid: "b" }, { guid: "g" }] });
    expect(next.body.data.map((p: any) => [p.conversationId, p.pinnedAt])).toEqual([["app_system_user_b", 2_000_000_005], ["group_g", 2_000_000_000]]);
    expect((await e.get("/v3/conversations/pinned")).body).toEqual(next.body);
    expect((await e.put("/v3/conversations/pinned", { pinnedConversations: [] })).body).toEqual({ data: [] });
  });

  it("lists app pins first for every user, in order, as app_system; users can neither pin nor unpin them", async () => {
    await text("b", "a to b", "a");
    await text("c", "a to c", "a");
    await text("g", "group", "b", "group");
    await e.put("/v3/conversations/pinned", { pinnedConversations: [{ uid: "b" }, { guid: "g" }] });
    expect(await convIds("a")).toEqual(["a_user_b", "group_g", "a_user_c"]);
    expect(await convIds("b")).toEqual(["group_g", "a_user_b"]); // for b, {uid: "b"} is b's conversation with b: none
    const first = (await e.get("/v3/conversations", as("a"))).body.data[0];
    expect(first).toMatchObject({ pinnedBy: "app_system", pinnedAt: 2_000_000_003 });
    const err = expectError(await e.post("/v3/groups/g/conversation/pin", undefined, as("a")), 403, "ERR_SYSTEM_PINNED_CONVERSATION");
    expect(err.message).toBe("The conversation is pinned for all users by the app and can not be pinned by a user.");
    const un = expectError(await e.del("/v3/users/b/conversation/pin", undefined, as("a")), 403, "ERR_SYSTEM_PINNED_CONVERSATION");
    expect(un.message).toBe("The conversation is pinned for all users by the app and can not be unpinned by a user.");
  });

  it("refuses more than 5 entries, entries naming neither or both, unknown ids; survives a snapshot", async () => {
    const six = ["b", "c", "d", "f", "h", "k"].map((uid) => ({ uid }));
    const err = expectError(await e.put("/v3/conversations/pinned", { pinnedConversations: six }), 400, "ERR_SYSTEM_PINNED_CONVERSATIONS_LIMIT_EXCEEDED");
    expect(err.message).toBe("The number of pinned conversations exceeds the allowed limit of 5.");
    expectError(await e.put("/v3/conversations/pinned", { pinnedConversations: [{}] }), 400, "ERR_BAD_REQUEST");
    expectError(await e.put("/v3/conversations/pinned", { pinnedConversations: [{ uid: "b", guid: "g" }] }), 400, "ERR_BAD_REQUEST");
    expectError(await e.put("/v3/conversations/pinned", {}), 400, "ERR_BAD_REQUEST");
    expectError(await e.put("/v3/conversations/pinned", { pinnedConversations: [{ uid: "ghost" }] }), 404, "ERR_UID_NOT_FOUND");
    expect((await e.get("/v3/conversations/pinned")).body.data).toEqual([]);
    await e.put("/v3/conversations/pinned", { pinnedConversations: [{ guid: "g" }] });
    await e.post("/v3/users/b/conversation/pin", undefined, as("a"));
    const app = [...e.store.apps.values()][0];
    const saved = app.snapshot();
    app.load({ ...saved, pinnedConversations: [], conversations: [] });
    expect((await e.get("/v3/conversations/pinned")).body.data).toEqual([]);
    app.load(saved);
    expect((await e.get("/v3/conversations/pinned")).body.data).toHaveLength(1);
    expect(app.conversations.state("a", "a_user_b")?.pinnedAt).toBe(2_000_000_000);
  });
});

describe("reset with preserveOrder", () => {
  it("keeps the emptied conversation in its place until the next message; without it the conversation leaves", async () => {
    await text("b", "one", "a");
    await text("c", "two", "a");
    await text("d", "three", "a");
    expect(await convIds("a")).toEqual(["a_user_d", "a_user_c", "a_user_b", "group_g"]);
    expect((await e.del("/v3/users/c/conversation", { preserveOrder: true }, as("a"))).status).toBe(200);
    expect(await convIds("a")).toEqual(["a_user_d", "a_user_c", "a_user_b", "group_g"]);
    const kept = (await e.get("/v3/conversations", as("a"))).body.data[1];
    expect(kept).toMatchObject({ conversationId: "a_user_c", unreadMessageCount: "0", updatedAt: 2_000_000_002 });
    expect(kept).not.toHaveProperty("lastMessage");
    expect((await e.del("/v3/groups/g/conversation", { preserveOrder: true }, as("a"))).status).toBe(200);
    expect(await convIds("a")).toEqual(["a_user_d", "a_user_c", "a_user_b", "group_g"]);
    expect((await e.del("/v3/groups/g/conversation", { preserveOrder: false }, as("a"))).status).toBe(200);
    expect((await e.del("/v3/users/d/conversation", {}, as("a"))).status).toBe(200);
    expect(await convIds("a")).toEqual(["a_user_c", "a_user_b"]);
    await text("a", "back", "b");
    expect(await convIds("a")).toEqual(["a_user_b", "a_user_c"]);
    expectError(await e.del("/v3/users/b/conversation", { preserveOrder: "maybe" }, as("a")), 400, "ERR_BAD_REQUEST");
  });
});
