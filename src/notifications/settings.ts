import type { AppState } from "../store/app-state.js";
import type { Json, JsonObject } from "../store/types.js";

/**
 * The app's notification settings (reference §18.1) and how a user's preferences combine with them: a user's
 * choice counts only where the matching `…Override` flag lets users override (the platform silently ignores
 * the rest). Setting values: 1 don't notify, 2 notify (all), 3 only with mentions (reactions: 2 own messages,
 * 3 all messages).
 */

const DAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"] as const;
export type Day = (typeof DAYS)[number];
export { DAYS };

const wholeDay = () => Object.fromEntries(DAYS.map((d) => [d, { from: 0, to: 2359, dnd: false }])) as JsonObject;

const SENDER = "{{message.data.entities.sender.entity.name}}";
const GROUP_TITLE = `${SENDER} @ {{message.data.entities.receiver.entity.name}}`;
const mediaBodies = {
  body_audio: "🔊 Has shared an audio",
  body_file: "📄 Has shared a file",
  body_image: "📷 Has shared an image",
  body_video: "🎥 Has shared a video",
};
const privateMedia = { body_audio: "New message", body_file: "New message", body_image: "New message", body_video: "New message" };

export const DEFAULT_SETTINGS: JsonObject = {
  preferences: {
    group: {
      messagesSetting: 2,
      messagesOverride: true,
      repliesSetting: 2,
      repliesOverride: true,
      quotedRepliesSetting: 2,
      quotedRepliesOverride: true,
      reactionsSetting: 2,
      reactionsOverride: true,
      messageEditedSetting: 2,
      messageDeletedSetting: 2,
      memberLeftSetting: 1,
      memberLeftOverride: true,
      memberAddedSetting: 1,
      memberAddedOverride: true,
      memberJoinedSetting: 1,
      memberJoinedOverride: true,
      memberKickedSetting: 1,
      memberKickedOverride: true,
      memberBannedSetting: 1,
      memberBannedOverride: true,
      memberUnbannedSetting: 1,
      memberUnbannedOverride: true,
      memberScopeChangedSetting: 1,
      memberScopeChangedOverride: true,
    },
    oneOnOne: {
      messagesSetting: 2,
      messagesOverride: true,
      repliesSetting: 2,
      repliesOverride: true,
      quotedRepliesSetting: 2,
      quotedRepliesOverride: true,
      messageEditedSetting: 2,
      messageDeletedSetting: 2,
      reactionsSetting: 2,
      reactionsOverride: true,
    },
    call: {
      initiatedSetting: 2,
      initiatedOverride: false,
      ongoingSetting: 2,
      ongoingOverride: false,
      cancelledSetting: 2,
      cancelledOverride: false,
      busySetting: 2,
      busyOverride: false,
      rejectedSetting: 2,
      rejectedOverride: false,
      unansweredSetting: 2,
      unansweredOverride: false,
      endedSetting: 2,
      endedOverride: false,
    },
    bypassPreferencesForMentions: false,
    mute: {
      dndPreferenceSetting: 1,
      dndPreferenceOverride: true,
      schedulePreferenceSetting: wholeDay(),
      schedulePreferenceOverride: true,
      mutedGroupsOverride: true,
      mutedOneOnOnesOverride: true,
    },
    email: { notifyForUnreadOnly: true, intervalInSeconds: 7200, maxPerDay: 20, maxPerDayPerConversation: 2 },
    sms: { notifyForUnreadOnly: true, intervalInSeconds: 7200, maxPerDay: 20, maxPerDayPerConversation: 2 },
    push: {
      includeMessageObjectSetting: true,
      includeSenderMetadataSetting: true,
      includeReceiverMetadataSetting: true,
      trimTextFieldSetting: false,
      includeMessageMetadataSetting: true,
      customJson: {},
    },
  },
  sound: { chat: "default", call: "default" },
  templates: {
    usePrivacyTemplate: 3,
    textMessageTemplateDefault: { titleOneOnOne: SENDER, titleGroup: GROUP_TITLE, body: "{{message.data.text}}" },
    textMessageTemplatePrivacy: { titleOneOnOne: SENDER, titleGroup: GROUP_TITLE, body: "New message" },
    mediaMessageTemplateDefault: { titleOneOnOne: SENDER, titleGroup: GROUP_TITLE, ...mediaBodies },
    mediaMessageTemplatePrivacy: { titleOneOnOne: SENDER, titleGroup: GROUP_TITLE, ...privateMedia },
    pollMessageTemplateDefault: { titleOneOnOne: SENDER, titleGroup: GROUP_TITLE, body: "📊 Has shared a poll", body_fallback: "New poll" },
    pollMessageTemplatePrivacy: { titleOneOnOne: SENDER, titleGroup: GROUP_TITLE, body: "New poll", body_fallback: "New poll" },
    reminderMessageTemplateDefault: { titleOneOnOne: SENDER, titleGroup: GROUP_TITLE, body: "⏰ Reminder", body_fallback: "New reminder" },
    reminderMessageTemplatePrivacy: { titleOneOnOne: SENDER, titleGroup: GROUP_TITLE, body: "New reminder", body_fallback: "New reminder" },
    customMessageTemplateDefault: { titleOneOnOne: SENDER, titleGroup: GROUP_TITLE, body: "{{message.metadata.pushNotification}}", body_fallback: "New message" },
    customMessageTemplatePrivacy: { titleOneOnOne: SENDER, titleGroup: GROUP_TITLE, body: "New message", body_fallback: "New message" },
    userMentionTemplateDefault: {
      titleOneOnOne: SENDER,
      titleGroup: GROUP_TITLE,
      bodyOneOnOne: "{{message.data.text}}",
      bodyGroup: "{{message.data.text}}",
      body_fallback: "You were mentioned",
    },
    userMentionTemplatePrivacy: {
      titleOneOnOne: SENDER,
      titleGroup: GROUP_TITLE,
      bodyOneOnOne: "Mentioned you",
      bodyGroup: "Mentioned you",
      body_fallback: "You were mentioned",
    },
    groupMentionTemplateDefault: { titleGroup: GROUP_TITLE, body: "{{message.data.text}}", body_fallback: "Mentioned everyone" },
    groupMentionTemplatePrivacy: { titleGroup: GROUP_TITLE, body: "Mentioned everyone", body_fallback: "Mentioned everyone" },
    emailSubjectTemplateDefault: {
      subjectGroup: "New messages in {{message.data.entities.receiver.entity.name}}",
      subjectOneOnOne: `New messages from ${SENDER}`,
    },
    emailSubjectTemplatePrivacy: { subjectGroup: "New messages", subjectOneOnOne: "New messages" },
    smsContentTemplateDefault: {
      bodyGroup: "You've received new messages in {{message.data.entities.receiver.entity.name}}!",
      bodyOneOnOne: `You've received new messages from ${SENDER}!`,
    },
    smsContentTemplatePrivacy: { bodyGroup: "You've received new messages!", bodyOneOnOne: "You've received new messages!" },
  },
};

