import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { emulator, expectError, type TestEmulator } from "./helpers.js";
import { pollDeliveries, useReceiver } from "./receiver.helpers.js";

/** A real local receiver standing in for a bot's server: records every POST; `answer` decides each reply. */
const rx = useReceiver("/bot", (_, res) => res.end());

let e: TestEmulator;
beforeEach(async () => {
  e = await emulator();
});
afterEach(async () => {
  e.emulator.webhooks.close();
});

const user = (uid: string) => e.post("/v3/users", { uid, name: uid });
const makeBot = async (uid: string, extra: Record<string, unknown> = {}) => {
  await user(uid);
  const r = await e.post("/v3/bots", { uid, webhookURL: rx.url, enabled: true, ...extra });
  expect(r.status).toBe(200);
  return r.body.data;
};
const relays = (q = "") => e.get(`/_emulator/bots/deliveries${q}`, { key: null });
const waitRelays = (n: number, q = "") => pollDeliveries(() => relays(`?status=delivered${q}`), n);
const toGroup = (text: string, from = "superhero1") =>
  e.post("/v3/messages", { receiver: "supergroup", receiverType: "group", data: { text } }, { onBehalfOf: from });

describe("bots REST API", () => {
  it("creates a bot for an existing user with the documented defaults, and gets, lists, updates, deletes it", async () => {
    await user("helper-bot");
    const created = await e.post("/v3/bots", { uid: "Helper-Bot", webhookURL: rx.url });
    expect(created.status).toBe(200);
    // enabled defaults to false, groupChatSetting to none; empty and false properties are left out.
    expect(created.body.data).toEqual({ uid: "helper-bot", webhookURL: rx.url, groupChatSetting: "none", createdAt: expect.any(Number) });
    expect((await e.get("/v3/bots/helper-bot")).body.data).toEqual(created.body.data);

    const updated = await e.put("/v3/bots/HELPER-BOT", { enabled: true, groupChatSetting: "mentionedMessages", useBasicAuth: true, username: "u", password: "p" });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ enabled: true, groupChatSetting: "mentionedMessages", useBasicAuth: true, username: "u", password: "p", updatedAt: expect.any(Number) });
    // Turning basic auth off keeps the stored credentials (and the API still returns them).
    const off = await e.put("/v3/bots/helper-bot", { useBasicAuth: false });
    expect(off.body.data).not.toHaveProperty("useBasicAuth");
    expect(off.body.data).toMatchObject({ username: "u", password: "p" });

    await makeBot("another-bot");
    const list = await e.get("/v3/bots");
    expect(list.body.data.map((b: any) => b.uid)).toEqual(["another-bot", "helper-bot"]);
    expect(list.body.meta.pagination).toEqual({ total: 2, count: 2, per_page: 100, current_page: 1, total_pages: 1 });
    expect((await e.get("/v3/bots?searchKey=hel")).body.data.map((b: any) => b.uid)).toEqual(["helper-bot"]);
    expect((await e.get("/v3/bots?perPage=1&page=2")).body.data.map((b: any) => b.uid)).toEqual(["helper-bot"]);
    expect((await e.get("/v3/bots?isAIBot=true")).body.data).toEqual([]);

    // A bot is a user: it shows in user lists as the user it is.
    const users = await e.get("/v3/users?searchKey=helper");
    expect(users.body.data).toEqual([expect.objectContaining({ uid: "helper-bot", name: "helper-bot" })]);

    const gone = await e.del("/v3/bots/helper-bot");
    expect(gone.body).toEqual({ data: { success: true, message: "The bot with UID helper-bot has been deleted." } });
    expectError(await e.get("/v3/bots/helper-bot"), 404, "ERR_BOT_NOT_FOUND");
    // The user stays.
    expect((await e.get("/v3/users/helper-bot")).status).toBe(200);
  });

  it("validates bodies and refuses unknown users, unknown bots and duplicates", async () => {
    const bad = expectError(await e.post("/v3/bots", { webhookURL: "not a rx.url", groupChatSetting: "some", enabled: "maybe" }), 400, "ERR_BAD_REQUEST");
    expect(Object.keys(bad.details!).sort()).toEqual(["enabled", "groupChatSetting", "uid", "webhookURL"]);
    expect(bad.details!.uid).toEqual(["The uid field is required."]);
    expectError(await e.post("/v3/bots", { uid: "superhero1" }), 400, "ERR_BAD_REQUEST");
    expectError(await e.post("/v3/bots", { uid: "x".repeat(51), webhookURL: rx.url }), 400, "ERR_BAD_REQUEST");
    expectError(await e.post("/v3/bots", { uid: "superhero1", webhookURL: `${rx.url}/${"a".repeat(255)}` }), 400, "ERR_BAD_REQUEST");
    const creds = expectError(await e.post("/v3/bots", { uid: "superhero1", webhookURL: rx.url, useBasicAuth: true }), 400, "ERR_BAD_REQUEST");
    expect(creds.details).toEqual({
      username: ["The username field is required when use basic auth is true."],
      password: ["The password field is required when use basic auth is true."],
    });
    expectError(await e.post("/v3/bots", { uid: "nobody", webhookURL: rx.url }), 404, "ERR_UID_NOT_FOUND");
    expect((await e.post("/v3/bots", { uid: "superhero5", webhookURL: rx.url, username: "dropped", password: "dropped" })).body.data).not.toHaveProperty("username");
    expectError(await e.post("/v3/bots", { uid: "superhero5", webhookURL: rx.url }), 400, "ERR_BOT_ALREADY_EXISTS");
    expectError(await e.put("/v3/bots/superhero1", { enabled: true }), 404, "ERR_BOT_NOT_FOUND");
    expectError(await e.del("/v3/bots/superhero1"), 404, "ERR_BOT_NOT_FOUND");
    expectError(await e.put("/v3/bots/superhero5", { groupChatSetting: "everything" }), 400, "ERR_BAD_REQUEST");
    expectError(await e.get("/v3/bots?perPage=1001"), 400, "ERR_BAD_REQUEST");
    // Nothing changed by the refused calls.
    expect((await e.get("/v3/bots")).body.data.map((b: any) => b.uid)).toEqual(["superhero5"]);
    // A deleted user is no bot any more.
    await e.del("/v3/users/superhero5", { permanent: true });
    expectError(await e.get("/v3/bots/superhero5"), 404, "ERR_BOT_NOT_FOUND");
  });

  it("allows 25 bot users per app and refuses the 26th with the plan-quota code", async () => {
    for (let i = 0; i < 25; i++) await makeBot(`bot-${i}`);
    await user("bot-25");
    const r = expectError(await e.post("/v3/bots", { uid: "bot-25", webhookURL: rx.url }), 403, "ERR_PLAN_QUOTA_RESTRICTION");
    expect(r.message).toContain("25 bot users");
    await e.del("/v3/bots/bot-0");
    expect((await e.post("/v3/bots", { uid: "bot-25", webhookURL: rx.url })).status).toBe(200);
  });

  it("keeps bots in the app's state: snapshots, state export and resets", async () => {
    await makeBot("keep-bot");
    const state = (await e.get("/_emulator/state", { key: null })).body;
    expect(state.apps[0].bots).toEqual([expect.objectContaining({ uid: "keep-bot", enabled: true })]);
    await e.post("/_emulator/snapshots/one", {}, { key: null });
    await e.del("/v3/bots/keep-bot");
    await e.post("/_emulator/snapshots/one/restore", {}, { key: null });
    expect((await e.get("/v3/bots/keep-bot")).status).toBe(200);
    expect((await e.put("/_emulator/state", state, { key: null })).status).toBe(200);
    expect((await e.get("/v3/bots/keep-bot")).status).toBe(200);
    await e.post("/_emulator/reset", {}, { key: null });
    expectError(await e.get("/v3/bots/keep-bot"), 404, "ERR_BOT_NOT_FOUND");
  });
});

