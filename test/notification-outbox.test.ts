import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { emulator, expectError, type TestEmulator } from "./helpers.js";

let e: TestEmulator;
beforeEach(async () => {
  e = await emulator();
  // Monday 2023-11-13 12:00 UTC.
  e.clock.freeze(Date.UTC(2023, 10, 13, 12, 0));
  await e.post(`${N}/push/v1/providers/fcm`, FCM);
});
afterEach(() => e.emulator.notifications.close());

const N = "/v3/notifications";
const FCM = { providerId: "fcm-main", serviceAccountCreds: { project_id: "p1", client_email: "sa@p1.test", private_key: "key0123456789" }, notificationInPayload: { android: { chat: true, call: true } } };
const patch = (path: string, body: unknown, opts = {}) => e.call("PATCH", path, { body, ...opts });
async function device(uid: string, token = `${uid}-phone`, extra: Record<string, unknown> = {}) {
  const authToken = (await e.post(`/v3/users/${uid}/auth_tokens`, { force: true })).body.data.authToken;
  const r = await e.post(`${N}/push/v1/tokens`, { platform: "fcm_android", fcmToken: token, authToken, ...extra });
  expect(r.status).toBe(200);
}
const say = (from: string, to: string, text: string, receiverType = "user") =>
  e.post("/v3/messages", { receiver: to, receiverType, data: { text } }, { onBehalfOf: from });
const outbox = async (q = "") => (await e.get(`/_emulator/notifications${q}`, { key: null })).body.notifications as any[];
const pushesTo = async (uid: string) => (await outbox(`?uid=${uid}&channel=push`)).filter((n) => n.provider !== "custom");

