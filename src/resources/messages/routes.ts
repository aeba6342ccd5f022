import type { Ctx } from "../../http/context.js";
import { apiError } from "../../http/errors.js";
import { onBehalfOf } from "../../http/auth.js";
import { answerItems, answerJson, bulkFailure, ok, okCached } from "../../http/reply.js";
import { asBool, type Body } from "../../http/validate.js";
import { bodySchema, type Schema } from "../../http/schema.js";
import { checkBody } from "../../http/body-check.js";
import { operation, rawBodyRead, routes } from "../../http/operation.js";
import { q } from "../../http/query-spec.js";
import type { AppState } from "../../store/app-state.js";
import { groupConversationId, userConversationId } from "../../store/conversation-ids.js";
import type { JsonObject, MessageRecord, ReceiverType, UserRecord } from "../../store/types.js";
import { pathGroup } from "../groups/membership.js";
import { applyExtensions } from "../../extensions/effects.js";
import { requireUser } from "../users/lookup.js";
import { requireAllowed, requireNotDenied, requireScopeAllowed } from "../roles/enforce.js";
import { canSee, pathMessage, visibleTo } from "../../views/access.js";
import { cursorMeta, MESSAGE_QUERY, MESSAGE_QUERY_IGNORES, readMessageQuery, sourceOf, unreadCount, unreadCounts, walk, walkPage, type Cursor, type MessageQuery, type Source } from "./list.js";
import { pagination } from "../../http/pagination.js";
import { SEND_FIELDS, checkText, conversationFor, EDIT, MESSAGE_BODY_LIMIT, readContent, store, type Content } from "./send.js";
import { messageText, messageView, SYSTEM_UID, type EntityMemo } from "../../views/messages.js";
import { commitDelete, commitEdit } from "./changes.js";
import { withSendBody } from "../files/routes.js";
import { receiptsOf } from "./receipts.js";
import { asPending, isHeld, moderateEdit } from "../moderation/screen.js";

function receiverOf(body: Body): { receiverType: ReceiverType; receiver: string } | undefined {
  if (body.receiver === undefined || body.receiver === null || body.receiver === "") return undefined;
  if (typeof body.receiver !== "string") throw apiError("ERR_EMPTY_RECEIVER");
  if (body.receiverType !== "user" && body.receiverType !== "group")
    throw apiError("ERR_INVALID_RECEIVER_TYPE", { receiverType: String(body.receiverType ?? "") });
  return { receiverType: body.receiverType, receiver: body.receiver };
}

/** `multipleReceivers` and its lists, named as the platform names them (`multipleReceivers.uids`). */
const MULTIPLE_RECEIVERS = bodySchema({
  multipleReceivers: { type: "object" },
  "multipleReceivers.uids": { type: "array", items: { required: true, type: "string" } },
  "multipleReceivers.guids": { type: "array", items: { required: true, type: "string" } },
});

async function multipleReceivers(body: Body): Promise<{ uids: string[]; guids: string[] } | undefined> {
  const raw = body.multipleReceivers;
  if (raw === undefined || raw === null) return undefined;
  await checkBody({ multipleReceivers: raw, "multipleReceivers.uids": (raw as Body).uids, "multipleReceivers.guids": (raw as Body).guids }, MULTIPLE_RECEIVERS);
  const r = raw as { uids?: string[]; guids?: string[] };
  return { uids: r.uids ?? [], guids: r.guids ?? [] };
}

/** Sends to several receivers: one message each, a result per receiver (failures do not stop the others). */
function sendToMany(c: Ctx, sender: UserRecord | undefined, content: Content, targets: { uids: string[]; guids: string[] }) {
  const app = c.get("app");
  const now = c.get("emulator").clock.now();
  const out: Record<string, Record<string, unknown>> = { uids: {}, guids: {} };
  for (const [list, receiverType] of [["uids", "user"], ["guids", "group"]] as const)
    for (const receiver of targets[list]) {
      try {
        const conversationId = conversationFor(app, sender, receiverType, receiver, content);
        out[list][receiver] = messageView(app, store(app, now, sender, receiverType, receiver, conversationId, content), sender);
      } catch (e) {
        out[list][receiver] = bulkFailure(e);
      }
    }
  return ok(c, out);
}

