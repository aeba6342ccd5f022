import { beforeEach, describe, expect, it } from "vitest";
import { AUTH_KEY, emulator, expectError, type TestEmulator } from "./helpers.js";
import { BAD_STATE_CHANGES } from "./seed-cases.js";

let e: TestEmulator;
beforeEach(async () => {
  e = await emulator();
});

const N = "/v3/notifications";
const patch = (path: string, body: unknown, opts = {}) => e.call("PATCH", path, { body, ...opts });
const authToken = async (uid: string) => (await e.post(`/v3/users/${uid}/auth_tokens`, { force: true })).body.data.authToken as string;
const FCM = {
  providerId: "fcm-main",
  serviceAccountFilename: "sa.json",
  serviceAccountCreds: { project_id: "p1", client_email: "sa@p1.iam.gserviceaccount.com", private_key: "-----BEGIN PRIVATE KEY-----abcdef", private_key_id: "0123456789abcdef" },
  notificationInPayload: { ios: { chat: true, call: false }, android: { chat: false, call: false }, web: { chat: true, call: false } },
};
const APNS = { providerId: "apns-main", keyId: "K1", teamId: "T1", bundleId: "com.example.app", p8KeyFilename: "k.p8", p8Key: "-----BEGIN PRIVATE KEY-----xyz0123456789", productionMode: false };
const CUSTOM = { isEnabled: true, webhookURL: "https://example.com/push", useBasicAuth: true, basicAuthUsername: "user", basicAuthPassword: "secretpassword123" };

describe("notification operations", () => {
  it("serves the 49 operations of the reference's notifications area, and no other", () => {
    const crud = (path: string) => ["GET", "POST", "PUT", "DELETE"].map((m) => `${m} ${path}`);
    const push = (kind: string) => [
      ...crud(`/notifications/push/v1/providers/${kind}`).slice(0, 3),
      `DELETE /notifications/push/v1/providers/${kind}/:providerId`,
      `PUT /notifications/push/v1/providers/${kind}/default/:providerId`,
    ];
    const published = [
      ...["GET", "PATCH", "DELETE"].map((m) => `${m} /notifications/v1/settings`),
      ...push("fcm"),
      ...push("apns"),
      ...crud("/notifications/push/v1/providers/custom"),
      ...["GET", "PATCH", "DELETE"].map((m) => `${m} /notifications/v1/preferences`),
      ...["GET", "PUT", "DELETE"].map((m) => `${m} /notifications/v1/preferences/mute`),
      ...["GET", "PATCH"].map((m) => `${m} /notifications/v1/preferences/timezone`),
      ...["GET", "PATCH", "DELETE"].map((m) => `${m} /notifications/v1/contact-details`),
      ...["POST", "GET", "DELETE"].map((m) => `${m} /notifications/push/v1/tokens`),
      "DELETE /notifications/push/v1/tokens/:pushToken",
      ...crud("/notifications/sms/v1/providers/twilio"),
      ...crud("/notifications/email/v1/providers/sendgrid"),
      ...crud("/notifications/sms/v1/providers/custom"),
      ...crud("/notifications/email/v1/providers/custom"),
      "GET /notifications/v1/logs",
    ];
    const served = new Set<string>();
    for (const r of e.app.routes) {
      const path = /^\/@rest\/:appId\/:region\/v3(\/notifications\/.*)$/.exec(r.path)?.[1];
      if (path && r.method !== "ALL") served.add(`${r.method} ${path}`);
    }
    expect(published).toHaveLength(49);
    expect([...served].sort()).toEqual([...published].sort());
  });
});

