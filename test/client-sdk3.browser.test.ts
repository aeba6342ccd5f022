import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUTH_KEY } from "./helpers.js";
import { connected, event, SdkSite } from "./sdk-browser.helpers.js";

/**
 * The older SDK generation, `@cometchat-pro/chat` 3.0.13 (a dev dependency), unmodified in Chromium against the
 * emulator with `--https`, configured as for SDK 4: login, send, receive in real time, and paging.
 */

let site: SdkSite;
let ann: Page;
let ben: Page;

beforeAll(async () => {
  site = await SdkSite.start("@cometchat-pro/chat");
  for (const [uid, name] of [["ann", "Ann"], ["ben", "Ben"]]) await site.rest("POST", "/users", { uid, name });
});

afterAll(async () => {
  await site?.close();
});

describe("SDK 3.x (@cometchat-pro/chat) against the emulator", () => {
  it("logs in with an auth token and with uid + Auth Key, sends and receives in real time", async () => {
    ann = await site.open(["onTextMessageReceived"]);
    ben = await site.open(["onTextMessageReceived"]);
    const token = (await site.rest("POST", "/users/ann/auth_tokens", {})).data.authToken;
    expect(await ann.evaluate((t) => (window as any).CometChat.login(t).then((u: any) => u.getUid()), token)).toBe("ann");
    expect(await ben.evaluate((key) => (window as any).CometChat.login("ben", key).then((u: any) => u.getUid()), AUTH_KEY)).toBe("ben");
    await Promise.all([connected(ann), connected(ben)]);
    const sent = await ann.evaluate(() => {
      const C = (window as any).CometChat;
      return C.sendMessage(new C.TextMessage("ben", "hello from 3.x", C.RECEIVER_TYPE.USER)).then((m: any) => m.getText());
    });
    expect(sent).toBe("hello from 3.x");
    expect(await event(ben, "onTextMessageReceived", "x.text === 'hello from 3.x'")).toMatchObject({ sender: { uid: "ann" }, receiverId: "ben" });
  });

  it("pages back through a conversation with fetchPrevious, and stops at its start", async () => {
    for (const text of ["m1", "m2", "m3", "m4"]) await site.rest("POST", "/messages", { receiver: "ben", receiverType: "user", category: "message", type: "text", data: { text } }, "ann");
    const pages = await ben.evaluate(async () => {
      const C = (window as any).CometChat;
      const request = new C.MessagesRequestBuilder().setUID("ann").setLimit(2).build();
      const out: string[][] = [];
      for (let i = 0; i < 4; i++) out.push((await request.fetchPrevious()).map((m: any) => m.getText()));
      return out;
    });
    expect(pages).toEqual([["m3", "m4"], ["m1", "m2"], ["hello from 3.x"], []]);
    const users = await ben.evaluate(async () => {
      const request = new (window as any).CometChat.UsersRequestBuilder().setLimit(2).build();
      return [(await request.fetchNext()).length, (await request.fetchNext()).length];
    });
    expect(users[0]).toBe(2);
  });

  it("lists conversations, groups and members, counts unread messages, adds members and reads receipts", async () => {
    const seen = await ben.evaluate(async () => {
      const C = (window as any).CometChat;
      const conversations = await new C.ConversationsRequestBuilder().setLimit(10).build().fetchNext();
      const unread = await C.getUnreadMessageCountForUser("ann");
      await C.createGroup(new C.Group("club", "Club", C.GROUP_TYPE.PRIVATE, ""));
      const added = await C.addMembersToGroup("club", [new C.GroupMember("ann", C.GROUP_MEMBER_SCOPE.PARTICIPANT)], []);
      const groups = await new C.GroupsRequestBuilder().setLimit(10).build().fetchNext();
      const members = await new C.GroupMembersRequestBuilder("club").setLimit(10).build().fetchNext();
      const last = conversations[0].getLastMessage();
      await C.markAsRead(last);
      return {
        conversations: conversations.map((c: any) => c.getConversationWith().getUid?.()),
        unread,
        added,
        groups: groups.map((g: any) => g.getGuid()),
        members: members.map((m: any) => m.getUid()).sort(),
        lastId: last.getId(),
      };
    });
    expect(seen.conversations).toEqual(["ann"]);
    expect(seen.unread).toEqual({ ann: 5 });
    expect(seen.added).toEqual({ ann: "success" });
    expect(seen.groups).toContain("club");
    expect(seen.members).toEqual(["ann", "ben"]);
    const receipts = await ann.evaluate(async (id) => (await (window as any).CometChat.getMessageReceipts(id)).map((r: any) => r.getReceiptType()), seen.lastId);
    expect(receipts).toEqual(["read"]);
    expect(await ben.evaluate(() => (window as any).CometChat.getUnreadMessageCountForUser("ann"))).toEqual({});
    expect(site.problems).toEqual([]);
  });
});
