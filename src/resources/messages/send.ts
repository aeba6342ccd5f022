import { apiError } from "../../http/errors.js";
import { normalizeUid } from "../../http/auth.js";
import { readBody, validate, type Body } from "../../http/validate.js";
import { bodySchema, type Schema } from "../../http/schema.js";
import { checkBody } from "../../http/body-check.js";
import { header, type Ctx } from "../../http/context.js";
import { applyExtensions } from "../../extensions/effects.js";
import type { AppState } from "../../store/app-state.js";
import { groupConversationId, userConversationId } from "../../store/conversation-ids.js";
import type { JsonObject, MessageCategory, MessageRecord, ReceiverType, UserRecord } from "../../store/types.js";
import { FULL_FEATURE_MEMBERS, pathGroup } from "../groups/membership.js";
import { friendsOnly, requireAllowed, requireListed, requireScopeAllowed } from "../roles/enforce.js";
import { requireUser } from "../users/lookup.js";
import { messageView, SYSTEM_UID } from "../../views/messages.js";
import { canSee } from "../../views/access.js";
import { userView } from "../../views/users.js";
import { isHeld, moderateSend } from "../moderation/screen.js";

export const MESSAGE_TYPES = ["text", "image", "file", "audio", "video"] as const;

/**
 * rest-api/messages: "The message JSON payload (including metadata) can be up to 65,536 characters (~65 KB)" and
 * "The `data` object within a message must not exceed 10 KB": a send's or an edit's body may be 64 KB, its `data` 10.
 */
export const MESSAGE_BODY_LIMIT = 64 * 1024;
export const MESSAGE_DATA = { type: "object", maxKb: 10 } as const;

/** A body whose `data` is checked for its size alone (compiled once). */
export const DATA_SIZE = bodySchema({ data: MESSAGE_DATA });
const TAGS = { type: "array", max: 25, items: { required: true, type: "string", max: 100 } } as const;

/** An edit's body (`PUT /messages/{id}`). */
export const EDIT: Schema = { data: MESSAGE_DATA, tags: TAGS };

/**
 * The fields of a send's or thread reply's body. Those operations read their body themselves (JSON, or multipart
 * on the client plane), and check it in the platform's order with its specific codes (readContent): these names,
 * the declarations' `rawFields`, serve request advice and strict mode (http/operation.ts `rawBodyRead`).
 */
export const SEND_FIELDS: Schema = {
  receiver: { type: "string" },
  receiverType: { type: "string", in: ["user", "group"] },
  multipleReceivers: { type: "object" },
  category: { type: "string", in: ["message", "custom", "interactive"] },
  type: { type: "string" },
  data: MESSAGE_DATA,
  muid: { type: "string", max: 255 },
  tags: TAGS,
  quotedMessageId: { type: "string" },
};
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The JSON body of a send or thread reply. Its `data` is measured only when the body may be larger than the
 * `data` limit (a declared length over it, or none): a smaller body cannot hold a larger `data`.
 */
export async function readMessageBody(c: Ctx): Promise<Body> {
  const body = await readBody(c, MESSAGE_BODY_LIMIT);
  const length = header(c, "content-length");
  // A `data` that is no object gets the send's own code (readContent), not a size check's.
  if ((length === undefined || Number(length) > MESSAGE_DATA.maxKb * 1024) && isObject(body.data)) await checkBody(body, DATA_SIZE);
  return body;
}
const MENTION = /<@uid:([A-Za-z0-9-]+)>/g;

/** What a sender wants to say, checked: everything of a message but who it goes to. */
export interface Content {
  category: Extract<MessageCategory, "message" | "custom" | "interactive">;
  type: string;
  data: JsonObject;
  tags?: string[];
  muid?: string;
  quotedMessageId?: number;
}


// The parts of a send checked by the declared validator, in the platform's order among its specific codes.
const SEND_PLAIN: Schema = {
  muid: { type: "string", max: 255 },
  tags: TAGS,
  quotedMessageId: { type: "string", pattern: /^\d{1,15}$/, patternMessage: "The quotedMessageId must be a message id." },
};
const INTERACTIVE_DATA: Schema = {
  interactiveData: { required: true, type: "object", maxKb: 10 },
  interactionGoal: { type: "object" },
  allowSenderInteraction: { type: "boolean" },
};
const INTERACTION_GOAL: Schema = { type: { type: "string", in: ["anyAction", "anyOf", "allOf", "oneOf", "none"] }, elementIds: { type: "array", items: { type: "string" } } };