describe("notification settings", () => {
  it("answers the defaults, applies a partial update and resets", async () => {
    const r = await e.get(`${N}/v1/settings`);
    expect(r.status).toBe(200);
    expect(r.body.data.preferences.group).toMatchObject({ messagesSetting: 2, messagesOverride: true, memberLeftSetting: 1, memberLeftOverride: true });
    expect(r.body.data.preferences.mute.schedulePreferenceSetting.monday).toEqual({ from: 0, to: 2359, dnd: false });
    expect(r.body.data.preferences.email).toEqual({ notifyForUnreadOnly: true, intervalInSeconds: 7200, maxPerDay: 20, maxPerDayPerConversation: 2 });
    expect(r.body.data.sound).toEqual({ chat: "default", call: "default" });
    expect(r.body.data.templates.usePrivacyTemplate).toBe(3);
    expect(r.body.data.templates.textMessageTemplateDefault).toEqual({
      titleOneOnOne: "{{message.data.entities.sender.entity.name}}",
      titleGroup: "{{message.data.entities.sender.entity.name}} @ {{message.data.entities.receiver.entity.name}}",
      body: "{{message.data.text}}",
    });
    expect(r.body.data.templates.textMessageTemplatePrivacy.body).toBe("New message");

    const up = await patch(`${N}/v1/settings`, { preferences: { group: { messagesSetting: 3 }, mute: { schedulePreferenceSetting: { monday: { from: 900 } } } }, sound: { chat: "ping.mp3" } });
    expect(up.body).toEqual({ data: { success: true } });
    const after = (await e.get(`${N}/v1/settings`)).body.data;
    expect(after.preferences.group).toMatchObject({ messagesSetting: 3, repliesSetting: 2 });
    expect(after.preferences.mute.schedulePreferenceSetting.monday).toEqual({ from: 900, to: 2359, dnd: false });
    expect(after.sound).toEqual({ chat: "ping.mp3", call: "default" });

    expect((await e.del(`${N}/v1/settings`)).body).toEqual({ data: { success: true } });
    expect((await e.get(`${N}/v1/settings`)).body.data).toEqual(r.body.data);
  });

  it("refuses unknown keys, wrong types and values out of range, changing nothing", async () => {
    const r = await patch(`${N}/v1/settings`, {
      preferences: { group: { messagesSetting: 4, memberLeftSetting: 3, bogus: 1 }, mute: { schedulePreferenceSetting: { monday: { from: 2460 } } }, email: { maxPerDay: "x" } },
      templates: { usePrivacyTemplate: true },
    });
    const err = expectError(r, 400, "ERR_BAD_REQUEST");
    expect(Object.keys(err.details!).sort()).toEqual([
      "preferences.email.maxPerDay",
      "preferences.group.bogus",
      "preferences.group.memberLeftSetting",
      "preferences.group.messagesSetting",
      "preferences.mute.schedulePreferenceSetting.monday.from",
      "templates.usePrivacyTemplate",
    ]);
    expect((await e.get(`${N}/v1/settings`)).body.data.preferences.group.messagesSetting).toBe(2);
  });

  it("refuses names every object inherits (constructor, __proto__, toString), changing nothing", async () => {
    const before = (await e.get(`${N}/v1/settings`)).body.data;
    const raw = '{"constructor":1,"__proto__":{"toString":"x"},"preferences":{"group":{"toString":2}}}';
    const err = expectError(await e.call("PATCH", `${N}/v1/settings`, { raw, headers: { "content-type": "application/json" } }), 400, "ERR_BAD_REQUEST");
    expect(Object.keys(err.details!).sort()).toEqual(["__proto__", "constructor", "preferences.group.toString"]);
    expect((await e.get(`${N}/v1/settings`)).body.data).toEqual(before);
    const prefs = expectError(await patch(`${N}/v1/preferences?uid=superhero2`, { groupPreferences: { constructor: 2 } }), 400, "ERR_BAD_REQUEST");
    expect(prefs.details).toEqual({ "groupPreferences.constructor": ["The groupPreferences.constructor field is not allowed."] });
    const proto = await e.call("PATCH", `${N}/v1/preferences?uid=superhero2`, { raw: '{"__proto__":1}', headers: { "content-type": "application/json" } });
    expect(expectError(proto, 400, "ERR_BAD_REQUEST").details).toEqual({ ["__proto__"]: ["The __proto__ field is not allowed."] });
  });

  it("needs a full-access key", async () => {
    expectError(await e.get(`${N}/v1/settings`, { key: AUTH_KEY }), 403, "AUTH_ERR_NO_ACCESS");
    expectError(await e.get(`${N}/v1/settings`, { key: null }), 401, "AUTH_ERR_EMPTY_APIKEY");
  });
});