describe("POST /bots/{uid}/messages", () => {
  it("sends as the bot with the send operation's bodies, checks and effects", async () => {
    await makeBot("echo-bot");
    const r = await e.post("/v3/bots/echo-bot/messages", { receiver: "superhero1", receiverType: "user", category: "message", type: "text", data: { text: "hello" } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ sender: "echo-bot", receiver: "superhero1", conversationId: "echo-bot_user_superhero1", data: { text: "hello" } });
    // The conversation and the unread count of the receiver follow, as for any message.
    const conv = await e.get("/v3/conversations/echo-bot_user_superhero1", { onBehalfOf: "superhero1" });
    expect(conv.body.data).toMatchObject({ unreadMessageCount: "1", lastMessage: { id: r.body.data.id } });
    // Several receivers, as POST /messages allows.
    const many = await e.post("/v3/bots/echo-bot/messages", { category: "message", type: "text", data: { text: "all" }, multipleReceivers: { uids: ["superhero2", "nobody"] } });
    expect(many.body.data.uids.superhero2).toMatchObject({ sender: "echo-bot" });
    expect(many.body.data.uids.nobody).toMatchObject({ success: false, error: { code: "ERR_UID_NOT_FOUND" } });
    // Same errors as POST /messages.
    expectError(await e.post("/v3/bots/echo-bot/messages", { receiverType: "user", data: { text: "x" } }), 400, "ERR_EMPTY_RECEIVER");
    expectError(await e.post("/v3/bots/echo-bot/messages", { receiver: "superhero1", receiverType: "user", data: {} }), 400, "ERR_EMPTY_MESSAGE_TEXT");
    expectError(await e.post("/v3/bots/echo-bot/messages", { receiver: "supergroup", receiverType: "group", data: { text: "x" } }), 403, "ERR_GROUP_NOT_JOINED");
    // The send is one event of the store's stream, as for POST /messages (webhooks and realtime subscribe to it).
    const events: string[] = [];
    e.store.events.subscribe((ev) => events.push(`${ev.trigger}:${ev.message?.sender}`));
    expect((await e.post("/v3/bots/echo-bot/messages", { receiver: "superhero2", receiverType: "user", data: { text: "event" } })).status).toBe(200);
    expect(events).toEqual(["message_sent:echo-bot"]);
    // Only bots may: users that are not bots are not found.
    expectError(await e.post("/v3/bots/superhero1/messages", { receiver: "superhero2", receiverType: "user", data: { text: "x" } }), 404, "ERR_BOT_NOT_FOUND");
  });
});