/** The body of a send (or thread send), checked in the platform's order with its specific codes. */
export function readContent(body: Body): Content {
  validate(body, SEND_PLAIN);
  const category = body.category ?? "message";
  if (category !== "message" && category !== "custom" && category !== "interactive")
    throw apiError("ERR_INVALID_MESSAGE_CATEGORY", { category: String(category) });
  if (body.data !== undefined && !isObject(body.data)) throw apiError("ERR_INVALID_MESSAGE_DATA");
  // `entities` is the platform's to fill in (a rest copy keeps the object fast, where `delete` would not).
  const { entities: _ignored, ...data } = (body.data as JsonObject | undefined) ?? {};
  let type: string;
  if (category === "interactive") {
    type = customType(body.type, category);
    validate(data, INTERACTIVE_DATA);
    const goal = data.interactionGoal as JsonObject | undefined;
    if (goal) validate(goal, INTERACTION_GOAL);
  } else if (category === "custom") {
    type = customType(body.type, category);
    if (data.customData === undefined) throw apiError("ERR_EMPTY_CUSTOM_DATA");
    if (!isObject(data.customData)) throw apiError("ERR_INVALID_CUSTOM_DATA");
  } else {
    type = (body.type as string | undefined) ?? "text";
    if (!(MESSAGE_TYPES as readonly unknown[]).includes(type))
      throw apiError("ERR_INVALID_MESSAGE_TYPE", { type: String(type), category, allowed: MESSAGE_TYPES.join(", ") });
    if (type === "text") checkText(data.text, true);
    else checkMedia(data, type);
  }
  if (data.metadata !== undefined && !isObject(data.metadata)) throw apiError("ERR_INVALID_METADATA");
  const content: Content = { category, type, data };
  if (Array.isArray(body.tags)) content.tags = [...new Set(body.tags as string[])];
  if (typeof body.muid === "string") content.muid = body.muid;
  if (typeof body.quotedMessageId === "string") content.quotedMessageId = Number(body.quotedMessageId);
  return content;
}

/** The free-form type of custom and interactive messages. */
function customType(type: unknown, category: string): string {
  if (type === undefined || type === "") throw apiError("ERR_EMPTY_MESSAGE_TYPE");
  if (typeof type !== "string" || [...type].length > 100)
    throw apiError("ERR_INVALID_MESSAGE_TYPE", { type: String(type), category, allowed: "a string of at most 100 characters" });
  return type;
}

/** The element ids an interactive message declares: every `elementId` in its interactive data. */
export function interactableIds(m: MessageRecord): Set<string> {
  const ids = new Set<string>();
  const visit = (v: unknown, depth: number): void => {
    if (depth > 8 || typeof v !== "object" || v === null) return;
    if (Array.isArray(v)) return v.forEach((x) => visit(x, depth + 1));
    const o = v as Record<string, unknown>;
    if (typeof o.elementId === "string") ids.add(o.elementId);
    for (const x of Object.values(o)) visit(x, depth + 1);
  };
  visit(m.data.interactiveData, 0);
  return ids;
}

export function checkText(text: unknown, required: boolean): void {
  if (text === undefined || text === null || text === "") {
    if (required) throw apiError("ERR_EMPTY_MESSAGE_TEXT");
    return;
  }
  if (typeof text !== "string") throw apiError("ERR_INVALID_MESSAGE_TEXT");
}

function checkMedia(data: JsonObject, type: string): void {
  const attachments = data.attachments;
  if (attachments === undefined && typeof data.url !== "string") throw apiError("ERR_EMPTY_MESSAGE_FILE", { type });
  if (attachments !== undefined) {
    if (!Array.isArray(attachments) || attachments.length === 0) throw apiError("ERR_EMPTY_MESSAGE_FILE", { type });
    if (!attachments.every((a) => isObject(a) && typeof a.url === "string" && a.url !== ""))
      throw apiError("ERR_INVALID_MEDIA_MESSAGE");
    data.url ??= (attachments[0] as JsonObject).url;
  }
  checkText(data.text, false);
}

/** The uids of existing users mentioned as `<@uid:UID>` in a text. */
export function mentionsIn(app: AppState, text: unknown): string[] | undefined {
  if (typeof text !== "string" || !text.includes("<@uid:")) return undefined;
  const uids = new Set<string>();
  for (const match of text.matchAll(MENTION)) {
    const uid = normalizeUid(match[1]);
    if (app.users.has(uid)) uids.add(uid);
  }
  return uids.size > 0 ? [...uids] : undefined;
}

/**
 * Checks that `sender` may write this content to the receiver and returns the conversation it lands in: an
 * active receiver; no block either way; in a group, membership (the app itself may write to any group) and the
 * scope's permissions; and what the sender's role allows (features, RBAC permissions, friends-only settings).
 */