describe("push providers", () => {
  it("adds, lists (masked), updates, defaults and deletes FCM providers", async () => {
    expect((await e.get(`${N}/push/v1/providers/fcm`)).body).toEqual({ data: { pushProviders: [] } });
    expect((await e.post(`${N}/push/v1/providers/fcm`, FCM)).body).toEqual({ data: { success: true } });
    await e.post(`${N}/push/v1/providers/fcm`, { ...FCM, providerId: "fcm-2" });
    const list = (await e.get(`${N}/push/v1/providers/fcm`)).body.data.pushProviders;
    expect(list).toHaveLength(2);
    expect(list[0]).toMatchObject({ providerId: "fcm-main", isDefault: true, serviceAccountFilename: "sa.json", notificationInPayload: FCM.notificationInPayload });
    expect(list[0].serviceAccountCreds).toEqual({ project_id: "p1", client_email: FCM.serviceAccountCreds.client_email, private_key: "-----***********************bcdef", private_key_id: "01234******bcdef" });
    expect(list[1].isDefault).toBe(false);

    expect((await e.put(`${N}/push/v1/providers/fcm`, { providerId: "fcm-2", serviceAccountFilename: "new.json" })).body).toEqual({ data: { success: true } });
    expect((await e.put(`${N}/push/v1/providers/fcm/default/fcm-2`)).body).toEqual({ data: { success: true } });
    const after = (await e.get(`${N}/push/v1/providers/fcm`)).body.data.pushProviders;
    expect(after.map((p: any) => [p.providerId, p.isDefault, p.serviceAccountFilename])).toEqual([["fcm-main", false, "sa.json"], ["fcm-2", true, "new.json"]]);
    expect(after[1].serviceAccountCreds.project_id).toBe("p1");

    expect((await e.del(`${N}/push/v1/providers/fcm/fcm-2`)).body).toEqual({ data: { success: true } });
    expect((await e.get(`${N}/push/v1/providers/fcm`)).body.data.pushProviders.map((p: any) => [p.providerId, p.isDefault])).toEqual([["fcm-main", true]]);
  });

  it("refuses duplicates, unknown providers and incomplete credentials", async () => {
    await e.post(`${N}/push/v1/providers/fcm`, FCM);
    expectError(await e.post(`${N}/push/v1/providers/fcm`, FCM), 400, "ERR_PROVIDER_ALREADY_EXISTS");
    expectError(await e.put(`${N}/push/v1/providers/fcm`, { providerId: "nope" }), 404, "ERR_PROVIDER_NOT_FOUND");
    expectError(await e.del(`${N}/push/v1/providers/fcm/nope`), 404, "ERR_PROVIDER_NOT_FOUND");
    expectError(await e.put(`${N}/push/v1/providers/fcm/default/nope`), 404, "ERR_PROVIDER_NOT_FOUND");
    const err = expectError(await e.post(`${N}/push/v1/providers/fcm`, { providerId: "x", serviceAccountCreds: { project_id: "p" } }), 400, "ERR_BAD_REQUEST");
    expect(Object.keys(err.details!).sort()).toEqual(["serviceAccountCreds.client_email", "serviceAccountCreds.private_key"]);
    const payload = { android: { chat: "yes", sms: true }, watch: { chat: true }, web: 1 };
    expect(expectError(await e.post(`${N}/push/v1/providers/fcm`, { ...FCM, providerId: "x", notificationInPayload: payload }), 400, "ERR_BAD_REQUEST").details).toEqual({
      "notificationInPayload.android.chat": ["The notificationInPayload.android.chat field must be true or false."],
      "notificationInPayload.android.sms": ["The notificationInPayload.android.sms field is not allowed."],
      "notificationInPayload.watch": ["The notificationInPayload.watch field is not allowed."],
      "notificationInPayload.web": ["The notificationInPayload.web must be an object."],
    });
    expectError(await e.put(`${N}/push/v1/providers/fcm`, { providerId: "fcm-main", notificationInPayload: { ios: { call: null } } }), 400, "ERR_BAD_REQUEST");
    expect((await e.get(`${N}/push/v1/providers/fcm`)).body.data.pushProviders.map((p: any) => [p.providerId, p.notificationInPayload])).toEqual([["fcm-main", FCM.notificationInPayload]]);
    expect(expectError(await e.post(`${N}/push/v1/providers/fcm`, {}), 400, "ERR_BAD_REQUEST").details).toMatchObject({
      providerId: ["The providerId field is required."],
      serviceAccountCreds: ["The serviceAccountCreds field is required."],
    });
  });

  it("adds, lists, updates, defaults and deletes APNs providers", async () => {
    const add = await e.post(`${N}/push/v1/providers/apns`, APNS);
    expect(add.body.data.pushProviders).toEqual([
      { providerId: "apns-main", keyId: "K1", teamId: "T1", bundleId: "com.example.app", p8KeyFilename: "k.p8", p8Key: `-----${"*".repeat(APNS.p8Key.length - 10)}56789`, productionMode: false, isDefault: true },
    ]);
    expectError(await e.post(`${N}/push/v1/providers/apns`, APNS), 400, "ERR_PROVIDER_ALREADY_EXISTS");
    expect(expectError(await e.post(`${N}/push/v1/providers/apns`, { providerId: "a2" }), 400, "ERR_BAD_REQUEST").details).toHaveProperty("p8Key");
    expect((await e.put(`${N}/push/v1/providers/apns`, { providerId: "apns-main", productionMode: true })).body.data).toEqual({ success: true });
    expect((await e.get(`${N}/push/v1/providers/apns`)).body.data.pushProviders[0].productionMode).toBe(true);
    expect((await e.put(`${N}/push/v1/providers/apns/default/apns-main`)).body.data).toEqual({ success: true });
    expect((await e.del(`${N}/push/v1/providers/apns/apns-main`)).body.data).toEqual({ success: true });
    expectError(await e.del(`${N}/push/v1/providers/apns/apns-main`), 404, "ERR_PROVIDER_NOT_FOUND");
  });

  it("saves, lists, updates and deletes the custom push provider", async () => {
    expect((await e.get(`${N}/push/v1/providers/custom`)).body.data).toEqual({ pushProviders: [] });
    const saved = await e.post(`${N}/push/v1/providers/custom`, CUSTOM);
    expect(saved.body.data).toEqual({ pushProviders: [{ ...CUSTOM, basicAuthPassword: "secre*******rd123" }] });
    expectError(await e.post(`${N}/push/v1/providers/custom`, CUSTOM), 400, "ERR_PROVIDER_ALREADY_EXISTS");
    const up = await e.put(`${N}/push/v1/providers/custom`, { isEnabled: false });
    expect(up.body.data.pushProviders[0].isEnabled).toBe(false);
    expect((await e.get(`${N}/push/v1/providers/custom`)).body.data.pushProviders[0].webhookURL).toBe(CUSTOM.webhookURL);
    expect((await e.del(`${N}/push/v1/providers/custom`)).body.data).toEqual({ success: true });
    expectError(await e.del(`${N}/push/v1/providers/custom`), 404, "ERR_PROVIDER_NOT_FOUND");
    expectError(await e.put(`${N}/push/v1/providers/custom`, { isEnabled: true }), 404, "ERR_PROVIDER_NOT_FOUND");
    const err = expectError(await e.post(`${N}/push/v1/providers/custom`, { isEnabled: true, webhookURL: "not a url" }), 400, "ERR_BAD_REQUEST");
    expect(Object.keys(err.details!).sort()).toEqual(["basicAuthPassword", "basicAuthUsername", "useBasicAuth", "webhookURL"]);
  });
});