/** The app's settings in force (the defaults until changed). */
export function appSettings(app: AppState): JsonObject {
  return app.notifications.settings ?? DEFAULT_SETTINGS;
}

export const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** `base` with `patch` merged in, objects key by key (a new object: neither input changes). */
export function merged(base: JsonObject, patch: JsonObject): JsonObject {
  const out: JsonObject = { ...base };
  for (const [k, v] of Object.entries(patch)) out[k] = isObject(v) && isObject(base[k]) ? merged(base[k] as JsonObject, v) : v;
  return out;
}

/** The value at a dotted path. */
export function at(o: Json | undefined, path: string): Json | undefined {
  let v: Json | undefined = o;
  for (const k of path.split(".")) v = isObject(v) ? v[k] : undefined;
  return v;
}

// ---- user preferences (the pnUpdatePreferences shape) ----

/** User preference keys -> the app setting they override (`…Setting` and `…Override` under preferences.{area}). */
export const GROUP_KEYS: Record<string, string> = {
  groupMessages: "messages",
  groupReplies: "replies",
  groupQuotedReplies: "quotedReplies",
  groupReactions: "reactions",
  groupMemberLeft: "memberLeft",
  groupMemberAdded: "memberAdded",
  groupMemberJoined: "memberJoined",
  groupMemberKicked: "memberKicked",
  groupMemberBanned: "memberBanned",
  groupMemberUnbanned: "memberUnbanned",
  groupMemberScopeChanged: "memberScopeChanged",
};
export const ONE_ON_ONE_KEYS: Record<string, string> = {
  oneOnOneMessages: "messages",
  oneOnOneReplies: "replies",
  oneOnOneQuotedReplies: "quotedReplies",
  oneOnOneReactions: "reactions",
};

/** Effective setting for `area` (group | oneOnOne | call) and `name` (messages, memberLeft, ...) for one user. */
export function effectiveSetting(app: AppState, uid: string, area: "group" | "oneOnOne" | "call", name: string): number {
  const settings = appSettings(app);
  const base = at(settings, `preferences.${area}.${name}Setting`);
  const fallback = typeof base === "number" ? base : 2;
  if (area === "call" || at(settings, `preferences.${area}.${name}Override`) !== true) return fallback;
  const keys = area === "group" ? GROUP_KEYS : ONE_ON_ONE_KEYS;
  const userKey = Object.keys(keys).find((k) => keys[k] === name);
  const mine = userKey && at(app.notifications.user(uid)?.preferences, `${area}Preferences.${userKey}`);
  return typeof mine === "number" ? mine : fallback;
}

/** Do-not-disturb (1 off, 2 on) and the weekly schedule in force for one user. */
export function effectiveMute(app: AppState, uid: string): { dnd: number; schedule: JsonObject } {
  const settings = appSettings(app);
  const prefs = app.notifications.user(uid)?.preferences;
  const dndMine = at(prefs, "mutePreferences.dnd");
  const scheduleMine = at(prefs, "mutePreferences.schedule");
  const dnd = at(settings, "preferences.mute.dndPreferenceOverride") === true && typeof dndMine === "number" ? dndMine : (at(settings, "preferences.mute.dndPreferenceSetting") as number);
  const base = (at(settings, "preferences.mute.schedulePreferenceSetting") as JsonObject | undefined) ?? wholeDay();
  const schedule = at(settings, "preferences.mute.schedulePreferenceOverride") === true && isObject(scheduleMine) ? merged(base, scheduleMine) : base;
  return { dnd, schedule };
}

/** Whether the user sees privacy templates: the app's choice (1 default, 2 privacy) or, with 3, the user's. */
export function usesPrivacy(app: AppState, uid: string): boolean {
  const mode = at(appSettings(app), "templates.usePrivacyTemplate");
  if (mode === 2) return true;
  if (mode !== 3) return false;
  return at(app.notifications.user(uid)?.preferences, "usePrivacyTemplate") === true;
}
