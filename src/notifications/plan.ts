import type { AppState } from "../store/app-state.js";
import { parseConversationId } from "../store/conversation-ids.js";
import type { DomainEvent } from "../store/events.js";
import type { JsonObject, MessageRecord } from "../store/types.js";
import { canSee } from "../views/access.js";
import { messageView } from "../views/messages.js";
import { at } from "./settings.js";

/**
 * What one domain event means for notifications: the log trigger, the setting that governs it, who acted, the
 * message it is about and who could be notified. Events the platform does not notify about have no plan.
 */
export interface Plan {
  /** The store's trigger (message_sent, ...) and the notification log's (after_message, ...). */
  event: string;
  trigger: string;
  kind: "chat" | "call";
  area: "group" | "oneOnOne" | "call";
  /** The setting's name in the app settings (messages, memberJoined, initiated, ...). */
  setting: string;
  /** The log reason when that setting says no. */
  reason: string;
  actor: string;
  message: MessageRecord;
  /** The message as the API shows it: the templates' `message`. */
  view: () => Record<string, unknown>;
  mentions: ReadonlySet<string>;
  /** Users the event concerns, the actor excluded (before any preference). */
  parties: Parties;
  /** Only these may be notified at all (reactions under setting 2: the message's author). */
  target?: (uid: string, setting: number) => boolean;
  /** Title and body that do not come from the message templates (reactions, group actions, calls). */
  text?: (receiverName: string) => { title: string; body: string };
  reaction?: { id: number; uid: string; reaction: string };
  /** Email and SMS digests are about new messages only. */
  digest: boolean;
  call?: { action: string; sessionId: string; callType: string };
}

const MEMBER_EVENTS: Record<string, [string, string]> = {
  group_member_joined: ["after_group_joined", "memberJoined"],
  group_member_left: ["after_group_left", "memberLeft"],
  group_member_added: ["after_group_members_added", "memberAdded"],
  group_member_kicked: ["after_group_members_kicked", "memberKicked"],
  group_member_banned: ["after_group_members_banned", "memberBanned"],
  group_member_unbanned: ["after_group_members_unbanned", "memberUnbanned"],
  group_member_scope_changed: ["after_scope_changed", "memberScopeChanged"],
};
const CALL_EVENTS: Record<string, string> = {
  call_initiated: "initiated",
  call_rejected: "rejected",
  call_cancelled: "cancelled",
  call_unanswered: "unanswered",
};
const MESSAGE_REASONS: Record<string, string> = {
  messages: "MESSAGES_PREFERENCE",
  replies: "REPLIES_PREFERENCE",
  quotedReplies: "QUOTED_REPLIES_PREFERENCE",
};

/** Who an event concerns: all of them (a walk of the conversation), or one question (a lookup). */
export interface Parties {
  all(): string[];
  has(uid: string): boolean;
}

/**
 * Everyone in the message's conversation who may see it, but `except`: the existing access rules decide
 * (membership, bans, departures). `has` answers without walking a large group.
 */
function partiesOf(app: AppState, m: MessageRecord, except: string): Parties {
  const parsed = m.receiverType === "user" ? parseConversationId(m.conversationId) : undefined;
  const direct: string[] = parsed && "uids" in parsed ? parsed.uids : [];
  const has = (uid: string) => {
    if (uid === except) return false;
    const inConversation = m.receiverType === "group" ? app.groups.member(m.receiver, uid) !== undefined : direct.includes(uid);
    const user = inConversation ? app.activeUser(uid) : undefined;
    return user !== undefined && canSee(app, user, m);
  };
  return {
    has,
    all: () => [...(m.receiverType === "group" ? (app.groups.membership(m.receiver)?.members.keys() ?? []) : direct)].filter(has),
  };
}

const only = (app: AppState, uid: string | undefined): Parties => ({
  has: (u) => u === uid && app.activeUser(u) !== undefined,
  all: () => (uid !== undefined && app.activeUser(uid) ? [uid] : []),
});

const nameOf = (app: AppState, uid: string) => app.users.get(uid)?.name ?? uid;
const entityName = (m: MessageRecord, which: string) => String(at(m.data, `entities.${which}.entity.name`) ?? at(m.data, `entities.${which}.entity.uid`) ?? "");

function memberText(m: MessageRecord): string {
  const by = entityName(m, "by");
  const on = entityName(m, "on");
  switch (at(m.data, "action")) {
    case "joined":
      return `${on} has joined`;
    case "left":
      return `${on} has left`;
    case "added":
      return `${by} added ${on}`;
    case "kicked":
      return `${by} kicked ${on}`;
    case "banned":
      return `${by} banned ${on}`;
    case "unbanned":
      return `${by} unbanned ${on}`;
    default:
      return `${by} made ${on} ${String(at(m.data, "extras.scope.new") ?? "")}`.trim();
  }
}