/**
 * Who may change a message: the app; its sender; in a group, also its owner, admins and moderators
 * (sdk/javascript/edit-message and delete-message: "the sender of the message or the admin/moderator of the group").
 */
function requireAuthor(app: AppState, m: MessageRecord, actor: UserRecord | undefined, action: "edit" | "delete"): void {
  const done = action === "edit" ? "edited" : "deleted";
  if (m.category === "action" || m.category === "call")
    throw apiError("ERR_MESSAGE_ACTION_NOT_ALLOWED", { id: m.id, action: done, reason: `${m.category} messages cannot be changed` });
  if (m.deletedAt !== undefined) throw apiError("ERR_MESSAGE_ACTION_NOT_ALLOWED", { id: m.id, action: done, reason: "it has been deleted" });
  if (!actor) return;
  const permission = action === "edit" ? "editMessage" : "deleteMessage";
  requireAllowed(app, actor, action === "edit" ? "u.editMessage" : "u.deleteMessage", permission);
  const group = m.receiverType === "group" ? app.groups.get(m.receiver) : undefined;
  const scope = group ? app.groups.member(group.guid, actor.uid)?.scope : undefined;
  if (scope) {
    requireNotDenied(app, actor, `${permission}.denyForScopes`, scope);
    if (action === "edit") requireScopeAllowed(app, group!, actor, "editMessage");
  }
  if (actor.uid === m.sender) return;
  if (scope === "admin" || scope === "moderator" || (group && group.owner === actor.uid)) return;
  throw apiError("ERR_MESSAGE_NOT_A_SENDER", { uid: actor.uid, id: m.id, action });
}

/** The sources of `GET /messages`: one conversation, the viewer's conversations, or the whole app. */
function appSources(app: AppState, viewer: UserRecord | undefined, conversationId: string | undefined): Source[] {
  if (conversationId) {
    if (viewer) return [sourceOf(app, visibleTo(app, viewer, conversationId))];
    return [{ messages: app.messages.conversation(conversationId), after: 0, until: Infinity }];
  }
  if (!viewer) return [{ messages: app.messages.list(), after: 0, until: Infinity }];
  const ids = [...app.conversations.directOf(viewer.uid), ...[...app.groups.groupsOf(viewer.uid).keys()].map(groupConversationId)];
  return ids.map((id) => sourceOf(app, visibleTo(app, viewer, id)));
}

interface ListOptions {
  defaultLimit?: number;
  /** Add the page-style meta (`pagination` and a numeric `cursor`) the list's published example shows. */
  pageStyle?: boolean;
}

function listReply(c: Ctx, viewer: UserRecord | undefined, sources: Source[], query: MessageQuery, opts: ListOptions = {}) {
  const app = c.get("app");
  requireAllowed(app, viewer, "u.listMessages");
  const { cursor, keep, flags } = readMessageQuery(app, query, viewer, opts);
  // The client plane answers what the SDKs read: unread counts per conversation, and SDK paging meta.
  const sdk = c.get("actor") !== undefined;
  if (sdk && flags.unread && flags.count) return ok(c, unreadCounts(app, viewer!, sources, keep));
  const { items, more } = sdk ? walkPage(sources, cursor, keep) : { items: walk(sources, cursor, keep), more: false };
  const extra = flags.count && viewer ? { unreadCount: unreadCount(app, viewer, sources) } : {};
  const memo: EntityMemo = new Map();
  const view = { hideQuoted: flags.hideQuotedMessages, threadSubscribed: flags.withThreadSubscribed };
  const meta = cursorMeta(items, cursor, extra, sdk ? { more } : undefined);
  if (opts.pageStyle) Object.assign(meta, pageStyleMeta(sources, items, cursor));
  return answerItems(c, items, (m) => messageText(app, m, viewer, memo, view), { meta });
}