describe("SMS and email providers", () => {
  it("saves, gets (masked), updates and deletes Twilio", async () => {
    const body = { twilioAccountSID: "AC0123456789", twilioAuthToken: "authtoken0123456789", twilioSenderPhoneNumber: "+14155550100" };
    expectError(await e.get(`${N}/sms/v1/providers/twilio`), 404, "ERR_PROVIDER_NOT_FOUND");
    const saved = await e.post(`${N}/sms/v1/providers/twilio`, body);
    expect(saved.body.data).toEqual({ ...body, twilioAuthToken: "autht*********56789" });
    expect((await e.get(`${N}/sms/v1/providers/twilio`)).body.data).toEqual(saved.body.data);
    expect((await e.put(`${N}/sms/v1/providers/twilio`, { twilioSenderPhoneNumber: "+14155550199" })).body.data.twilioSenderPhoneNumber).toBe("+14155550199");
    expect((await e.del(`${N}/sms/v1/providers/twilio`)).body.data).toEqual({ success: true });
    expect(Object.keys(expectError(await e.post(`${N}/sms/v1/providers/twilio`, {}), 400, "ERR_BAD_REQUEST").details!).sort()).toEqual([
      "twilioAccountSID",
      "twilioAuthToken",
      "twilioSenderPhoneNumber",
    ]);
  });

  it("saves, gets, updates and deletes SendGrid, with the replies webhook of the region", async () => {
    const body = { sendGridApiKey: "SG.0123456789abcdef", sendGridTemplateID: "d-1", sendGridUnsubscribeGroupID: "33832", senderName: "Acme", senderEmail: "noreply@acme.test" };
    const saved = await e.post(`${N}/email/v1/providers/sendgrid`, body);
    expect(saved.body.data).toEqual({
      ...body,
      sendGridApiKey: "SG.01*********bcdef",
      allowEmailReplies: false,
      senderEmailForReplies: null,
      repliesWebhook: expect.stringMatching(/^https:\/\/notifications-us\.cometchat\.io\/email\/v1\/sendgrid\/replies\?token=[0-9a-f]{32}$/),
    });
    expect((await e.get(`${N}/email/v1/providers/sendgrid`)).body.data).toEqual({ ...body, sendGridApiKey: "SG.01*********bcdef" });
    const up = await e.put(`${N}/email/v1/providers/sendgrid`, { allowEmailReplies: true, senderEmailForReplies: "replies@acme.test" });
    expect(up.body.data).toMatchObject({ allowEmailReplies: true, senderEmailForReplies: "replies@acme.test", repliesWebhook: saved.body.data.repliesWebhook });
    expectError(await e.post(`${N}/email/v1/providers/sendgrid`, body), 400, "ERR_PROVIDER_ALREADY_EXISTS");
    expectError(await e.put(`${N}/email/v1/providers/sendgrid`, { senderEmail: "nope" }), 400, "ERR_BAD_REQUEST");
    expect((await e.del(`${N}/email/v1/providers/sendgrid`)).body.data).toEqual({ success: true });
    expectError(await e.get(`${N}/email/v1/providers/sendgrid`), 404, "ERR_PROVIDER_NOT_FOUND");
  });

  it("saves, gets, updates and deletes the custom SMS and email providers", async () => {
    for (const [channel, flag] of [["sms", "useStoredPhNo"], ["email", "useStoredEmailID"]]) {
      const path = `${N}/${channel}/v1/providers/custom`;
      const body = { ...CUSTOM, [flag]: true };
      expect((await e.post(path, body)).body.data).toEqual({ ...body, basicAuthPassword: "secre*******rd123" });
      expect((await e.get(path)).body.data[flag]).toBe(true);
      expect((await e.put(path, { [flag]: false })).body.data[flag]).toBe(false);
      expect((await e.del(path)).body.data).toEqual({ success: true });
      expectError(await e.get(path), 404, "ERR_PROVIDER_NOT_FOUND");
      expect(expectError(await e.post(path, CUSTOM), 400, "ERR_BAD_REQUEST").details).toEqual({ [flag]: [`The ${flag} field is required.`] });
    }
  });
});

