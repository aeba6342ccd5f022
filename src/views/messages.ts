import type { AppState } from "../store/app-state.js";
import { userConversationId } from "../store/conversation-ids.js";
import type { GroupRecord, JsonObject, MessageRecord, UserRecord } from "../store/types.js";
import { groupEntity, groupShowsSame } from "./groups.js";
import { showsSame, userEntity } from "./users.js";

export const SYSTEM_UID = "app_system";

/** The entity of a uid: the live user, the system actor, or what is left of a permanently deleted user. */
export function actorEntity(app: AppState, uid: string): Record<string, unknown> {
  const user = app.users.get(uid);
  if (user) return userEntity(user);
  if (uid === SYSTEM_UID) return { uid, name: "System", role: "default", status: "offline", createdAt: app.meta.createdAt };
  return { uid, name: uid, role: "default", status: "offline", createdAt: app.meta.createdAt };
}

export function entity(value: Record<string, unknown>, entityType: "user" | "group" | "message"): JsonObject {
  return { entity: value, entityType } as JsonObject;
}

/** Entities built during one reply, by sender and receiver: a page of one conversation builds two, not a hundred. */
export type EntityMemo = Map<string, JsonObject>;

export interface MessageViewOptions {
  /** `hideQuotedMessages`: leave out the `quotedMessage` node. */
  hideQuoted?: boolean;
  /** A quoted message is shown one level deep only. */
  nested?: boolean;
  /** `withThreadSubscribed`: say whether the viewer follows each message's thread. */
  threadSubscribed?: boolean;
  /** (messageText) A chat message's entities are left as ENTITIES_SLOT, to be written in as text. */
  entitiesSlot?: boolean;
}

/** What `data.entities` holds while `messageText` writes the entities in as text. */
const ENTITIES_SLOT = 0;

/** Action and call messages carry entities of their own (snapshots); the others show their live sender and receiver. */
const hasChatEntities = (m: MessageRecord): boolean => m.category !== "action" && m.category !== "call";

/**
 * A message as the API shows it. Chat and custom messages get their sender/receiver entities from the live
 * user and group; action messages carry the snapshots taken when they happened. Pins show to everyone who sees
 * the message; `savedAt` and interactions only to the viewer they belong to.
 */
export function messageView(
  app: AppState,
  m: MessageRecord,
  viewer?: UserRecord,
  memo?: EntityMemo,
  opts: MessageViewOptions = {},
): Record<string, unknown> {
  const out: Record<string, unknown> = { id: String(m.id) };
  if (m.muid !== undefined) out.muid = m.muid;
  out.conversationId = m.conversationId;
  out.sender = m.sender;
  out.receiverType = m.receiverType;
  out.receiver = m.receiver;
  out.category = m.category;
  out.type = m.type;
  const data: Record<string, unknown> = hasChatEntities(m)
    ? withEntities(m.data, opts.entitiesSlot ? ENTITIES_SLOT : chatEntities(app, m, memo))
    : { ...m.data };
  if (viewer && m.category === "action" && m.receiverType === "group") data.entities = withViewerConversation(data.entities, viewer);
  const reactions = app.reactions.summary(m.id, viewer?.uid);
  if (reactions.length > 0) data.reactions = reactions;
  const interactions = viewer && m.category === "interactive" ? app.interactions.of(viewer.uid, m.id) : undefined;
  if (interactions) data.interactions = interactions;
  out.data = data;
  out.sentAt = m.sentAt;
  out.updatedAt = m.updatedAt;
  if (m.parentId !== undefined) out.parentId = String(m.parentId);
  if (m.replyCount !== undefined) out.replyCount = m.replyCount;
  if (m.editedAt !== undefined) out.editedAt = m.editedAt;
  if (m.editedBy !== undefined) out.editedBy = m.editedBy;
  if (m.deletedAt !== undefined) out.deletedAt = m.deletedAt;
  if (m.deletedBy !== undefined) out.deletedBy = m.deletedBy;
  if (m.tags !== undefined) out.tags = m.tags;
  if (m.mentionedUids?.length) {
    out.mentionedUsers = m.mentionedUids.map((uid) => actorEntity(app, uid));
    if (viewer) out.mentionedMe = m.mentionedUids.includes(viewer.uid);
  }
  if (m.receiverType === "user") {
    // Receipts of a one-on-one message: how far its receiver has marked the conversation.
    const state = app.conversations.state(m.receiver, m.conversationId);
    // Imported history carries its own times.
    if (m.deliveredAt !== undefined) out.deliveredAt = m.deliveredAt;
    else if (app.messages.upTo(m, state?.deliveredId)) out.deliveredAt = state!.deliveredAt;
    if (m.readAt !== undefined) out.readAt = m.readAt;
    else if (app.messages.upTo(m, state?.readId)) out.readAt = state!.readAt;
  }
  if (m.quotedMessageId !== undefined) {
    out.quotedMessageId = String(m.quotedMessageId);
    const quoted = opts.hideQuoted || opts.nested ? undefined : app.messages.get(m.quotedMessageId);
    if (quoted) out.quotedMessage = messageView(app, quoted, viewer, memo, { nested: true });
  }
  if (m.pinnedAt !== undefined) {
    out.pinnedBy = m.pinnedBy;
    out.pinnedAt = m.pinnedAt;
  }
  if (opts.threadSubscribed && viewer && m.parentId === undefined)
    out.threadSubscribed = app.threadSubscriptions.at(viewer.uid, m.id) !== undefined;
  const savedAt = viewer ? app.savedMessages.at(viewer.uid, m.id) : undefined;
  if (savedAt !== undefined) out.savedAt = savedAt;
  return out;
}