/**
 * `meta.pagination` and `meta.cursor` as the example of `GET /users/{uid}/messages` without `onBehalfOf` shows
 * them, next to the cursor meta. `total` counts the conversations' messages before filters (known without a walk);
 * the cursor names the page's last message in the walk's direction, with a numeric id.
 */
function pageStyleMeta(sources: Source[], items: MessageRecord[], cursor: Cursor) {
  const total = sources.reduce((n, s) => n + s.messages.length, 0);
  const edge = cursor.affix === "prepend" ? items[0] : items.at(-1);
  return {
    pagination: pagination(total, items.length, cursor.limit, 1),
    ...(edge ? { cursor: { id: edge.id, affix: cursor.affix } } : {}),
  };
}

/**
 * The send operation (`POST /messages`) from `sender` (the app itself when undefined): one receiver or several,
 * with every check and effect of a send. `POST /bots/{uid}/messages` is the same operation with the bot as sender.
 */
export function sendMessage(c: Ctx, sender: UserRecord | undefined) {
  return withSendBody(c, (body) => sendBody(c, sender, body));
}

async function sendBody(c: Ctx, sender: UserRecord | undefined, body: Body) {
  rawBodyRead(c, body);
  const target = receiverOf(body);
  const many = await multipleReceivers(body);
  if (!target && !many) throw apiError("ERR_EMPTY_RECEIVER");
  const content = readContent(body);
  if (many) {
    if (target) (target.receiverType === "user" ? many.uids : many.guids).unshift(target.receiver);
    return sendToMany(c, sender, content, many);
  }
  const app = c.get("app");
  const conversationId = conversationFor(app, sender, target!.receiverType, target!.receiver, content);
  const m = store(app, c.get("emulator").clock.now(), sender, target!.receiverType, target!.receiver, conversationId, content);
  // The SDK's send (client plane) answers a screened message as pending; a REST caller gets the verdict at once.
  const answered = c.get("authToken") !== undefined ? asPending(m) : m;
  return answerJson(c, `{"data":${messageText(app, answered, sender)}}`);
}

/** A reply in the thread of `parent` (`POST /messages/{id}/thread`): checked like a send, into the parent's conversation. */
function replyInThread(c: Ctx, sender: UserRecord, parent: MessageRecord, body: Body) {
  rawBodyRead(c, body);
  const app = c.get("app");
  const id = parent.id;
  if (parent.parentId !== undefined) throw apiError("ERR_MESSAGE_THREAD_NESTING", { id });
  if (parent.category !== "message" && parent.category !== "custom")
    throw apiError("ERR_WRONG_MESSAGE_THREAD_CATEGORY", { id, category: parent.category });
  if (body.multipleReceivers !== undefined) throw apiError("ERR_WRONG_MESSAGE_THREAD", { id });
  // The receiver defaults to the parent's conversation; one that is given must be that conversation.
  const target = receiverOf(body) ?? {
    receiverType: parent.receiverType,
    receiver: parent.receiverType === "group" ? parent.receiver : parent.sender === sender.uid ? parent.receiver : parent.sender,
  };
  const content = readContent(body);
  const conversationId = conversationFor(app, sender, target.receiverType, target.receiver, content, "u.sendThreadedMessage");
  if (conversationId !== parent.conversationId) throw apiError("ERR_WRONG_MESSAGE_THREAD", { id });
  const now = c.get("emulator").clock.now();
  const reply = store(app, now, sender, target.receiverType, target.receiver, conversationId, content, id);
  if (!isHeld(reply)) {
    parent.replyCount = (parent.replyCount ?? 0) + 1;
    app.messages.touch(parent);
    // Taking part subscribes: the replier, the parent's sender when the thread starts, whoever a reply mentions.
    const followers = [sender.uid, ...(reply.mentionedUids ?? [])];
    if (parent.replyCount === 1 && parent.sender !== SYSTEM_UID) followers.push(parent.sender);
    for (const uid of followers) {
      const user = app.activeUser(uid);
      if (user && canSee(app, user, parent)) app.threadSubscriptions.add(uid, parent.id, now);
    }
  }
  return ok(c, messageView(app, reply, sender));
}