describe("user preferences", () => {
  it("answers the app's defaults, keeps overridable changes only and resets", async () => {
    await patch(`${N}/v1/settings`, { preferences: { group: { repliesOverride: false } } });
    const r = await e.get(`${N}/v1/preferences?uid=superhero2`);
    expect(r.status).toBe(200);
    expect(r.body.data.preferences.group).not.toHaveProperty("messageEditedSetting");
    expect(r.body.data.preferences.group).toMatchObject({ messagesSetting: 2, repliesSetting: 2 });
    expect(r.body.data.preferences.oneOnOne).toMatchObject({ messagesSetting: 2, reactionsSetting: 2 });
    expect(Object.keys(r.body.data.templates).sort()).toContain("textMessageTemplateDefault");
    expect(r.body.data.templates).not.toHaveProperty("emailSubjectTemplateDefault");

    const up = await patch(`${N}/v1/preferences?uid=superhero2`, {
      groupPreferences: { groupMessages: 3, groupReplies: 1, groupMemberJoined: 2 },
      oneOnOnePreferences: { oneOnOneMessages: 1 },
      mutePreferences: { dnd: 2, schedule: { friday: { from: 900, to: 1700, dnd: false } } },
      usePrivacyTemplate: true,
    });
    expect(up.status).toBe(200);
    expect(up.body.data.preferences.group).toMatchObject({ messagesSetting: 3, repliesSetting: 2, memberJoinedSetting: 2 });
    expect(up.body.data.preferences.oneOnOne.messagesSetting).toBe(1);
    expect(up.body.data.preferences.mute).toMatchObject({ dndPreferenceSetting: 2 });
    expect(up.body.data.preferences.mute.schedulePreferenceSetting.friday).toEqual({ from: 900, to: 1700, dnd: false });

    const reset = await e.del(`${N}/v1/preferences?uid=superhero2`);
    expect(reset.body.data).toMatchObject({
      groupPreferences: { groupMessages: 2, groupReplies: 2, groupMemberJoined: 1 },
      oneOnOnePreferences: { oneOnOneMessages: 2 },
      mutePreferences: { dnd: 1 },
      usePrivacyTemplate: false,
    });
    expect(reset.body.data.mutePreferences.schedule.monday).toEqual({ from: 0, to: 2359, dnd: false });
  });

  it("needs a known uid and valid values", async () => {
    expect(expectError(await e.get(`${N}/v1/preferences`), 400, "ERR_BAD_REQUEST").details).toEqual({ uid: ["The uid field is required."] });
    expectError(await e.get(`${N}/v1/preferences?uid=nobody`), 404, "ERR_UID_NOT_FOUND");
    const err = expectError(
      await patch(`${N}/v1/preferences?uid=superhero2`, { groupPreferences: { groupMessages: 5, groupMemberLeft: 3, nope: 1 }, mutePreferences: { dnd: 3, schedule: { funday: {} } } }),
      400,
      "ERR_BAD_REQUEST",
    );
    expect(Object.keys(err.details!).sort()).toEqual([
      "groupPreferences.groupMemberLeft",
      "groupPreferences.groupMessages",
      "groupPreferences.nope",
      "mutePreferences.dnd",
      "mutePreferences.schedule.funday",
    ]);
  });

  it("mutes and unmutes conversations; an expired mute is gone on the emulator clock", async () => {
    e.clock.freeze(1_700_000_000_000);
    const mute = await e.put(`${N}/v1/preferences/mute?uid=superhero2`, {
      conversations: [{ id: "superhero1", type: "oneOnOne", until: 1_700_000_060_000 }, { id: "supergroup", type: "group" }],
    });
    expect(mute.body).toEqual({ data: { success: true } });
    const list = await e.get(`${N}/v1/preferences/mute?uid=superhero2`);
    expect(list.body.data.mutedConversations).toEqual([
      { id: "superhero1", type: "oneOnOne", until: 1_700_000_060_000 },
      { id: "supergroup", type: "group" },
    ]);
    e.clock.advance(61);
    expect((await e.get(`${N}/v1/preferences/mute?uid=superhero2`)).body.data.mutedConversations).toEqual([{ id: "supergroup", type: "group" }]);
    expect((await e.del(`${N}/v1/preferences/mute?uid=superhero2`, { conversations: [{ id: "supergroup", type: "group" }] })).body.data).toEqual({ success: true });
    expect((await e.get(`${N}/v1/preferences/mute?uid=superhero2`)).body.data.mutedConversations).toEqual([]);
    expect(expectError(await e.put(`${N}/v1/preferences/mute?uid=superhero2`, {}), 400, "ERR_BAD_REQUEST").details).toEqual({ conversations: ["The conversations field is required."] });
    const bad = expectError(await e.put(`${N}/v1/preferences/mute?uid=superhero2`, { conversations: [{ id: "x", type: "channel", until: "soon" }] }), 400, "ERR_BAD_REQUEST");
    expect(Object.keys(bad.details!).sort()).toEqual(["conversations.0.type", "conversations.0.until"]);
  });

  it("gets and sets the timezone", async () => {
    expect((await e.get(`${N}/v1/preferences/timezone?uid=superhero2`)).body.data).toEqual({ timezone: "UTC" });
    expect((await patch(`${N}/v1/preferences/timezone?uid=superhero2`, { timezone: "Asia/Kolkata" })).body.data).toEqual({ timezone: "Asia/Kolkata" });
    expect((await e.get(`${N}/v1/preferences/timezone?uid=superhero2`)).body.data).toEqual({ timezone: "Asia/Kolkata" });
    expectError(await patch(`${N}/v1/preferences/timezone?uid=superhero2`, { timezone: "Mars/Olympus" }), 400, "ERR_BAD_REQUEST");
    expectError(await patch(`${N}/v1/preferences/timezone?uid=superhero2`, {}), 400, "ERR_BAD_REQUEST");
  });
});