/**
 * `JSON.stringify(messageView(app, m, viewer, memo, opts))`, for less: a chat message's sender and receiver entities
 * (half of a sent message's reply, and the costliest half to stringify) come as a text kept per sender
 * (entitiesText). The view is stringified with a slot for its data, the data with a slot for the entities, and the
 * texts are joined at the slots. The first `"data":0` of the view's text is its own key (only strings come before
 * it, and inside a JSON string a quote is always escaped); the last `"entities":0` of the data's text is its own
 * (after it come only reactions and interactions, which have no such key; a message whose data has its own
 * `entities` key, which could place the slot earlier, is stringified whole).
 */
export function messageText(app: AppState, m: MessageRecord, viewer?: UserRecord, memo?: EntityMemo, opts: MessageViewOptions = {}): string {
  const parties = hasChatEntities(m) && !Object.hasOwn(m.data, "entities") ? liveParties(app, m) : undefined;
  if (!parties) return JSON.stringify(messageView(app, m, viewer, memo, opts));
  const view = messageView(app, m, viewer, memo, { ...opts, entitiesSlot: true });
  const data = view.data as Record<string, unknown>;
  view.data = 0;
  const outer = JSON.stringify(view);
  const inner = JSON.stringify(data);
  const d = outer.indexOf('"data":0') + '"data":'.length;
  const e = inner.lastIndexOf('"entities":0') + '"entities":'.length;
  return outer.slice(0, d) + inner.slice(0, e) + entitiesText(app, m, parties) + inner.slice(e + 1) + outer.slice(d + 1);
}

type Parties = [sender: UserRecord, receiver: UserRecord | GroupRecord];

/** A chat message's sender and receiver records, when both are live (not the system, a user deleted for good, a deleted group). */
function liveParties(app: AppState, m: MessageRecord): Parties | undefined {
  const sender = app.users.get(m.sender);
  const receiver = m.receiverType === "user" ? app.users.get(m.receiver) : app.groups.get(m.receiver);
  return sender && receiver ? [sender, receiver] : undefined;
}

/** What one sender's last entities were written from (its receiver: a user or a group), and their text. */
interface KeptEntities {
  receiver: UserRecord | GroupRecord;
  conversationId: string;
  senderShown: Record<string, unknown>;
  receiverShown: Record<string, unknown>;
  text: string;
}

/**
 * Per sender record, the text of its last entities. Valid while the receiver record and conversation are the same
 * and both still show what their entities showed (records change in place; see `showsSame`, `groupShowsSame`).
 * Kept by record, it goes with the record (a reset, a permanent delete).
 */
const keptEntities = new WeakMap<UserRecord, KeptEntities>();

/** `JSON.stringify(chatEntities(app, m))`, reused while nothing it shows has changed. */
function entitiesText(app: AppState, m: MessageRecord, [sender, receiver]: Parties): string {
  const kept = keptEntities.get(sender);
  if (
    kept?.receiver === receiver &&
    kept.conversationId === m.conversationId &&
    showsSame(sender, kept.senderShown) &&
    ("guid" in receiver ? groupShowsSame(app, receiver, kept.receiverShown) : showsSame(receiver, kept.receiverShown))
  )
    return kept.text;
  const entities = chatEntities(app, m) as { sender: { entity: Record<string, unknown> }; receiver: { entity: Record<string, unknown> } };
  const text = JSON.stringify(entities);
  keptEntities.set(sender, {
    receiver,
    conversationId: m.conversationId,
    senderShown: entities.sender.entity,
    receiverShown: entities.receiver.entity,
    text,
  });
  return text;
}

/**
 * `{ ...data, entities }`, built by a loop: on Node 20's V8 a spread followed by a property costs about 1 µs (the
 * clone's map has no transition to reuse), a loop about 50 ns; with a hundred messages a reply, that shows.
 */
function withEntities(data: JsonObject, entities: JsonObject | typeof ENTITIES_SLOT): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key in data) {
    // A parsed body may carry an own "__proto__": copied as data, as the spread does, not set as the prototype.
    if (key === "__proto__") Object.defineProperty(out, key, { value: data[key], writable: true, enumerable: true, configurable: true });
    else out[key] = data[key];
  }
  out.entities = entities;
  return out;
}

/** A group action's affected user (`on`) as the viewer sees it: with the id of their conversation with that user. */
function withViewerConversation(entities: unknown, viewer: UserRecord): unknown {
  const on = (entities as { on?: { entity?: { uid?: unknown }; entityType?: string } } | undefined)?.on;
  if (on?.entityType !== "user" || typeof on.entity?.uid !== "string" || on.entity.uid === viewer.uid) return entities;
  const conversationId = userConversationId(viewer.uid, on.entity.uid);
  return { ...(entities as object), on: { ...on, entity: { ...on.entity, conversationId } } };
}

function chatEntities(app: AppState, m: MessageRecord, memo?: EntityMemo): JsonObject {
  const key = memo && `${m.sender}\u0000${m.receiverType}\u0000${m.receiver}`;
  const known = key && memo.get(key);
  if (known) return known;
  let receiver: JsonObject;
  if (m.receiverType === "group") {
    const group = app.groups.get(m.receiver);
    receiver = entity(group ? groupEntity(app, group) : { guid: m.receiver, conversationId: m.conversationId }, "group");
  } else {
    const user = actorEntity(app, m.receiver);
    user.conversationId = m.conversationId;
    receiver = entity(user, "user");
  }
  const entities = { sender: entity(actorEntity(app, m.sender), "user"), receiver } as JsonObject;
  if (key) memo.set(key, entities);
  return entities;
}

/** The affected user of an action (`on`): a user entity with its optional attributes. */
export function subjectEntity(u: UserRecord): Record<string, unknown> {
  const out = userEntity(u);
  if (u.link !== undefined) out.link = u.link;
  return out;
}