/**
 * The plan of an event, or undefined. Message views come from the event's own payload where it has one (built
 * once for every subscriber), else are built on first use.
 */
export function planOf(event: DomainEvent): Plan | undefined {
  const app = event.app;
  const area = (m: MessageRecord) => (m.receiverType === "group" ? "group" : "oneOnOne");
  const lazyView = (m: MessageRecord) => {
    let v: Record<string, unknown> | undefined;
    return () => (v ??= messageView(app, m));
  };
  const m = event.message;
  switch (event.trigger) {
    case "message_sent": {
      if (!m || (m.category !== "message" && m.category !== "custom")) return undefined;
      const setting = m.parentId !== undefined ? "replies" : m.quotedMessageId !== undefined ? "quotedReplies" : "messages";
      return {
        event: event.trigger,
        trigger: "after_message",
        kind: "chat",
        area: area(m),
        setting,
        reason: MESSAGE_REASONS[setting],
        actor: m.sender,
        message: m,
        view: () => (event.data() as { message: Record<string, unknown> }).message,
        mentions: new Set(m.mentionedUids ?? []),
        parties: partiesOf(app, m, m.sender),
        digest: true,
      };
    }
    case "message_edited":
    case "message_deleted": {
      if (!m) return undefined;
      const original = at(m.data, "entities.on.entity") as JsonObject | undefined;
      const edited = event.trigger === "message_edited";
      return {
        event: event.trigger,
        trigger: event.trigger,
        kind: "chat",
        area: area(m),
        setting: edited ? "messageEdited" : "messageDeleted",
        reason: "MESSAGE_ACTIONS_PREFERENCE",
        actor: m.sender,
        message: m,
        view: () => original ?? {},
        mentions: new Set(),
        parties: partiesOf(app, m, m.sender),
        text: () => ({
          title: nameOf(app, m.sender),
          body: edited ? String(at(original, "data.text") ?? "Message edited") : "This message was deleted",
        }),
        digest: false,
      };
    }
    case "message_reaction_added": {
      if (!m) return undefined;
      const r = (event.data() as { reaction: { id: string; uid: string; reaction: string } }).reaction;
      return {
        event: event.trigger,
        trigger: event.trigger,
        kind: "chat",
        area: area(m),
        setting: "reactions",
        reason: "REACTIONS_PREFERENCE",
        actor: r.uid,
        message: m,
        view: lazyView(m),
        mentions: new Set(),
        parties: partiesOf(app, m, r.uid),
        // 2: reactions on one's own messages; 3: on all messages.
        target: (uid, setting) => setting === 3 || uid === m.sender,
        text: () => ({ title: nameOf(app, r.uid), body: `Reacted to your message: ${r.reaction}` }),
        reaction: { id: Number(r.id), uid: r.uid, reaction: r.reaction },
        digest: false,
      };
    }
  }
  if (event.trigger in MEMBER_EVENTS) {
    if (!m) return undefined;
    const [trigger, setting] = MEMBER_EVENTS[event.trigger];
    return {
      event: event.trigger,
      trigger,
      kind: "chat",
      area: "group",
      setting,
      reason: "GROUP_ACTIONS_PREFERENCE",
      actor: m.sender,
      message: m,
      view: lazyView(m),
      mentions: new Set(),
      parties: partiesOf(app, m, m.sender),
      text: () => ({ title: entityName(m, "for"), body: memberText(m) }),
      digest: false,
    };
  }
  if (event.trigger in CALL_EVENTS) {
    const id = Number((event.data() as { call?: { id?: string } }).call?.id);
    const call = app.messages.get(id);
    if (!call) return undefined;
    const action = CALL_EVENTS[event.trigger];
    const initiator = String(at(call.data, "entities.on.entity.initiator") ?? call.sender);
    const actor = String(at(call.data, "entities.by.entity.uid") ?? call.sender);
    const parties = action === "rejected" ? only(app, initiator === actor ? undefined : initiator) : partiesOf(app, call, initiator);
    return {
      event: event.trigger,
      trigger: action,
      kind: "call",
      area: "call",
      setting: action,
      reason: "CALL_PREFERENCE",
      actor,
      message: call,
      view: lazyView(call),
      mentions: new Set(),
      parties,
      text: () => ({ title: nameOf(app, actor), body: `${call.type.toUpperCase()} CALL` }),
      digest: false,
      call: { action, sessionId: String(at(call.data, "entities.on.entity.sessionid") ?? ""), callType: call.type },
    };
  }
  return undefined;
}