describe("bot relays", () => {
  it("relays one-on-one messages to an enabled bot with basic auth, and nothing while disabled", async () => {
    await makeBot("dm-bot", { useBasicAuth: true, username: "bot-user", password: "s3cret" });
    const sent = await e.post("/v3/messages", { receiver: "dm-bot", receiverType: "user", data: { text: "hi bot" } }, { onBehalfOf: "superhero1" });
    const [d] = await waitRelays(1);
    expect(d).toMatchObject({ kind: "bot", bot: "dm-bot", event: "after_message", status: "delivered", attempts: [{ status: 200 }] });
    expect(rx.received).toHaveLength(1);
    expect(rx.received[0].headers.authorization).toBe(`Basic ${Buffer.from("bot-user:s3cret").toString("base64")}`);
    expect(rx.received[0].body).toEqual({ trigger: "after_message", data: expect.objectContaining({ id: sent.body.data.id, sender: "superhero1", receiver: "dm-bot", receiverType: "user" }), appId: expect.any(String) });
    expect(rx.received[0].body.data.data.entities.sender.entity.uid).toBe("superhero1");

    // Messages to other users and the bot's own messages are not relayed; nor anything while disabled.
    await e.post("/v3/messages", { receiver: "superhero2", receiverType: "user", data: { text: "not for the bot" } }, { onBehalfOf: "superhero1" });
    await e.post("/v3/bots/dm-bot/messages", { receiver: "superhero1", receiverType: "user", data: { text: "from the bot" } });
    await e.put("/v3/bots/dm-bot", { enabled: false, useBasicAuth: false });
    await e.post("/v3/messages", { receiver: "dm-bot", receiverType: "user", data: { text: "while disabled" } }, { onBehalfOf: "superhero1" });
    await e.put("/v3/bots/dm-bot", { enabled: true });
    await e.post("/v3/messages", { receiver: "dm-bot", receiverType: "user", data: { text: "again" } }, { onBehalfOf: "superhero2" });
    await waitRelays(2);
    expect(rx.received.map((r) => r.body.data.data.text)).toEqual(["hi bot", "again"]);
    expect(rx.received[1].headers.authorization).toBeUndefined();
    // Filters of the delivery log; webhooks' log shows the same entries (one log).
    expect((await relays("?bot=nobody")).body.deliveries).toEqual([]);
    expect((await e.get("/_emulator/webhooks/deliveries?kind=bot", { key: null })).body.deliveries).toHaveLength(2);
    expectError(await relays("?status=lost"), 400, "ERR_BAD_REQUEST");
  });

  it("selects group messages by groupChatSetting", async () => {
    const settings = ["allMessages", "slashedMessages", "mentionedMessages", "none"];
    for (const s of settings) {
      await makeBot(`g-${s.toLowerCase()}`, { groupChatSetting: s });
      await e.post("/v3/groups/supergroup/members", { participants: [`g-${s.toLowerCase()}`] });
    }
    // Not a member: relays nothing from the group whatever its setting.
    await makeBot("outsider", { groupChatSetting: "allMessages" });
    await toGroup("plain words");
    await toGroup("/help me");
    await toGroup("hey <@uid:g-mentionedmessages> look");
    await waitRelays(5);
    await new Promise((r) => setTimeout(r, 50));
    const got = (await relays()).body.deliveries.map((d: any) => `${d.bot}:${d.payload.data.data.text}`);
    expect(got.sort()).toEqual([
      "g-allmessages:/help me",
      "g-allmessages:hey <@uid:g-mentionedmessages> look",
      "g-allmessages:plain words",
      "g-mentionedmessages:hey <@uid:g-mentionedmessages> look",
      "g-slashedmessages:/help me",
    ]);
    expect(rx.received.every((r) => r.body.data.receiverType === "group" && r.body.data.receiver === "supergroup")).toBe(true);
  });

  /** The first relay once it has `status` and `attempts` attempts (a deadline, not a count: the machine may be busy). */
  const relayWith = async (status: string, attempts: number) => {
    for (const until = Date.now() + 10_000; Date.now() < until; ) {
      const [d] = (await relays()).body.deliveries;
      if (d?.status === status && d.attempts.length === attempts) return d;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`no ${status} relay with ${attempts} attempts`);
  };

  it("retries a failed relay twice, 10 s and 30 s later on the emulator clock", async () => {
    await makeBot("flaky-bot");
    e.clock.freeze();
    rx.answer = (_, res) => {
      res.statusCode = 503;
      res.end();
    };
    await e.post("/v3/messages", { receiver: "flaky-bot", receiverType: "user", data: { text: "are you there" } }, { onBehalfOf: "superhero1" });
    await relayWith("retrying", 1);
    e.clock.advance(9);
    await new Promise((r) => setTimeout(r, 50));
    expect(rx.received).toHaveLength(1);
    e.clock.advance(1);
    await relayWith("retrying", 2);
    rx.answer = (_, res) => res.end();
    e.clock.advance(30);
    const done = await relayWith("delivered", 3);
    expect(done.attempts.map((a: any) => a.at - done.attempts[0].at)).toEqual([0, 10_000, 40_000]);
    expect(done.attempts.map((a: any) => a.status)).toEqual([503, 503, 200]);
  });

  it("counts a callback that does not answer within 2 s as a failed attempt, to be retried", async () => {
    await makeBot("slow-bot");
    e.clock.freeze();
    rx.answer = () => {}; // never answers
    await e.post("/v3/messages", { receiver: "slow-bot", receiverType: "user", data: { text: "hello?" } }, { onBehalfOf: "superhero1" });
    const d = await relayWith("retrying", 1);
    expect(d.attempts).toEqual([{ at: expect.any(Number), error: "no answer within 2000 ms", durationMs: expect.any(Number) }]);
    expect(d.attempts[0].durationMs).toBeGreaterThanOrEqual(1900);
    expect(rx.received).toHaveLength(1);
  });

  it("runs a complete bot: it answers each relayed message through POST /bots/{uid}/messages", async () => {
    await makeBot("answer-bot");
    // The bot's server: replies 200 at once, then answers through the REST API (closing the loop).
    rx.answer = (r, res) => {
      res.end();
      const m = r.body.data;
      void e.post("/v3/bots/answer-bot/messages", { receiver: m.sender, receiverType: "user", data: { text: `you said: ${m.data.text}` } });
    };
    await e.post("/v3/messages", { receiver: "answer-bot", receiverType: "user", data: { text: "ping" } }, { onBehalfOf: "superhero3" });
    // `wait` long-polls the relay log; then the answer is in the user's conversation.
    const [d] = (await relays("?status=delivered&wait=3000")).body.deliveries;
    expect(d.payload.data.data.text).toBe("ping");
    for (let i = 0; i < 100; i++) {
      const list = await e.get("/v3/messages?conversationId=answer-bot_user_superhero3", { onBehalfOf: "superhero3" });
      if (list.body.data.length === 2) {
        expect(list.body.data.map((m: any) => `${m.sender}: ${m.data.text}`)).toEqual(["superhero3: ping", "answer-bot: you said: ping"]);
        return;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error("the bot never answered");
  });
});