describe("contact details", () => {
  it("gets, updates and deletes a user's email and phone number on their behalf", async () => {
    const as = { onBehalfOf: "superhero2" };
    expect((await e.get(`${N}/v1/contact-details`, as)).body.data).toEqual({ email: null, phno: null });
    expect((await patch(`${N}/v1/contact-details`, { email: "cap@example.com", phno: "+14155550123" }, as)).body.data).toEqual({ email: "cap@example.com", phno: "+14155550123" });
    expect((await e.get(`${N}/v1/contact-details`, as)).body.data).toEqual({ email: "cap@example.com", phno: "+14155550123" });
    expect((await e.del(`${N}/v1/contact-details`, undefined, as)).body.data).toEqual({ success: true });
    expect((await e.get(`${N}/v1/contact-details`, as)).body.data).toEqual({ email: null, phno: null });
    expectError(await e.get(`${N}/v1/contact-details`), 400, "ERR_BAD_REQUEST");
    expectError(await e.get(`${N}/v1/contact-details`, { onBehalfOf: "nobody" }), 404, "ERR_UID_NOT_FOUND");
    expect(Object.keys(expectError(await patch(`${N}/v1/contact-details`, { email: "nope", phno: "12345" }, as), 400, "ERR_BAD_REQUEST").details!).sort()).toEqual(["email", "phno"]);
  });
});

