import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUTH_KEY } from "./helpers.js";
import { connected, event, SdkSite } from "./sdk-browser.helpers.js";

/**
 * The unmodified official SDK (`@cometchat/chat-sdk-javascript`, a dev dependency) in Chromium against the
 * emulator with `--https`: pages of a local origin load the SDK's own bundle and point its host overrides at the
 * emulator, as the README's recipe says. Alice logs in with an auth token, Bob with uid + Auth Key in a second
 * browser context, Carol (not in the group) in a third. Steps in order.
 */

let site: SdkSite;
let alice: Page;
let bob: Page;
let carol: Page;

const LISTENERS = [
  "onTextMessageReceived",
  "onMessageEdited",
  "onMessageDeleted",
  "onMessageReactionAdded",
  "onMessagesRead",
  "onTypingStarted",
  "onMessagesDeliveredToAll",
  "onMessagesReadByAll",
  "onInteractionGoalCompleted",
  "onMessageModerated",
];
const open = () => site.open(LISTENERS);

beforeAll(async () => {
  site = await SdkSite.start("@cometchat/chat-sdk-javascript");
  for (const [uid, name] of [["alice", "Alice"], ["bob", "Bob"], ["carol", "Carol"]]) await site.rest("POST", "/users", { uid, name });
  await site.rest("POST", "/groups", { guid: "team", name: "Team", type: "private", owner: "alice", members: { participants: ["bob"] } });
});

afterAll(async () => {
  await site?.close();
});

