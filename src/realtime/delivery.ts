import type { AppState } from "../store/app-state.js";
import { parseConversationId } from "../store/conversation-ids.js";
import type { DomainEvent } from "../store/events.js";
import type { MessageRecord } from "../store/types.js";
import { messageView } from "../views/messages.js";
import type { Session } from "./sessions.js";

/**
 * Which domain events become WebSocket frames, what the frame says and who gets it. Who may see a message is
 * decided as for listing messages: the two parties of a one-on-one conversation; the members of a group (banned,
 * kicked and departed users are members no more); for a member action, also the member it is about (a kicked
 * user hears of the kick).
 */

/** A frame for some users of an app, built only once someone online is to get it. */
export type Delivery =
  | {
      frame(): Record<string, unknown>;
      /** The message whose conversation decides who gets the frame. */
      about: MessageRecord;
      /** Only these users (receipts go to the message's sender). */
      only?: string | readonly string[];
      /** Sent this many milliseconds later (see MODERATION_VERDICT_DELAY_MS). */
      after?: number;
    }
  | { frame(): Record<string, unknown>; only: string };

/**
 * The event of an interactive message's goal completed by a user (`{user, interactions}`): the SDK's
 * `interaction_completed` frame (onInteractionGoalCompleted), to the message's sender and that user.
 */
export const INTERACTION_GOAL_COMPLETED = "message_interaction_goal_completed";

/**
 * The moderation engine's verdict on a message (`moderation_engine_approved` / `_blocked`) reaches its sender as an
 * `on_moderation_status_changed` frame (the SDK's onMessageModerated) this long after the send, so after the send's
 * answer (which the SDK's send shows as `pending`): the order sdk/javascript/ai-moderation draws.
 */
export const MODERATION_VERDICT_DELAY_MS = 50;
const MODERATION_VERDICTS = new Set(["moderation_engine_approved", "moderation_engine_blocked"]);

/** The event a new notification feed item makes (`{feedItem}`): a `notification_feed_item` frame to its receiver. */
export const FEED_ITEM_SENT = "notification_feed_item_sent";

/** Webhook triggers whose event carries a message record that clients see as a `message` frame. */
const MESSAGE_TRIGGERS = new Set([
  "message_sent",
  "message_edited",
  "message_deleted",
  "group_member_joined",
  "group_member_left",
  "group_member_added",
  "group_member_kicked",
  "group_member_banned",
  "group_member_unbanned",
  "group_member_scope_changed",
  "call_initiated",
  "call_started",
  // A later join of a group call (signalled by the SDK; a recorded call's joins carry no message).
  "call_participant_joined",
  "call_ended",
  "call_busy",
  "call_unanswered",
  "call_rejected",
  "call_cancelled",
]);

function envelope(app: AppState, m: MessageRecord, type: string, sender: string, deviceId: string | undefined, body: unknown) {
  const frame: Record<string, unknown> = { appId: app.meta.appId, receiver: m.receiver, receiverType: m.receiverType };
  if (deviceId) frame.deviceId = deviceId;
  frame.sender = sender;
  frame.type = type;
  frame.body = body;
  return frame;
}

/** The receipt events: each goes to the message's sender as a `receipts` frame (its `body.action` says which). */
const RECEIPTS = new Set(["message_read_receipt", "message_delivery_receipt", "message_delivered_to_all_receipt", "message_read_by_all_receipt"]);

/** The frame a domain event becomes, or undefined for events clients do not hear about. */
export function deliveryOf(e: DomainEvent, deviceId: string | undefined): Delivery | undefined {
  if (e.trigger === FEED_ITEM_SENT) {
    const { feedItem } = e.data() as { feedItem: { receiver: string } };
    // The SDK's frame: `type: "notification_feed_item"`, `body.action: "sent"`, `body.feedItem` (its listener's item).
    return { only: feedItem.receiver, frame: () => ({ appId: e.app.meta.appId, type: "notification_feed_item", body: { action: "sent", feedItem } }) };
  }
  const m = e.message;
  if (!m) return undefined;
  const app = e.app;
  if (MESSAGE_TRIGGERS.has(e.trigger)) return { frame: () => envelope(app, m, "message", m.sender, deviceId, messageView(app, m)), about: m };
  if (e.trigger === "message_reaction_added" || e.trigger === "message_reaction_removed")
    return {
      about: m,
      frame() {
        const { reaction } = e.data() as { reaction: Record<string, unknown> & { uid: string } };
        const body: Record<string, unknown> = { action: e.trigger, ...reaction, conversationId: m.conversationId };
        if (m.parentId !== undefined) body.parentId = String(m.parentId);
        // The SDK's constant for this frame type is "reaction".
        return envelope(app, m, "reaction", reaction.uid, deviceId, body);
      },
    };
  if (e.trigger === INTERACTION_GOAL_COMPLETED) {
    const { user } = e.data() as { user: { uid: string } };
    return {
      about: m,
      only: [m.sender, user.uid],
      frame() {
        const body = { ...(e.data() as Record<string, unknown>), messageId: String(m.id) };
        // No deviceId: the SDK drops frames of its own session, and the interacting session is to hear this one too.
        return { ...envelope(app, m, "interaction_completed", user.uid, undefined, body), messageSender: m.sender };
      },
    };
  }
  if (MODERATION_VERDICTS.has(e.trigger))
    return {
      about: m,
      only: m.sender,
      after: MODERATION_VERDICT_DELAY_MS,
      frame: () => envelope(app, m, "on_moderation_status_changed", m.sender, undefined, messageView(app, m)),
    };
  if (RECEIPTS.has(e.trigger))
    return {
      about: m,
      only: m.sender,
      frame() {
        const frame: Record<string, unknown> = { appId: app.meta.appId, ...(e.data() as Record<string, unknown>) };
        if (deviceId) frame.deviceId = deviceId;
        return frame;
      },
    };
  return undefined;
}

/** The online users who see `m`: `online` is the app's users with a live session. */
export function recipients(app: AppState, m: MessageRecord, online: ReadonlyMap<string, ReadonlySet<Session>>): string[] {
  const parsed = parseConversationId(m.conversationId);
  if (!parsed) return [];
  if ("uids" in parsed) return [...new Set(parsed.uids)].filter((uid) => online.has(uid));
  const members = app.groups.get(parsed.guid) ? app.groups.membership(parsed.guid).members : undefined;
  const out: string[] = [];
  if (members) {
    // Walk the smaller side: a large group with few users online, or many users online and a small group.
    if (online.size < members.size) {
      for (const uid of online.keys()) if (members.has(uid)) out.push(uid);
    } else for (const uid of members.keys()) if (online.has(uid)) out.push(uid);
  }
  if (m.category === "action" && m.type === "groupMember") {
    const subject = (m.data.entities as { on?: { entity?: { uid?: string } } } | undefined)?.on?.entity?.uid;
    if (subject && !out.includes(subject) && online.has(subject)) out.push(subject);
  }
  return out;
}