describe("push tokens", () => {
  it("registers FCM, APNs and VoIP tokens against auth tokens, lists and unregisters them", async () => {
    e.clock.freeze(1_700_000_000_000);
    const a = await authToken("superhero2");
    const b = await authToken("superhero2");
    const reg = await e.post(`${N}/push/v1/tokens`, { platform: "fcm_android", providerId: "fcm-main", fcmToken: "tok-a", authToken: a, timezone: "Europe/Paris" });
    expect(reg.body).toEqual({ data: { success: true } });
    await e.post(`${N}/push/v1/tokens`, { platform: "apns_ios_device", deviceToken: "tok-b", authToken: b });
    await e.post(`${N}/push/v1/tokens`, { platform: "apns_ios_voip", voipToken: "tok-v", authToken: b });
    const mine = await e.get(`${N}/push/v1/tokens?authToken=${a}`);
    expect(mine.body.data.pushTokens).toEqual([
      { authToken: a, pushTokenType: "chat", createdAt: "2023-11-14T22:13:20.000Z", platform: "fcm_android", providerId: "fcm-main", pushToken: "tok-a", uid: "superhero2", updatedAt: "2023-11-14T22:13:20.000Z" },
    ]);
    const all = await e.get(`${N}/push/v1/tokens?authToken=${a}&all=true`);
    expect(all.body.data.pushTokens.map((t: any) => [t.pushToken, t.pushTokenType])).toEqual([["tok-a", "chat"], ["tok-b", "chat"], ["tok-v", "voip"]]);
    expect((await e.get(`${N}/v1/preferences/timezone?uid=superhero2`)).body.data.timezone).toBe("Europe/Paris");

    const one = await e.del(`${N}/push/v1/tokens/tok-v`, { authToken: b });
    expect(one.body.data.pushTokens.map((t: any) => t.pushToken)).toEqual(["tok-a", "tok-b"]);
    expectError(await e.del(`${N}/push/v1/tokens/tok-v`, { authToken: b }), 404, "ERR_TOKEN_NOT_FOUND");
    const mineGone = await e.del(`${N}/push/v1/tokens`, { authToken: a });
    expect(mineGone.body.data.pushTokens.map((t: any) => t.pushToken)).toEqual(["tok-b"]);
    expect((await e.del(`${N}/push/v1/tokens?all=true`, { authToken: a })).body.data.pushTokens).toEqual([]);
  });

  it("validates platform, token field and auth token", async () => {
    const a = await authToken("superhero2");
    expect(expectError(await e.post(`${N}/push/v1/tokens`, {}), 400, "ERR_BAD_REQUEST").details).toMatchObject({
      platform: ["The platform field is required."],
      authToken: ["The authToken field is required."],
    });
    expectError(await e.post(`${N}/push/v1/tokens`, { platform: "blackberry", fcmToken: "t", authToken: a }), 400, "ERR_BAD_REQUEST");
    expect(expectError(await e.post(`${N}/push/v1/tokens`, { platform: "fcm_web", deviceToken: "t", authToken: a }), 400, "ERR_BAD_REQUEST").details).toEqual({
      fcmToken: ["The fcmToken field is required."],
    });
    expect(expectError(await e.post(`${N}/push/v1/tokens`, { platform: "fcm_web", fcmToken: "t", authToken: "nope" }), 400, "ERR_BAD_REQUEST").details).toEqual({
      authToken: ["The selected authToken is invalid."],
    });
    expectError(await e.get(`${N}/push/v1/tokens`), 400, "ERR_BAD_REQUEST");
    expectError(await e.del(`${N}/push/v1/tokens`, {}), 400, "ERR_BAD_REQUEST");
  });
});

describe("notification state", () => {
  it("is part of the app's state: saved, restored by snapshots and cleared by a reset", async () => {
    await e.post(`${N}/push/v1/providers/fcm`, FCM);
    await patch(`${N}/v1/preferences/timezone?uid=superhero2`, { timezone: "Asia/Tokyo" });
    const state = (await e.get("/_emulator/state", { key: null })).body;
    expect(state.apps[0].notifications.pushProviders[0].providerId).toBe("fcm-main");
    expect(state.apps[0].notifications.users).toEqual([{ uid: "superhero2", timezone: "Asia/Tokyo" }]);
    await e.post("/_emulator/reset", {}, { key: null });
    expect((await e.get(`${N}/push/v1/providers/fcm`)).body.data.pushProviders).toEqual([]);
    expect((await e.put("/_emulator/state", state, { key: null })).status).toBe(200);
    expect((await e.get(`${N}/v1/preferences/timezone?uid=superhero2`)).body.data.timezone).toBe("Asia/Tokyo");
    const broken = structuredClone(state);
    BAD_STATE_CHANGES.tokenless.change(broken);
    const refused = await e.put("/_emulator/state", broken, { key: null });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain(BAD_STATE_CHANGES.tokenless.error);
  });
});