describe("the notification outbox", () => {
  it("B gets exactly one push for A's one-on-one message, with the rendered template and the FCM payload", async () => {
    await device("superhero2");
    const sent = await say("superhero1", "superhero2", "Hello <@uid:superhero3>!");
    const [n, ...rest] = await pushesTo("superhero2");
    expect(rest).toEqual([]);
    expect(n).toMatchObject({
      appId: "62c95aeb231ec058",
      uid: "superhero2",
      channel: "push",
      provider: "fcm",
      providerId: "fcm-main",
      tokenType: "fcm_android",
      pushToken: "superhero2-phone",
      event: "message_sent",
      trigger: "after_message",
      conversationId: "superhero1_user_superhero2",
      messageId: Number(sent.body.data.id),
      sender: "superhero1",
      receiver: "superhero2",
      receiverType: "user",
      title: "Iron Man",
      body: "Hello @Spiderman!",
      notificationTriggered: true,
      status: "sent",
    });
    expect(n.payload).toMatchObject({ token: "superhero2-phone", type: "fcm", notification: { title: "Iron Man", body: "Hello @Spiderman!" }, android: { priority: "high" } });
    expect(n.payload.data).toMatchObject({ title: "Iron Man", sender: "superhero1", receiverType: "user", tag: sent.body.data.id, type: "chat" });
    expect(JSON.parse(n.payload.data.message).id).toBe(sent.body.data.id);
    // The same through the programmatic API.
    expect((await e.notifications.waitFor({ uid: "superhero2", channel: "push" }, 100)).map((x) => x.id)).toEqual([n.id]);
    e.notifications.clear();
    expect(e.notifications.list()).toEqual([]);
  });

  it("honours a muted conversation until its `until` passes on the emulator clock", async () => {
    await device("superhero2");
    const until = e.clock.nowMs() + 60_000;
    await e.put(`${N}/v1/preferences/mute?uid=superhero2`, { conversations: [{ id: "superhero1", type: "oneOnOne", until }] });
    await say("superhero1", "superhero2", "muted");
    expect((await pushesTo("superhero2")).map((n) => [n.status, n.reason, n.notificationTriggered])).toEqual([["suppressed", "MUTE_PREFERENCE", false]]);
    e.clock.advance(61);
    await say("superhero1", "superhero2", "audible");
    expect((await pushesTo("superhero2")).map((n) => n.status)).toEqual(["suppressed", "sent"]);
  });

  it("honours a muted group, unless the app no longer lets users mute groups", async () => {
    await device("superhero2");
    await e.put(`${N}/v1/preferences/mute?uid=superhero2`, { conversations: [{ id: "supergroup", type: "group" }] });
    await say("superhero1", "supergroup", "muted", "group");
    await say("superhero1", "superhero2", "direct");
    await patch(`${N}/v1/settings`, { preferences: { mute: { mutedGroupsOverride: false } } });
    await say("superhero1", "supergroup", "heard", "group");
    expect((await pushesTo("superhero2")).map((n) => [n.receiverType, n.reason ?? n.status])).toEqual([
      ["group", "MUTE_PREFERENCE"],
      ["user", "sent"],
      ["group", "sent"],
    ]);
  });

  it("honours a preference turned off, and mentions-only (setting 3) for groups", async () => {
    await device("superhero2");
    await patch(`${N}/v1/preferences?uid=superhero2`, { oneOnOnePreferences: { oneOnOneMessages: 1 }, groupPreferences: { groupMessages: 3 } });
    await say("superhero1", "superhero2", "nope");
    await say("superhero1", "supergroup", "hi all", "group");
    await say("superhero1", "supergroup", "hey <@uid:superhero2>", "group");
    expect((await pushesTo("superhero2")).map((n) => [n.receiverType, n.reason ?? n.status])).toEqual([
      ["user", "MESSAGES_PREFERENCE"],
      ["group", "MESSAGES_PREFERENCE"],
      ["group", "sent"],
    ]);
    const mention = (await pushesTo("superhero2"))[2];
    expect(mention).toMatchObject({ title: "Iron Man @ Comic Heros' Hangout", body: "hey @Captain America", member: "superhero2", receiver: "supergroup" });
  });

  it("governs thread replies and quoted replies by their own settings", async () => {
    await device("superhero2");
    await patch(`${N}/v1/preferences?uid=superhero2`, { oneOnOnePreferences: { oneOnOneReplies: 1, oneOnOneQuotedReplies: 1 } });
    const parent = await say("superhero1", "superhero2", "parent");
    const reply = () => e.post(`/v3/messages/${parent.body.data.id}/thread`, { receiver: "superhero2", receiverType: "user", data: { text: "in thread" } }, { onBehalfOf: "superhero1" });
    const quote = () => e.post("/v3/messages", { receiver: "superhero2", receiverType: "user", quotedMessageId: parent.body.data.id, data: { text: "quoting" } }, { onBehalfOf: "superhero1" });
    const ids = [parent, await reply(), await quote()].map((r) => Number(r.body.data.id));
    expect((await pushesTo("superhero2")).map((n) => [n.messageId, n.reason ?? n.status])).toEqual([
      [ids[0], "sent"],
      [ids[1], "REPLIES_PREFERENCE"],
      [ids[2], "QUOTED_REPLIES_PREFERENCE"],
    ]);
    await patch(`${N}/v1/preferences?uid=superhero2`, { oneOnOnePreferences: { oneOnOneReplies: 2, oneOnOneQuotedReplies: 2 } });
    const more = [await reply(), await quote()].map((r) => Number(r.body.data.id));
    expect((await pushesTo("superhero2")).slice(3).map((n) => [n.messageId, n.body, n.status])).toEqual([
      [more[0], "in thread", "sent"],
      [more[1], "quoting", "sent"],
    ]);
  });

  it("honours do-not-disturb schedules in the user's timezone", async () => {
    // 12:00 UTC is 21:00 in Tokyo: outside a 09:00-18:00 Monday schedule there, inside it in London.
    await device("superhero2", "b-phone", { timezone: "Asia/Tokyo" });
    await device("superhero3", "c-phone", { timezone: "Europe/London" });
    for (const uid of ["superhero2", "superhero3"]) await patch(`${N}/v1/preferences?uid=${uid}`, { mutePreferences: { schedule: { monday: { from: 900, to: 1800, dnd: false } } } });
    await say("superhero1", "supergroup", "status?", "group");
    expect((await pushesTo("superhero2")).map((n) => n.reason)).toEqual(["SCHEDULE_PREFERENCE"]);
    expect((await pushesTo("superhero3")).map((n) => n.status)).toEqual(["sent"]);
    await patch(`${N}/v1/preferences?uid=superhero3`, { mutePreferences: { dnd: 2 } });
    await say("superhero1", "supergroup", "again", "group");
    expect((await pushesTo("superhero3")).map((n) => n.reason ?? n.status)).toEqual(["sent", "DND_PREFERENCE"]);
  });

  it("suppresses a message between two users when either blocked the other", async () => {
    await device("superhero2");
    await device("superhero3");
    await e.post("/v3/users/superhero2/blockedusers", { blockedUids: ["superhero1"] });
    await e.post("/v3/users/superhero1/blockedusers", { blockedUids: ["superhero3"] });
    await say("superhero1", "supergroup", "hello", "group");
    expect((await pushesTo("superhero2")).map((n) => [n.reason, n.notificationTriggered])).toEqual([["BLOCKED", false]]);
    expect((await pushesTo("superhero3")).map((n) => [n.reason, n.notificationTriggered])).toEqual([["BLOCKED", false]]);
    await e.del("/v3/users/superhero2/blockedusers", { blockedUids: ["superhero1"] });
    await say("superhero1", "supergroup", "again", "group");
    expect((await pushesTo("superhero2")).map((n) => n.reason ?? n.status)).toEqual(["BLOCKED", "sent"]);
  });

  it("never notifies the sender's own devices: each gets a SENDER record", async () => {
    await device("superhero1", "a-phone");
    await device("superhero1", "a-laptop");
    await device("superhero2");
    await say("superhero1", "superhero2", "direct");
    await say("superhero1", "supergroup", "hello", "group");
    expect((await pushesTo("superhero1")).map((n) => [n.pushToken, n.receiverType, n.reason, n.notificationTriggered])).toEqual([
      ["a-phone", "user", "SENDER", false],
      ["a-laptop", "user", "SENDER", false],
      ["a-phone", "group", "SENDER", false],
      ["a-laptop", "group", "SENDER", false],
    ]);
    expect((await pushesTo("superhero2")).map((n) => n.status)).toEqual(["sent", "sent"]);
  });

  it("notifies a group's members with the group title, and a one-on-one message's receiver only with the one-on-one title", async () => {
    await device("superhero2");
    await device("superhero3");
    await device("superhero4");
    await say("superhero1", "supergroup", "hello", "group");
    for (const uid of ["superhero2", "superhero3"])
      expect((await pushesTo(uid)).map((n) => [n.receiverType, n.receiver, n.member, n.title, n.status])).toEqual([
        ["group", "supergroup", uid, "Iron Man @ Comic Heros' Hangout", "sent"],
      ]);
    expect(await pushesTo("superhero4")).toEqual([]);
    await say("superhero1", "superhero4", "direct");
    expect((await pushesTo("superhero4")).map((n) => [n.receiverType, n.receiver, n.member, n.title, n.body])).toEqual([["user", "superhero4", undefined, "Iron Man", "direct"]]);
    expect(await pushesTo("superhero3")).toHaveLength(1);
  });

  it("mentions: the mention templates, mentions-only settings and bypassPreferencesForMentions past a mute", async () => {
    await device("superhero2");
    await patch(`${N}/v1/settings`, { preferences: { bypassPreferencesForMentions: true } });
    await e.put(`${N}/v1/preferences/mute?uid=superhero2`, { conversations: [{ id: "supergroup", type: "group" }] });
    await say("superhero1", "supergroup", "hi all", "group");
    await say("superhero1", "supergroup", "look <@uid:superhero2>", "group");
    await patch(`${N}/v1/preferences?uid=superhero2`, { usePrivacyTemplate: true });
    await say("superhero1", "supergroup", "again <@uid:superhero2>", "group");
    expect((await pushesTo("superhero2")).map((n) => [n.reason ?? n.status, n.title, n.body])).toEqual([
      // A suppressed record shows what would have been sent.
      ["MUTE_PREFERENCE", "Iron Man @ Comic Heros' Hangout", "hi all"],
      ["sent", "Iron Man @ Comic Heros' Hangout", "look @Captain America"],
      ["sent", "Iron Man @ Comic Heros' Hangout", "Mentioned you"],
    ]);
    // Without the bypass, a mention is muted like any message.
    await patch(`${N}/v1/settings`, { preferences: { bypassPreferencesForMentions: false } });
    await say("superhero1", "supergroup", "still <@uid:superhero2>", "group");
    expect((await pushesTo("superhero2")).at(-1).reason).toBe("MUTE_PREFERENCE");
  });

  it("notifies reactions on one's own messages, group events when turned on, and calls", async () => {
    await device("superhero1");
    await device("superhero2");
    const m = await say("superhero1", "supergroup", "react", "group");
    await e.post(`/v3/messages/${m.body.data.id}/reactions/👍`, undefined, { onBehalfOf: "superhero2" });
    const reaction = (await outbox("?uid=superhero1&event=message_reaction_added"))[0];
    expect(reaction).toMatchObject({ trigger: "message_reaction_added", body: "Reacted to your message: 👍", title: "Captain America", reactionSender: "superhero2", status: "sent" });
    await patch(`${N}/v1/settings`, { preferences: { group: { memberJoinedSetting: 2 } } });
    await e.post("/v3/groups/supergroup/members", { participants: ["superhero4"] });
    expect((await outbox("?uid=superhero2&event=group_member_added")).map((n) => n.reason)).toEqual(["GROUP_ACTIONS_PREFERENCE"]);
    await patch(`${N}/v1/preferences?uid=superhero2`, { groupPreferences: { groupMemberKicked: 2 } });
    await e.del("/v3/groups/supergroup/members/superhero4");
    expect((await outbox("?uid=superhero2&event=group_member_kicked")).map((n) => [n.trigger, n.title, n.body, n.status])).toEqual([
      ["after_group_members_kicked", "Comic Heros' Hangout", "System kicked Wolverine", "sent"],
    ]);
    const r = await e.post("/_emulator/apps/62c95aeb231ec058/calls", { initiator: "superhero1", receiver: "superhero2", type: "video", status: "unanswered" }, { key: null });
    expect(r.status).toBe(201);
    const calls = await outbox("?uid=superhero2&provider=fcm");
    expect(calls.filter((n) => n.payload?.data?.type === "call").map((n) => [n.trigger, n.title, n.body, JSON.parse(JSON.stringify(n.payload.data.callAction))])).toEqual([
      ["initiated", "Iron Man", "VIDEO CALL", "initiated"],
      ["unanswered", "Iron Man", "VIDEO CALL", "unanswered"],
    ]);
  });

  it("reactions reach the message's author under setting 2, every party under setting 3", async () => {
    await device("superhero1");
    await device("superhero3");
    const m = await say("superhero1", "supergroup", "react", "group");
    await e.post(`/v3/messages/${m.body.data.id}/reactions/🔥`, undefined, { onBehalfOf: "superhero2" });
    expect((await outbox("?uid=superhero1&event=message_reaction_added")).map((n) => n.status)).toEqual(["sent"]);
    expect(await outbox("?uid=superhero3&event=message_reaction_added")).toEqual([]);
    await patch(`${N}/v1/preferences?uid=superhero3`, { groupPreferences: { groupReactions: 3 } });
    await patch(`${N}/v1/preferences?uid=superhero1`, { groupPreferences: { groupReactions: 1 } });
    await e.post(`/v3/messages/${m.body.data.id}/reactions/👀`, undefined, { onBehalfOf: "superhero2" });
    expect((await outbox("?uid=superhero3&event=message_reaction_added")).map((n) => [n.status, n.body])).toEqual([["sent", "Reacted to your message: 👀"]]);
    expect((await outbox("?uid=superhero1&event=message_reaction_added")).map((n) => n.reason ?? n.status)).toEqual(["sent", "REACTIONS_PREFERENCE"]);
  });

  it("calls follow the app's call settings, and ring VoIP tokens", async () => {
    await device("superhero2");
    const authToken = (await e.post("/v3/users/superhero2/auth_tokens", { force: true })).body.data.authToken;
    await e.post(`${N}/push/v1/providers/apns`, { providerId: "apns-main", keyId: "K", teamId: "T", bundleId: "com.example", p8Key: "p8key0123456789" });
    await e.post(`${N}/push/v1/tokens`, { platform: "apns_ios_voip", voipToken: "b-voip", authToken });
    await patch(`${N}/v1/settings`, { preferences: { call: { unansweredSetting: 1 } } });
    await e.post("/_emulator/apps/62c95aeb231ec058/calls", { initiator: "superhero1", receiver: "superhero2", type: "audio", status: "unanswered" }, { key: null });
    expect((await pushesTo("superhero2")).map((n) => [n.trigger, n.pushToken, n.reason ?? n.status])).toEqual([
      ["initiated", "superhero2-phone", "sent"],
      ["initiated", "b-voip", "sent"],
      ["unanswered", "superhero2-phone", "CALL_PREFERENCE"],
      ["unanswered", "b-voip", "CALL_PREFERENCE"],
    ]);
    const voip = (await pushesTo("superhero2"))[1];
    expect(voip).toMatchObject({ provider: "apns", tokenType: "apns_ios_voip", title: "Iron Man", body: "AUDIO CALL" });
    expect(voip.payload).toMatchObject({ pushType: "voip", topic: "com.example.voip", type: "apns", payload: { type: "call", callAction: "initiated", callType: "audio" } });
    // VoIP tokens ring for calls only.
    await say("superhero1", "superhero2", "text");
    expect((await pushesTo("superhero2")).filter((n) => n.trigger === "after_message").map((n) => n.pushToken)).toEqual(["superhero2-phone"]);
  });

  it("answers /notifications/v1/logs from the same records, with its filters", async () => {
    await device("superhero2");
    await say("superhero1", "superhero2", "one");
    await e.put(`${N}/v1/preferences/mute?uid=superhero2`, { conversations: [{ id: "superhero1", type: "oneOnOne" }] });
    await say("superhero1", "superhero2", "two");
    const logs = await e.get(`${N}/v1/logs`);
    expect(logs.status).toBe(200);
    expect(logs.body.data.map((l: any) => [l.notificationTriggered, l.reason])).toEqual([[false, "MUTE_PREFERENCE"], [true, null]]);
    expect(logs.body.data[1]).toMatchObject({ component: "notifications-core", channel: "push", provider: "fcm", trigger: "after_message", sender: "superhero1", receiver: "superhero2", tokenType: "fcm_android", pushToken: "superhero2-phone", providerId: "fcm-main" });
    expect(logs.body.meta.current).toEqual({ limit: 20, count: 2 });
    expect((await e.get(`${N}/v1/logs?reason=MUTE_PREFERENCE`)).body.data).toHaveLength(1);
    expect((await e.get(`${N}/v1/logs?notificationTriggered=true`)).body.data).toHaveLength(1);
    const next = await e.get(`${N}/v1/logs?logId=${logs.body.data[0]._id}&affix=append`);
    expect(next.body.data.map((l: any) => l._id)).toEqual([logs.body.data[1]._id]);
    expectError(await e.get(`${N}/v1/logs?channel=pigeon`), 400, "ERR_BAD_REQUEST");
  });

  it("filters /notifications/v1/logs by message, reaction, people, trigger, category, type, channel, provider and time window", async () => {
    for (const uid of ["superhero1", "superhero2", "superhero3"]) await device(uid);
    const direct = await say("superhero1", "superhero2", "direct");
    e.clock.advance(60);
    const group = await say("superhero1", "supergroup", "to all", "group");
    await e.post(`/v3/messages/${group.body.data.id}/reactions/👍`, undefined, { onBehalfOf: "superhero2" });
    await e.post("/_emulator/apps/62c95aeb231ec058/calls", { initiator: "superhero1", receiver: "superhero2", type: "video", status: "unanswered" }, { key: null });
    const logs = async (q: string) => {
      const r = await e.get(`${N}/v1/logs?${q}`);
      expect(r.status).toBe(200);
      return (r.body.data as any[]).map((l) => [l.trigger, l.receiver, l.member, l.reason]);
    };
    const all = (await e.get(`${N}/v1/logs`)).body.data as any[];
    expect(all.map((l) => l.messageSentAtMS)).toEqual([...all.map((l) => l.messageSentAtMS)].sort((a, b) => b - a));
    // The sender's own device is recorded too (SENDER), against the message's receiver.
    expect(await logs(`messageId=${direct.body.data.id}&receiver=superhero2`)).toEqual([
      ["after_message", "superhero2", null, "SENDER"],
      ["after_message", "superhero2", null, null],
    ]);
    expect(await logs(`messageId=${direct.body.data.id}&receiver=superhero1`)).toEqual([]);
    expect((await logs("trigger=after_message&receiverType=group&notificationTriggered=true")).map((l) => l[2]).sort()).toEqual(["superhero2", "superhero3"]);
    expect(await logs("member=superhero3")).toEqual([["after_message", "supergroup", "superhero3", null]]);
    const [reaction] = (await e.get(`${N}/v1/logs?trigger=message_reaction_added&success=true`)).body.data;
    // `sender` is the message's author, `reactionSender` the reactor (the logs example).
    expect(reaction).toMatchObject({ reactionSender: "superhero2", reactionReceiver: "superhero1", sender: "superhero1", receiver: "supergroup", messageId: Number(group.body.data.id) });
    expect(await logs(`reactionId=${reaction.reactionId}&reactionReceiver=superhero1`)).toEqual([["message_reaction_added", "supergroup", "superhero1", null]]);
    expect(await logs("reactionSender=superhero2")).toEqual([
      ["message_reaction_added", "supergroup", "superhero2", "SENDER"],
      ["message_reaction_added", "supergroup", "superhero1", null],
    ]);
    expect((await logs("messageType=video")).map((l) => l[0]).sort()).toEqual(["initiated", "initiated", "unanswered", "unanswered"]);
    expect((await logs("messageCategory=message")).map((l) => l[0])).not.toContain("initiated");
    expect((await logs("messageCategory=message")).length).toBe(all.length - 4);
    expect(await logs(`to=${Number(direct.body.data.sentAt) * 1000}`)).toHaveLength(2);
    expect((await logs(`from=${Number(direct.body.data.sentAt) * 1000 + 1}`)).length).toBe(all.length - 2);
    // superhero1's own devices (direct, group, two call events) and the reactor's, whose record names the author.
    expect((await logs("sender=superhero1&reason=SENDER")).length).toBe(5);
    expect(await logs("channel=email")).toEqual([]);
    expect((await logs("provider=fcm")).length).toBe(all.length);
    const newer = (await e.get(`${N}/v1/logs?logId=${all[2]._id}&affix=prepend`)).body;
    expect(newer.data.map((l: any) => l._id)).toEqual([all[0]._id, all[1]._id]);
    expect(newer.meta).toEqual({
      previous: { affix: "prepend", logId: all[0]._id, messageId: all[0].messageId },
      current: { limit: 20, count: 2 },
      next: { affix: "append", logId: all[1]._id, messageId: all[1].messageId },
    });
    for (const bad of ["receiverType=channel", "trigger=after_lunch", "from=yesterday", "success=maybe", "messageCategory=custom"])
      expectError(await e.get(`${N}/v1/logs?${bad}`), 400, "ERR_BAD_REQUEST");
  });

  it("filters, waits for and clears the outbox", async () => {
    await device("superhero2");
    const waiting = e.get("/_emulator/notifications?uid=superhero2&wait=5000", { key: null });
    await say("superhero1", "superhero2", "wake up");
    expect((await waiting).body.notifications).toHaveLength(1);
    expect(await outbox("?channel=email")).toEqual([]);
    expect(await outbox("?conversationId=superhero1_user_superhero2")).toHaveLength(1);
    expect(await outbox("?conversationId=group_supergroup")).toEqual([]);
    expect(await outbox("?appId=62C95AEB231EC058&provider=fcm&status=sent&event=after_message")).toHaveLength(1);
    expect(await outbox("?appId=someotherapp")).toEqual([]);
    expect(await outbox("?provider=apns")).toEqual([]);
    expect(await outbox("?uid=superhero3&wait=50")).toEqual([]);
    expectError(await e.get("/_emulator/notifications?channel=fax", { key: null }), 400, "ERR_BAD_REQUEST");
    expect((await e.del("/_emulator/notifications", undefined, { key: null })).body).toEqual({ cleared: true });
    expect(await outbox()).toEqual([]);
  });

  it("sends email and SMS digests after the interval for unread messages, and records missing contacts", async () => {
    await e.post(`${N}/email/v1/providers/sendgrid`, { sendGridApiKey: "SG.key0123456789", sendGridTemplateID: "d-1", sendGridUnsubscribeGroupID: "1", senderName: "Acme", senderEmail: "noreply@acme.test" });
    await e.post(`${N}/sms/v1/providers/twilio`, { twilioAccountSID: "AC1", twilioAuthToken: "token0123456789", twilioSenderPhoneNumber: "+14155550100" });
    await patch(`${N}/v1/contact-details`, { email: "cap@example.com" }, { onBehalfOf: "superhero2" });
    await say("superhero1", "superhero2", "first");
    await say("superhero1", "superhero2", "second");
    expect((await outbox("?uid=superhero2&channel=sms")).map((n) => n.reason)).toEqual(["MISSING_PHNO", "MISSING_PHNO"]);
    const [email] = await outbox("?uid=superhero2&channel=email");
    expect(email).toMatchObject({ provider: "sendgrid", status: "scheduled", dueAt: e.clock.nowMs() + 7_200_000 });
    e.clock.advance(7200);
    const [done] = await outbox("?uid=superhero2&channel=email");
    expect(done).toMatchObject({ status: "sent", title: "New messages from Iron Man", notificationTriggered: true });
    expect(done.payload.data.messages.map((m: any) => [m.message, m.messageObject.data.text, m.sender.name])).toEqual([["first", "first", "Iron Man"], ["second", "second", "Iron Man"]]);
    expect(done.payload.data.to).toEqual({ uid: "superhero2", name: "Captain America", email: "cap@example.com" });
    // Read before the interval ends: nothing goes out.
    const third = await say("superhero1", "superhero2", "third");
    expect((await e.post("/v3/users/superhero1/conversation/read", { messageId: Number(third.body.data.id) }, { onBehalfOf: "superhero2" })).status).toBe(200);
    e.clock.advance(7200);
    expect((await outbox("?uid=superhero2&channel=email")).map((n) => n.reason ?? n.status)).toEqual(["sent", "READ"]);
  });
});