export function conversationFor(
  app: AppState,
  sender: UserRecord | undefined,
  receiverType: ReceiverType,
  receiver: string,
  content: Content,
  feature = "u.sendMessage",
): string {
  requireAllowed(app, sender, feature, "sendMessage");
  requireListed(app, sender, "sendMessage.allowedReceiverTypes", receiverType);
  requireListed(app, sender, "sendMessage.allowedMessageCategories", content.category);
  if (content.category === "message") requireListed(app, sender, "sendMessage.allowedMessageTypes", content.type);
  else requireListed(app, sender, "sendMessage.allowedCustomTypes", content.type);
  const attachments = Array.isArray(content.data.attachments) ? (content.data.attachments as JsonObject[]) : [];
  for (const a of attachments) if (typeof a.mimeType === "string") requireListed(app, sender, "sendMessage.allowedMimeTypes", a.mimeType);

  if (content.quotedMessageId !== undefined) {
    const quoted = app.messages.get(content.quotedMessageId);
    if (!quoted || (sender && !canSee(app, sender, quoted))) throw apiError("ERR_MESSAGE_ID_NOT_FOUND", { id: content.quotedMessageId });
  }
  if (receiverType === "group") {
    const group = pathGroup(app, receiver);
    if (sender && !app.groups.member(group.guid, sender.uid)) {
      const params = { uid: sender.uid, guid: group.guid };
      throw apiError(app.groups.ban(group.guid, sender.uid) ? "ERR_BANNED_GROUPMEMBER" : "ERR_GROUP_NOT_JOINED", params);
    }
    requireScopeAllowed(app, group, sender, "sendMessage");
    if (feature === "u.sendThreadedMessage") requireScopeAllowed(app, group, sender, "sendThreadedMessage");
    return groupConversationId(group.guid);
  }
  const user = requireUser(app, receiver);
  if (sender) {
    const params = { uid: sender.uid, receiver: user.uid };
    if (app.relations.blockOf(sender.uid, user.uid)) throw apiError("ERR_BLOCKED_RECEIVER", params);
    if (app.relations.blockOf(user.uid, sender.uid)) throw apiError("ERR_BLOCKED_SENDER", params);
    if (friendsOnly(app, sender, "sendMessage") && sender.uid !== user.uid && !app.relations.friendship(sender.uid, user.uid))
      throw apiError("ERR_NOT_A_FRIEND", { uid: sender.uid, friend: user.uid });
    requireListed(app, sender, "sendMessage.allowedReceiverRoles", user.role);
  }
  return userConversationId(sender?.uid ?? SYSTEM_UID, user.uid);
}

/** Stores one message from `sender` (or the system) to one receiver, already checked by `conversationFor`. */
export function store(
  app: AppState,
  now: number,
  sender: UserRecord | undefined,
  receiverType: ReceiverType,
  receiver: string,
  conversationId: string,
  content: Content,
  parentId?: number,
  /** Through the rules even when none is enabled (`POST /moderation/messages`). */
  always = false,
): MessageRecord {
  // The seam where extensions act on a message being sent (they transform first; moderation decides after them).
  const data = applyExtensions(app, content.data);
  const m: Omit<MessageRecord, "id"> = {
    conversationId,
    sender: sender?.uid ?? SYSTEM_UID,
    receiverType,
    receiver: normalizeUid(receiver),
    category: content.category,
    type: content.type,
    // Shared by the messages of one multi-receiver send: nested values are never mutated (see store/types.ts).
    data,
    sentAt: now,
    updatedAt: now,
  };
  if (content.muid !== undefined) m.muid = content.muid;
  if (receiverType === "group" && app.groups.membership(m.receiver).members.size > FULL_FEATURE_MEMBERS) m.largeGroup = true;
  if (parentId !== undefined) m.parentId = parentId;
  if (content.tags) m.tags = [...content.tags];
  if (content.quotedMessageId !== undefined) m.quotedMessageId = content.quotedMessageId;
  const mentioned = mentionsIn(app, content.data.text);
  if (mentioned) m.mentionedUids = mentioned;
  // Moderation decides before anything is published: a held message is stored aside and publishes nothing
  // until a moderator approves it (then `publishSent` runs for it).
  const stored = moderateSend(app, m, always);
  if (!isHeld(stored)) publishSent(app, stored);
  return stored;
}

/** Announces a delivered message: `message_sent`, and `user_mentioned` when it mentions users. */
export function publishSent(app: AppState, stored: MessageRecord): void {
  app.emit("message_sent", () => ({ message: messageView(app, stored) }), stored);
  const mentioned = stored.mentionedUids;
  if (mentioned)
    app.emit("user_mentioned", () => ({
      message: messageView(app, stored),
      mentionedUsers: mentioned.map((uid) => userView(app.users.get(uid)!)),
    }));
}
