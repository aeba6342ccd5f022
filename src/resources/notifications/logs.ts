import { operation, routes } from "../../http/operation.js";
import { q } from "../../http/query-spec.js";
import type { Notification } from "../../notifications/outbox.js";
import { CHANNELS, PROVIDERS } from "../../control/notifications.js";

/** `GET /notifications/v1/logs` (§18.7): the outbox's records of the app, in the platform's log shape. */

const PAGE = 20;
const TRIGGERS = [
  "after_message",
  "message_deleted",
  "message_edited",
  "message_reaction_added",
  "initiated",
  "rejected",
  "cancelled",
  "unanswered",
  "after_group_joined",
  "after_group_left",
  "after_group_members_added",
  "after_group_members_kicked",
  "after_group_members_banned",
  "after_group_members_unbanned",
  "after_scope_changed",
] as const;
const REASONS = [
  "MESSAGES_PREFERENCE",
  "REPLIES_PREFERENCE",
  "QUOTED_REPLIES_PREFERENCE",
  "MESSAGE_ACTIONS_PREFERENCE",
  "REACTIONS_PREFERENCE",
  "GROUP_ACTIONS_PREFERENCE",
  "DND_PREFERENCE",
  "MUTE_PREFERENCE",
  "SCHEDULE_PREFERENCE",
  "CALL_PREFERENCE",
  "QUOTA_PREFERENCE",
  "MISSING_EMAIL",
  "MISSING_PHNO",
  "INVALID_PUSH_PROVIDER_ID",
  "TIMED_OUT",
  "NOT_FOUND",
  "TWILIO_CREATE_ERROR",
  "BLOCKED",
  "SENDER",
  "READ",
] as const;

export function logView(n: Notification): Record<string, unknown> {
  const end = n.processingEndedAtMS;
  return {
    _id: n._id,
    processingStartedAtMS: n.processingStartedAtMS,
    processingEndedAtMS: end ?? null,
    totalProcessingTimeInMS: end === undefined ? null : end - n.processingStartedAtMS,
    component: "notifications-core",
    channel: n.channel,
    provider: n.provider,
    messageId: n.messageId,
    reactionId: n.reactionId ?? null,
    trigger: n.trigger,
    messageSentAtMS: n.messageSentAtMS,
    sender: n.sender,
    reactionSender: n.reactionSender ?? null,
    receiver: n.receiver,
    reactionReceiver: n.reactionReceiver ?? null,
    receiverType: n.receiverType,
    member: n.member ?? null,
    tokenType: n.tokenType ?? null,
    pushToken: n.pushToken ?? null,
    providerId: n.providerId ?? null,
    payload: n.payload ?? null,
    notificationTriggered: n.notificationTriggered,
    reason: n.reason ?? null,
    success: n.success ?? null,
  };
}

const LOWER = ["sender", "reactionSender", "receiver", "reactionReceiver", "member"] as const;

export const logs = routes(
  operation({
    id: "notifications-logs",
    method: "GET",
    path: "/notifications/v1/logs",
    plane: "rest",
    query: {
      messageId: q.int(),
      reactionId: q.int(),
      from: q.int(),
      to: q.int(),
      messageCategory: q.oneOf(["message"]),
      messageType: q.str(),
      trigger: q.oneOf(TRIGGERS),
      sender: q.str(),
      reactionSender: q.str(),
      receiver: q.str(),
      reactionReceiver: q.str(),
      member: q.str(),
      receiverType: q.oneOf(["user", "group"]),
      channel: q.oneOf(CHANNELS),
      provider: q.oneOf(PROVIDERS),
      notificationTriggered: q.optBool(),
      reason: q.oneOf(REASONS),
      success: q.optBool(),
      affix: q.oneOf(["prepend", "append"]),
      logId: q.str(),
    },
    handler: (c, { query }) => {
      const { messageId, reactionId, from, to, messageCategory, messageType, trigger, receiverType, channel, provider, reason, success, logId } = query;
      const triggered = query.notificationTriggered;
      const affix = query.affix ?? "append";
      const [sender, reactionSender, receiver, reactionReceiver, member] = LOWER.map((name) => query[name]?.toLowerCase());
      const app = c.get("app");
      const { notifications } = c.get("emulator");
      const message = (n: Notification) => app.messages.get(n.messageId);
      // Newest first; `append` pages go back in time from the cursor, `prepend` forward.
      const all = notifications
        .list({ appId: app.meta.appId })
        .filter(
          (n) =>
            (messageId === undefined || n.messageId === messageId) &&
            (reactionId === undefined || n.reactionId === reactionId) &&
            (from === undefined || n.messageSentAtMS >= from) &&
            (to === undefined || n.messageSentAtMS <= to) &&
            (messageCategory === undefined || message(n)?.category === messageCategory) &&
            (messageType === undefined || message(n)?.type === messageType) &&
            (trigger === undefined || n.trigger === trigger) &&
            (sender === undefined || n.sender === sender) &&
            (reactionSender === undefined || n.reactionSender === reactionSender) &&
            (receiver === undefined || n.receiver === receiver) &&
            (reactionReceiver === undefined || n.reactionReceiver === reactionReceiver) &&
            (member === undefined || n.member === member) &&
            (receiverType === undefined || n.receiverType === receiverType) &&
            (channel === undefined || n.channel === channel) &&
            (provider === undefined || n.provider === provider) &&
            (triggered === undefined || n.notificationTriggered === triggered) &&
            (reason === undefined || n.reason === reason) &&
            (success === undefined || n.success === success),
        )
        .reverse();
      const at = logId === undefined ? -1 : all.findIndex((n) => n._id === logId);
      const items = logId === undefined || at === -1 ? all.slice(0, PAGE) : affix === "append" ? all.slice(at + 1, at + 1 + PAGE) : all.slice(Math.max(0, at - PAGE), at);
      const first = items[0];
      const last = items.at(-1);
      return c.json({
        data: items.map(logView),
        meta: {
          previous: { affix: "prepend", logId: first?._id ?? logId ?? null, messageId: first?.messageId ?? null },
          current: { limit: PAGE, count: items.length },
          next: { affix: "append", logId: last?._id ?? logId ?? null, messageId: last?.messageId ?? null },
        },
      });
    },
  }),
);