describe("custom providers", () => {
  let receiver: Server;
  let url: string;
  let received: { body: any; headers: IncomingMessage["headers"]; path?: string }[];
  let status: number;
  /** How many more requests to a path fail with 503 (whatever `status` says). */
  let failing: Record<string, number>;
  beforeEach(async () => {
    received = [];
    status = 200;
    failing = {};
    receiver = createServer((req, res) => {
      let text = "";
      req.on("data", (d) => (text += d));
      req.on("end", () => {
        received.push({ body: JSON.parse(text), headers: req.headers, path: req.url });
        const fail = (failing[req.url!] ?? 0) > 0;
        if (fail) failing[req.url!]--;
        res.statusCode = fail ? 503 : status;
        res.end("ok");
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/push`;
  });
  afterEach(async () => {
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  });

  it("POSTs the platform's payload once per receiver with Basic auth, and retries failures on the emulator clock", async () => {
    await e.post(`${N}/push/v1/providers/custom`, { isEnabled: true, webhookURL: url, useBasicAuth: true, basicAuthUsername: "u", basicAuthPassword: "p" });
    await say("superhero1", "superhero2", "via custom");
    const [delivered] = await e.emulator.notifications.waitFor({ uid: "superhero2", status: "delivered" }, 5000);
    expect(delivered).toMatchObject({ provider: "custom", channel: "push", success: true, attempts: [{ status: 200 }] });
    expect(received).toHaveLength(1);
    expect(received[0].headers.authorization).toBe(`Basic ${Buffer.from("u:p").toString("base64")}`);
    expect(received[0].body).toMatchObject({
      trigger: "push-notification-payload-generated",
      webhook: "custom",
      appId: "62c95aeb231ec058",
      region: "us",
      data: { to: { uid: "superhero2" }, notificationDetails: { title: "Iron Man", body: "via custom", sender: "superhero1", receiver: "superhero2", type: "chat" } },
    });

    status = 500;
    await say("superhero1", "superhero2", "fails");
    const [retrying] = await e.emulator.notifications.waitFor({ uid: "superhero2", status: "retrying" }, 5000);
    expect(retrying.attempts.map((a) => a.status)).toEqual([500]);
    status = 200;
    e.clock.advance(10);
    for (let i = 0; i < 500 && retrying.status !== "delivered"; i++) await new Promise((r) => setTimeout(r, 10));
    expect(retrying.status).toBe("delivered");
    expect(retrying.attempts.map((a) => a.status)).toEqual([500, 200]);
    expect(received).toHaveLength(3);
  });

  it("POSTs email and SMS digests to the custom providers after the interval, with retries and a delivery record", async () => {
    const custom = (path: string, flag: string, stored: boolean) =>
      e.post(`${N}/${path}/v1/providers/custom`, { isEnabled: true, webhookURL: url.replace("/push", `/${path}`), useBasicAuth: false, basicAuthUsername: "u", basicAuthPassword: "p", [flag]: stored });
    expect((await custom("email", "useStoredEmailID", true)).status).toBe(200);
    expect((await custom("sms", "useStoredPhNo", false)).status).toBe(200);
    await patch(`${N}/v1/contact-details`, { email: "cap@example.com" }, { onBehalfOf: "superhero2" });
    await say("superhero1", "superhero2", "for B");
    await say("superhero1", "superhero3", "for C");
    // C has no stored email and the email provider wants one; the SMS provider does not.
    expect((await outbox("?uid=superhero3")).map((n) => [n.channel, n.reason ?? n.status])).toEqual([["email", "MISSING_EMAIL"], ["sms", "scheduled"]]);
    expect((await outbox("?uid=superhero2&provider=custom")).map((n) => [n.channel, n.status])).toEqual([["email", "scheduled"], ["sms", "scheduled"]]);
    expect(received).toEqual([]);

    failing["/email"] = 1;
    e.clock.advance(7200);
    const retrying = await e.emulator.notifications.waitFor({ uid: "superhero2", channel: "email", status: "retrying" }, 10_000);
    expect(retrying.map((n) => n.attempts.map((a) => a.status))).toEqual([[503]]);
    e.clock.advance(10);
    const delivered = async () => (await outbox("?status=delivered")).map((n) => [n.uid, n.channel, n.provider, n.success, n.attempts.length]).sort();
    for (let i = 0; i < 1000 && (await delivered()).length < 3; i++) await new Promise((r) => setTimeout(r, 10));
    expect(await delivered()).toEqual([
      ["superhero2", "email", "custom", true, 2],
      ["superhero2", "sms", "custom", true, 1],
      ["superhero3", "sms", "custom", true, 1],
    ]);
    const email = received.filter((r) => r.path === "/email");
    expect(email.map((r) => r.body.data.to)).toEqual([{ uid: "superhero2", name: "Captain America", email: "cap@example.com" }, { uid: "superhero2", name: "Captain America", email: "cap@example.com" }]);
    expect(email[1].body).toMatchObject({
      trigger: "email-notification-payload-generated",
      webhook: "custom",
      data: { subject: "New messages from Iron Man", senderDetails: { uid: "superhero1", name: "Iron Man" }, messages: [{ message: "for B", sender: { uid: "superhero1" } }] },
    });
    expect(email[1].headers.authorization).toBeUndefined();
    const sms = received.filter((r) => r.path === "/sms").map((r) => r.body);
    expect(sms.map((b) => [b.trigger, b.data.to.uid, b.data.smsContent]).sort()).toEqual([
      ["sms-notification-payload-generated", "superhero2", "You've received new messages from Iron Man!"],
      ["sms-notification-payload-generated", "superhero3", "You've received new messages from Iron Man!"],
    ]);
  });

  it("drops the digests still waiting when the outbox is cleared", async () => {
    const provider = { isEnabled: true, webhookURL: url.replace("/push", "/email"), useBasicAuth: false, basicAuthUsername: "u", basicAuthPassword: "p", useStoredEmailID: true };
    expect((await e.post(`${N}/email/v1/providers/custom`, provider)).status).toBe(200);
    await patch(`${N}/v1/contact-details`, { email: "cap@example.com" }, { onBehalfOf: "superhero2" });
    await say("superhero1", "superhero2", "before the clear");
    e.notifications.clear();
    await say("superhero1", "superhero2", "after the clear");
    e.clock.advance(7200);
    const [digest] = await e.emulator.notifications.waitFor({ uid: "superhero2", channel: "email", status: "delivered" }, 10_000);
    expect(digest.payload.data.messages.map((m: any) => m.message)).toEqual(["after the clear"]);
    expect(received.filter((r) => r.path === "/email").map((r) => r.body.data.messages.map((m: any) => m.message))).toEqual([["after the clear"]]);
  });
});