describe("the official JavaScript SDK against the emulator", () => {
  it("logs in with an auth token and with uid + Auth Key, and chats in real time", async () => {
    alice = await open();
    bob = await open();
    const token = (await site.rest("POST", "/users/alice/auth_tokens", {})).data.authToken;
    const who = await alice.evaluate((t) => (window as any).CometChat.login(t).then((u: any) => u.getUid()), token);
    expect(who).toBe("alice");
    await bob.evaluate((key) => (window as any).CometChat.login("bob", key), AUTH_KEY);
    await Promise.all([connected(alice), connected(bob)]);

    await alice.evaluate(() => {
      const C = (window as any).CometChat;
      return C.sendMessage(new C.TextMessage("bob", "hello bob", C.RECEIVER_TYPE.USER));
    });
    const got = await event(bob, "onTextMessageReceived", "x.text === 'hello bob'");
    expect(got).toMatchObject({ text: "hello bob", sender: { uid: "alice" }, receiverId: "bob" });

    // A backend's send on the REST plane reaches both sides.
    await site.rest("POST", "/messages", { receiver: "bob", receiverType: "user", category: "message", type: "text", data: { text: "from the backend" } }, "alice");
    await event(bob, "onTextMessageReceived", "x.text === 'from the backend'");
    await event(alice, "onTextMessageReceived", "x.text === 'from the backend'");
  });

  it("walks two pages back with fetchPrevious, then stops", async () => {
    for (const text of ["one", "two"]) await site.rest("POST", "/messages", { receiver: "alice", receiverType: "user", category: "message", type: "text", data: { text } }, "bob");
    const pages = await bob.evaluate(async () => {
      const C = (window as any).CometChat;
      const request = new C.MessagesRequestBuilder().setUID("alice").setLimit(2).build();
      const out: string[][] = [];
      for (let i = 0; i < 3; i++) out.push((await request.fetchPrevious()).map((m: any) => m.getText()));
      return out;
    });
    expect(pages).toEqual([["one", "two"], ["hello bob", "from the backend"], []]);
  });

  it("edits, deletes, reacts, reads and types across the two sides", async () => {
    const id = await alice.evaluate(async () => {
      const C = (window as any).CometChat;
      const sent = await C.sendMessage(new C.TextMessage("bob", "to be changed", C.RECEIVER_TYPE.USER));
      const edit = new C.TextMessage("bob", "changed", C.RECEIVER_TYPE.USER);
      edit.setId(sent.getId());
      await C.editMessage(edit);
      return sent.getId();
    });
    expect((await event(bob, "onMessageEdited", `x.id == ${id}`)).text).toBe("changed");
    await bob.evaluate((id) => (window as any).CometChat.addReaction(id, "👍"), id);
    expect(await event(alice, "onMessageReactionAdded")).toMatchObject({ reaction: { reaction: "👍", uid: "bob" } });
    const read = await bob.evaluate(async (id) => {
      const C = (window as any).CometChat;
      const message = await C.getMessageDetails(id);
      await C.markAsRead(message);
      return message.getId();
    }, id);
    expect((await event(alice, "onMessagesRead")).messageId).toBe(String(read));
    await alice.evaluate((id) => (window as any).CometChat.deleteMessage(id), id);
    await event(bob, "onMessageDeleted", `x.id == ${id}`);
    await alice.evaluate(() => {
      const C = (window as any).CometChat;
      C.startTyping(new C.TypingIndicator("bob", C.RECEIVER_TYPE.USER));
    });
    expect(await event(bob, "onTypingStarted")).toMatchObject({ sender: { uid: "alice" }, receiverId: "bob" });
  });

  // The steps that failed before issue 36: the UI kit's categories, unread counts, receipts, adding members,
  // private groups and ownership.
  it("lists with every SDK category, counts unread messages and reads a message's receipts", async () => {
    for (const text of ["unread one", "unread two"]) await site.rest("POST", "/messages", { receiver: "bob", receiverType: "user", category: "message", type: "text", data: { text } }, "alice");
    const counts = await bob.evaluate(async () => {
      const C = (window as any).CometChat;
      return { all: await C.getUnreadMessageCount(), user: await C.getUnreadMessageCountForUser("alice"), users: await C.getUnreadMessageCountForAllUsers(), groups: await C.getUnreadMessageCountForAllGroups() };
    });
    expect(counts.user.alice).toBeGreaterThanOrEqual(2);
    expect(counts.all.users.alice).toBe(counts.user.alice);
    expect(counts.users).toEqual(counts.all.users);
    expect(counts.groups).toEqual({});
    const listed = await bob.evaluate(async () => {
      const C = (window as any).CometChat;
      const request = new C.MessagesRequestBuilder().setUID("alice").setLimit(30).setCategories(["message", "action", "call", "custom", "card", "agentic"]).hideReplies(true).build();
      const page = await request.fetchPrevious();
      const last = page[page.length - 1];
      await C.markAsRead(last);
      return { texts: page.map((m: any) => m.getText?.()), id: last.getId() };
    });
    expect(listed.texts.slice(-2)).toEqual(["unread one", "unread two"]);
    await event(alice, "onMessagesRead", `x.messageId == ${listed.id}`);
    const receipts = await alice.evaluate(async (id) => (await (window as any).CometChat.getMessageReceipts(id)).map((r: any) => ({ type: r.getReceiptType(), uid: r.getSender().getUid() })), listed.id);
    expect(receipts).toEqual([{ type: "read", uid: "bob" }]);
    expect(await bob.evaluate(() => (window as any).CometChat.getUnreadMessageCountForUser("alice"))).toEqual({});
  });

  it("keeps a private group from outsiders until they are added, and hands it over", async () => {
    const guids = () => bob.evaluate(async () => (await new (window as any).CometChat.GroupsRequestBuilder().setLimit(30).build().fetchNext()).map((g: any) => g.getGuid()));
    await alice.evaluate(() => {
      const C = (window as any).CometChat;
      return C.createGroup(new C.Group("crew", "Crew", C.GROUP_TYPE.PRIVATE, ""));
    });
    expect(await guids()).not.toContain("crew");
    const added = await alice.evaluate(() => {
      const C = (window as any).CometChat;
      return C.addMembersToGroup("crew", [new C.GroupMember("bob", C.GROUP_MEMBER_SCOPE.PARTICIPANT)], []);
    });
    expect(added).toEqual({ bob: "success" });
    expect(await guids()).toContain("crew");
    const handed = await alice.evaluate(() => (window as any).CometChat.transferGroupOwnership("crew", "bob"));
    expect(handed).toMatch(/bob/);
    expect((await site.rest("GET", "/groups/crew")).data.owner).toBe("bob");
  });

  // sdk/javascript/interactive-messages.mdx: onInteractionGoalCompleted once Bob's interactions meet the goal.
  it("tells Alice and Bob when Bob completes an interactive form's goal", async () => {
    const form = {
      receiver: "bob",
      receiverType: "user",
      category: "interactive",
      type: "form",
      data: {
        interactiveData: { title: "Survey", formFields: [], submitElement: { elementType: "button", elementId: "submitButton", buttonText: "Send", action: { actionType: "urlNavigation", url: "https://x.io" } } },
        interactionGoal: { type: "anyOf", elementIds: ["submitButton"] },
      },
    };
    const id = (await site.rest("POST", "/messages", form, "alice")).data.id;
    await bob.evaluate((id) => (window as any).CometChat.markAsInteracted(Number(id), "submitButton"), id);
    for (const page of [alice, bob])
      expect(await event(page, "onInteractionGoalCompleted", `x.messageId == ${id}`)).toMatchObject({ receiverId: "bob", interactions: [{ elementId: "submitButton" }] });
  });

  // sdk/javascript/ai-moderation.mdx: sendMessage resolves PENDING, then onMessageModerated brings the verdict.
  it("answers a screened send as pending, then tells Alice the verdict with onMessageModerated", async () => {
    const rule = { id: "no-darn", name: "No darn", enabled: true, action: ["blockMessage"], conditions: [{ entity: "message", operand: "text", operator: "contains", category: "word", value: ["darn"] }] };
    expect((await site.rest("POST", "/moderation/rules", rule)).data.id).toBe("no-darn");
    const sent = await alice.evaluate(async () => {
      const C = (window as any).CometChat;
      const m = await C.sendMessage(new C.TextMessage("bob", "well darn it", C.RECEIVER_TYPE.USER));
      return { id: m.getId(), status: m.getData().moderation?.status };
    });
    expect(sent.status).toBe("pending");
    expect(await event(alice, "onMessageModerated", `x.id == ${sent.id}`)).toMatchObject({ data: { moderation: { status: "disapproved" } } });
    await site.rest("DELETE", "/moderation/rules/no-darn");
  });

  it("delivers a group message to members, not to outsiders, and tells Alice when Bob logs out", async () => {
    carol = await open();
    const token = (await site.rest("POST", "/users/carol/auth_tokens", {})).data.authToken;
    await carol.evaluate((t) => (window as any).CometChat.login(t), token);
    await connected(carol);
    const id = await alice.evaluate(async () => {
      const C = (window as any).CometChat;
      return (await C.sendMessage(new C.TextMessage("team", "team only", C.RECEIVER_TYPE.GROUP))).getId();
    });
    await event(bob, "onTextMessageReceived", "x.text === 'team only'");
    // Bob is the team's only other member: his receipts complete the message's (delivery-read-receipts.mdx).
    await bob.evaluate((id) => {
      const C = (window as any).CometChat;
      C.markAsDelivered(id, "team", C.RECEIVER_TYPE.GROUP, "alice");
      C.markAsRead(id, "team", C.RECEIVER_TYPE.GROUP, "alice");
    }, id);
    expect(await event(alice, "onMessagesDeliveredToAll", `x.messageId == ${id}`)).toMatchObject({ receiptType: "deliveredToAll", receiver: "team" });
    expect(await event(alice, "onMessagesReadByAll", `x.messageId == ${id}`)).toMatchObject({ receiptType: "readByAll", receiver: "team" });
    await carol.waitForTimeout(200);
    expect(await carol.evaluate(() => (window as any).events.filter((e: any) => e.name === "onTextMessageReceived").length)).toBe(0);

    await event(alice, "onUserOnline", "x.uid === 'carol'");
    await bob.evaluate(() => (window as any).CometChat.logout());
    // The last session closing sets "last seen" (sdk/javascript/user-presence: lastActiveAt).
    const offline = await event(alice, "onUserOffline", "x.uid === 'bob'");
    expect(offline).toMatchObject({ uid: "bob", status: "offline", lastActiveAt: expect.any(Number) });
    expect((await site.rest("GET", "/users/bob")).data).toMatchObject({ status: "offline", lastActiveAt: offline.lastActiveAt });
    expect(site.problems).toEqual([]);
  });

  it("updates the logged-in user's own profile with updateCurrentUserDetails, but not their role", async () => {
    await site.rest("POST", "/roles", { role: "vip", name: "VIP" });
    const back = await alice.evaluate(async () => {
      const C = (window as any).CometChat;
      // As an app does: the logged-in user (which carries role, status and lastActiveAt too), changed and sent back.
      const me = await C.getLoggedinUser();
      me.setName("Alice Liddell");
      me.setStatusMessage("down the rabbit hole");
      me.setMetadata({ city: "Oxford" });
      me.setTags(["reader"]);
      me.setRole("vip");
      const u = await C.updateCurrentUserDetails(me);
      return { name: u.getName(), statusMessage: u.getStatusMessage(), metadata: u.getMetadata(), tags: u.getTags(), role: u.getRole() };
    });
    const changed = { name: "Alice Liddell", statusMessage: "down the rabbit hole", metadata: { city: "Oxford" }, tags: ["reader"] };
    expect(back).toEqual({ ...changed, role: "default" });
    expect((await site.rest("GET", "/users/alice?withTags=true")).data).toMatchObject({ ...changed, role: "default" });
    expect(await carol.evaluate(async () => (await (window as any).CometChat.getUser("alice")).getName())).toBe("Alice Liddell");
    // What the platform refuses, the SDK rejects with the platform's error.
    const refused = await alice.evaluate(async () => {
      const C = (window as any).CometChat;
      const me = new C.User("alice");
      me.setName("x".repeat(101));
      return C.updateCurrentUserDetails(me).then(() => "updated", (e: any) => e.code);
    });
    expect(refused).toBe("ERR_BAD_REQUEST");
    expect((await site.rest("GET", "/users/alice")).data.name).toBe("Alice Liddell");
  });

  it("shows who is online and the frames in the inspector's Realtime view", async () => {
    const inspector = await (await site.browser.newContext({ ignoreHTTPSErrors: true })).newPage();
    site.contexts.push(inspector.context());
    inspector.setDefaultTimeout(5000);
    await inspector.goto(`${site.emu.url}/_emulator/ui#/realtime`);
    await inspector.locator('tr[data-session="alice"]').waitFor();
    await inspector.locator('tr[data-session="carol"]').waitFor();
    expect(await inspector.locator('tr[data-session="bob"]').count()).toBe(0);
    await inspector.locator('tr[data-frame="typing_indicator"]').first().click();
    await inspector.locator(".drawer", { hasText: "started" }).waitFor();
  });
});