/**
 * A delete's body. An unknown message is answered 404 before a bad `permanent` is (the message is found first, as
 * before the body's rules run), so the declaration names the field without rules and the handler checks it.
 */
const PERMANENT_NAMED: Schema = { permanent: { description: "Delete for good (a boolean); otherwise a soft delete." } };
const PERMANENT = bodySchema({ permanent: { type: "boolean" } });

/**
 * The send and the thread reply read their body themselves: JSON, or multipart with files on the client plane
 * (files/routes.ts `withSendBody`); its fields are send.ts `SEND_FIELDS`, which `adviseSend` advises on.
 */
const SEND = { body: "raw", rawFields: SEND_FIELDS, bodyLimit: MESSAGE_BODY_LIMIT } as const;

export const messages = routes(
  operation({
    id: "send-message",
    method: "POST",
    path: "/messages",
    plane: "rest",
    ...SEND,
    headers: ["onBehalfOf"],
    handler: (c) => sendMessage(c, onBehalfOf(c, "optional")),
  }),

  operation({
    id: "list-all-messages",
    method: "GET",
    path: "/messages",
    plane: "rest",
    query: { conversationId: q.str(), ...MESSAGE_QUERY },
    ignores: MESSAGE_QUERY_IGNORES,
    headers: ["onBehalfOf"],
    handler: (c, { query }) => {
      const viewer = onBehalfOf(c, "optional");
      return listReply(c, viewer, appSources(c.get("app"), viewer, query.conversationId), query);
    },
  }),

  operation({
    id: "get-message-details",
    method: "GET",
    path: "/messages/:id",
    plane: "rest",
    headers: ["onBehalfOf"],
    handler: (c) => {
      const viewer = onBehalfOf(c, "optional");
      const m = pathMessage(c.get("app"), c.req.param("id")!, viewer);
      // The SDK's getMessageReceipts reads the message's receipts here.
      if (c.get("actor")) return ok(c, { ...messageView(c.get("app"), m, viewer), receipts: { data: receiptsOf(c.get("app"), m) } });
      return okCached(c, m, viewer, () => messageView(c.get("app"), m, viewer));
    },
  }),

  operation({
    id: "update-message",
    method: "PUT",
    path: "/messages/:id",
    plane: "rest",
    body: EDIT,
    bodyLimit: MESSAGE_BODY_LIMIT,
    headers: ["onBehalfOf"],
    handler: (c, { body }) => {
      const actor = onBehalfOf(c, "optional");
      const app = c.get("app");
      const m = pathMessage(app, c.req.param("id")!, actor);
      requireAuthor(app, m, actor, "edit");
      const data = (body.data as JsonObject | undefined) ?? {};
      checkText(data.text, false);
      if (data.metadata !== undefined && (typeof data.metadata !== "object" || data.metadata === null || Array.isArray(data.metadata)))
        throw apiError("ERR_INVALID_METADATA");
      if (data.customData !== undefined && (typeof data.customData !== "object" || data.customData === null || Array.isArray(data.customData)))
        throw apiError("ERR_INVALID_CUSTOM_DATA");
      const now = c.get("emulator").clock.now();
      const changed: JsonObject = { ...m.data };
      for (const k of ["text", "metadata", "customData"] as const) if (data[k] !== undefined && data[k] !== null) changed[k] = data[k];
      // The edit path's seams: extensions transform the new content first (as in send.ts), then moderation decides;
      // a held edit changes nothing until a moderator approves it.
      const tags = Array.isArray(body.tags) ? [...new Set(body.tags as string[])] : undefined;
      const edit = { data: applyExtensions(app, changed, true), tags };
      const held = moderateEdit(app, now, m, edit, actor);
      if (held) return ok(c, messageView(app, held, actor));
      const action = commitEdit(app, now, m, edit, actor);
      return ok(c, messageView(app, action, actor));
    },
  }),

  operation({
    id: "delete-message",
    method: "DELETE",
    path: "/messages/:id",
    plane: "rest",
    body: PERMANENT_NAMED,
    headers: ["onBehalfOf"],
    handler: async (c, { body }) => {
      const actor = onBehalfOf(c, "optional");
      const app = c.get("app");
      const m = pathMessage(app, c.req.param("id")!, actor);
      await checkBody(body, PERMANENT);
      const permanent = asBool(body.permanent);
      // A soft-deleted message can still be deleted for good.
      if (!(permanent && m.deletedAt !== undefined)) requireAuthor(app, m, actor, "delete");
      const action = commitDelete(app, c.get("emulator").clock.now(), m, actor);
      if (permanent) app.removeWithThread(m);
      return ok(c, messageView(app, action, actor));
    },
  }),

  operation({
    id: "send-thread-message",
    method: "POST",
    path: "/messages/:id/thread",
    plane: "rest",
    ...SEND,
    headers: ["onBehalfOf"],
    handler: (c) => {
      const sender = onBehalfOf(c, "required");
      const app = c.get("app");
      const parent = pathMessage(app, c.req.param("id")!, sender);
      return withSendBody(c, (body) => replyInThread(c, sender, parent, body));
    },
  }),

  operation({
    id: "list-all-thread-messages",
    method: "GET",
    path: "/messages/:id/thread",
    plane: "rest",
    query: MESSAGE_QUERY,
    ignores: MESSAGE_QUERY_IGNORES,
    headers: ["onBehalfOf"],
    handler: (c, { query }) => {
      const viewer = onBehalfOf(c, "optional");
      const app = c.get("app");
      const parent = pathMessage(app, c.req.param("id")!, viewer);
      const range = viewer ? visibleTo(app, viewer, parent.conversationId) : { after: 0, until: Infinity };
      // The message cursor (`affix`, `id`, `sentAt`, `limit` default 10) replaced perPage/page.
      return listReply(c, viewer, [{ messages: app.messages.thread(parent.id), after: range.after, until: range.until }], query);
    },
  }),

  operation({
    id: "user-list-user-messages",
    method: "GET",
    path: "/users/:uid/messages",
    plane: "rest",
    // The reference: `perPage` (default 100) pages the app's view; `limit` (default 10) applies with onBehalfOf.
    query: { perPage: q.int({ min: 1, max: 1000 }), ...MESSAGE_QUERY },
    ignores: MESSAGE_QUERY_IGNORES,
    headers: ["onBehalfOf"],
    handler: (c, { query }) => {
      const viewer = onBehalfOf(c, "optional");
      const app = c.get("app");
      const other = requireUser(app, c.req.param("uid")!);
      const perPage = query.perPage ?? (viewer ? 10 : 100);
      const sources = viewer
        ? [sourceOf(app, visibleTo(app, viewer, userConversationId(viewer.uid, other.uid)))]
        : [...app.conversations.directOf(other.uid)].map((id) => ({ messages: app.messages.conversation(id), after: 0, until: Infinity }));
      return listReply(c, viewer, sources, query, { defaultLimit: perPage, pageStyle: !viewer });
    },
  }),

  operation({
    id: "user-list-group-messages",
    method: "GET",
    path: "/groups/:guid/messages",
    plane: "rest",
    query: MESSAGE_QUERY,
    ignores: MESSAGE_QUERY_IGNORES,
    headers: ["onBehalfOf"],
    handler: (c, { query }) => {
      const viewer = onBehalfOf(c, "optional");
      const app = c.get("app");
      const group = pathGroup(app, c.req.param("guid")!);
      const conversationId = groupConversationId(group.guid);
      const source = viewer ? sourceOf(app, visibleTo(app, viewer, conversationId)) : { messages: app.messages.conversation(conversationId), after: 0, until: Infinity };
      return listReply(c, viewer, [source], query);
    },
  }),
);
