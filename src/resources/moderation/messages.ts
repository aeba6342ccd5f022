import type { Ctx } from "../../http/context.js";
import { apiError, badRequest } from "../../http/errors.js";
import { normalizeUid } from "../../http/auth.js";
import { ok, success } from "../../http/reply.js";
import type { Body } from "../../http/validate.js";
import type { Schema } from "../../http/schema.js";
import { checkFields } from "../../http/body-check.js";
import { operation, routes } from "../../http/operation.js";
import { q } from "../../http/query-spec.js";
import type { AppState } from "../../store/app-state.js";
import { GROUP_TYPES, type GroupRecord, type GroupType, type JsonObject, type MessageRecord, type UserRecord } from "../../store/types.js";
import { firstWhere } from "../../util/search.js";
import { makeAdmin } from "../groups/membership.js";
import { commitDelete, commitEdit } from "../messages/changes.js";
import { checkText, conversationFor, readContent, store } from "../messages/send.js";
import { messageView, SYSTEM_UID } from "../../views/messages.js";
import { byPayload, groupPayload } from "../../webhooks/payloads.js";
import { applyExtensions } from "../../extensions/effects.js";
import { currentList, limitQuery } from "./input.js";
import { holds, verdictFor } from "./engine.js";
import { block, flagForRule, isHeld, moderateEdit } from "./screen.js";
import { checkDeliverable, deliver } from "./review.js";

/**
 * The moderation "message" API (`/moderation/messages`): a message submitted through it is always screened by
 * the rules (even when none is enabled it comes back `approved`), and is delivered or held exactly like a message
 * sent with `POST /messages`. It can create its sender, receiving user or receiving group on the way.
 */

const ID = /^[A-Za-z0-9-]+$/;
const ID_MESSAGE = (f: string) => `The ${f} may only contain letters, numbers, and dashes.`;

/**
 * The fields of a details object (`senderUserDetails.uid`), one map per body field, made once. They are checked only
 * when the details apply (a receiving group's when `receiverType` is "group"), so not by the declaration.
 */
function detailsSchema(field: string, key: "uid" | "guid"): Schema {
  const at = (k: string) => `${field}.${k}`;
  return {
    [field]: { type: "object" },
    [at(key)]: { required: true, type: "string", max: 100, pattern: ID, patternMessage: ID_MESSAGE(key) },
    [at("name")]: { required: true, type: "string", max: 100 },
    [at("avatar")]: { type: "string", max: 3000, url: true },
    [at("icon")]: { type: "string", max: 3000, url: true },
    [at("role")]: { type: "string", max: 100 },
    [at("metadata")]: { type: "object", maxKb: 5 },
    [at("tags")]: { type: "array", max: 25, items: { required: true, type: "string", max: 100 } },
    [at("type")]: key === "guid" ? { required: true, type: "string", in: GROUP_TYPES } : {},
  };
}

const DETAILS = {
  senderUserDetails: detailsSchema("senderUserDetails", "uid"),
  receiverUserDetails: detailsSchema("receiverUserDetails", "uid"),
  receiverGroupDetails: detailsSchema("receiverGroupDetails", "guid"),
};

function details(body: Body, field: keyof typeof DETAILS) {
  const raw = body[field];
  if (raw === undefined || raw === null) return undefined;
  const d = (typeof raw === "object" && !Array.isArray(raw) ? raw : {}) as Body;
  checkFields({ [field]: raw, ...Object.fromEntries(Object.entries(d).map(([k, v]) => [`${field}.${k}`, v])) }, DETAILS[field]);
  return d;
}

/** A user named by the body: a known one, or a new one from its details (`isNew`: not stored yet). */
function userFor(app: AppState, now: number, uid: string, d: Body | undefined): { user: UserRecord; isNew: boolean } {
  const id = normalizeUid(uid);
  const known = app.activeUser(id);
  if (known || !d || normalizeUid(String(d.uid)) !== id) {
    if (!known) throw apiError("ERR_UID_NOT_FOUND", { uid: id });
    return { user: known, isNew: false };
  }
  if (app.users.has(id)) throw apiError("ERR_UID_NOT_FOUND", { uid: id });
  const role = typeof d.role === "string" ? d.role : "default";
  if (!app.roles.has(role)) throw apiError("ERR_ROLE_NOT_FOUND", { role });
  const user: UserRecord = { uid: id, name: d.name as string, role, tags: Array.isArray(d.tags) ? [...new Set(d.tags as string[])] : [], status: "offline", createdAt: now };
  if (typeof d.avatar === "string") user.avatar = d.avatar;
  if (d.metadata) user.metadata = d.metadata as JsonObject;
  return { user, isNew: true };
}

/** A group the body creates (owned by the sender, not stored yet), or undefined when it names a known one. */
function newGroupFor(app: AppState, now: number, guid: string, d: Body | undefined, sender: UserRecord): GroupRecord | undefined {
  const id = normalizeUid(guid);
  if (app.groups.get(id) || !d || normalizeUid(String(d.guid)) !== id) return undefined;
  const group: GroupRecord = { guid: id, name: d.name as string, type: d.type as GroupType, tags: Array.isArray(d.tags) ? [...new Set(d.tags as string[])] : [], createdAt: now, owner: sender.uid };
  if (group.type === "password") group.password = typeof d.password === "string" && d.password ? d.password : "password";
  if (typeof d.icon === "string") group.icon = d.icon;
  if (d.metadata) group.metadata = d.metadata as JsonObject;
  return group;
}

/**
 * Stores the users and the group a submission creates, then runs the send checks; when a check fails they are
 * taken out again, so a refused submission changes nothing. `group_created` is announced once all checks pass.
 */
function creating<T>(app: AppState, now: number, users: UserRecord[], group: GroupRecord | undefined, sender: UserRecord, check: () => T): T {
  for (const u of users) app.addUser(u);
  try {
    if (group) {
      app.groups.add(group);
      makeAdmin(app, now, group, sender, undefined);
    }
    const result = check();
    if (group) app.emit("group_created", () => ({ group: groupPayload(app, group), by: byPayload(undefined) }));
    return result;
  } catch (err) {
    if (group && app.groups.get(group.guid) === group) app.groups.delete(group);
    for (const u of users) app.deleteUserPermanently(u);
    throw err;
  }
}

/** A message the rules looked at (a binary search in their ids): delivered, or held in the blocked queue. */
function moderatedMessage(app: AppState, id: number): MessageRecord | undefined {
  const ids = app.moderation.moderated;
  if (ids[firstWhere(ids, (n) => n >= id)] !== id) return undefined;
  return app.messages.get(id) ?? app.moderation.blocked.get(id)?.message;
}

function pathModerated(c: Ctx): MessageRecord {
  const raw = c.req.param("id")!;
  const m = /^\d{1,15}$/.test(raw) ? moderatedMessage(c.get("app"), Number(raw)) : undefined;
  if (!m) throw apiError("ERR_MESSAGE_ID_NOT_FOUND", { id: raw });
  return m;
}

const app = (c: Ctx) => c.get("app");

export const moderationMessages = routes(
  operation({
    id: "chat-api-send-message-moderation",
    method: "POST",
    path: "/moderation/messages",
    plane: "rest",
    body: {
      sender: { required: true, type: "string", max: 100 },
      receiver: { required: true, type: "string", max: 100 },
      receiverType: { required: true, type: "string", in: ["user", "group"] },
      sentAt: { type: "integer" },
      // Checked when they apply (`details`), and the content as `POST /messages` checks it (messages/send.ts).
      senderUserDetails: { type: "object" },
      receiverUserDetails: { type: "object" },
      receiverGroupDetails: { type: "object" },
      category: {},
      type: {},
      data: {},
    },
    handler: (c, { body }) => {
      if (body.sentAt !== undefined && body.sentAt !== null && !/^\d{10}$/.test(String(body.sentAt)))
        throw badRequest({ sentAt: ["The sentAt must be a Unix timestamp in seconds (10 digits)."] });
      const sender = details(body, "senderUserDetails");
      const receiverUser = body.receiverType === "user" ? details(body, "receiverUserDetails") : undefined;
      const receiverGroup = body.receiverType === "group" ? details(body, "receiverGroupDetails") : undefined;
      const content = readContent(body);
      const a = app(c);
      const now = c.get("emulator").clock.now();
      const from = userFor(a, now, body.sender as string, sender);
      const to = body.receiverType === "user" ? userFor(a, now, body.receiver as string, receiverUser) : undefined;
      const group = body.receiverType === "group" ? newGroupFor(a, now, body.receiver as string, receiverGroup, from.user) : undefined;
      const users = [from, to].flatMap((r) => (r?.isNew ? [r.user] : []));
      const fresh = users.filter((u, i) => users.findIndex((v) => v.uid === u.uid) === i); // sender and receiver may be one new user
      const receiverType = body.receiverType as "user" | "group";
      const conversationId = creating(a, now, fresh, group, from.user, () =>
        conversationFor(a, from.user, receiverType, body.receiver as string, content),
      );
      const sentAt = body.sentAt === undefined || body.sentAt === null ? now : Number(body.sentAt);
      const m = store(a, sentAt, from.user, receiverType, body.receiver as string, conversationId, content, undefined, true);
      return ok(c, messageView(a, m, from.user));
    },
  }),

  operation({
    id: "chat-api-list-message-moderation",
    method: "GET",
    path: "/moderation/messages",
    plane: "rest",
    query: {
      ...limitQuery(100),
      id: q.int(),
      sender: q.str(),
      receiverUID: q.str(),
      receiverGUID: q.str(),
      category: q.oneOf(["message", "custom"]),
      type: q.str(),
      moderationStatus: q.oneOf(["approved", "disapproved", "pending"]),
    },
    handler: (c, { query }) => {
      const { limit, category, type, moderationStatus: status } = query;
      const after = query.id ?? 0;
      const sender = query.sender?.toLowerCase();
      const receiverUid = query.receiverUID?.toLowerCase();
      const receiverGuid = query.receiverGUID?.toLowerCase();
      const a = app(c);
      const ids = a.moderation.moderated;
      const out: MessageRecord[] = [];
      for (let i = firstWhere(ids, (id) => id > after); i < ids.length && out.length < limit; i++) {
        const m = moderatedMessage(a, ids[i]);
        if (!m) continue;
        if (sender && m.sender !== sender) continue;
        if (receiverUid && !(m.receiverType === "user" && m.receiver === receiverUid)) continue;
        if (receiverGuid && !(m.receiverType === "group" && m.receiver === receiverGuid)) continue;
        if ((category && m.category !== category) || (type && m.type !== type)) continue;
        if (status && (m.data.moderation as JsonObject | undefined)?.status !== status) continue;
        out.push(m);
      }
      const last = out.at(-1);
      const next = last ? { next: { affix: "append", sentAt: last.sentAt, id: String(last.id) } } : {};
      return currentList(c, out.map((m) => messageView(a, m)), limit, next);
    },
  }),

  operation({ id: "chat-api-get-message-moderation", method: "GET", path: "/moderation/messages/:id", plane: "rest", handler: (c) => ok(c, messageView(app(c), pathModerated(c))) }),

  operation({
    id: "chat-api-update-message-moderation",
    method: "PUT",
    path: "/moderation/messages/:id",
    plane: "rest",
    body: { data: { required: true, type: "object" } },
    handler: (c, { body }) => {
      const m = pathModerated(c);
      const data = body.data as JsonObject;
      checkText(data.text, false);
      for (const k of ["metadata", "customData"] as const)
        if (data[k] !== undefined && (typeof data[k] !== "object" || data[k] === null || Array.isArray(data[k])))
          throw apiError(k === "metadata" ? "ERR_INVALID_METADATA" : "ERR_INVALID_CUSTOM_DATA");
      const a = app(c);
      const now = c.get("emulator").clock.now();
      const changed: JsonObject = { ...m.data };
      for (const k of ["text", "metadata", "customData"] as const) if (data[k] !== undefined && data[k] !== null) changed[k] = data[k];
      const blocked = a.moderation.blocked.get(m.id);
      if (blocked?.kind === "send" && isHeld(m)) {
        // Still held: the new content is screened again; a clean one is delivered now.
        const { moderation: _held, ...content } = changed;
        const verdict = verdictFor(a, { ...m, data: content });
        const held = verdict !== undefined && holds(verdict.action);
        if (!held) checkDeliverable(a, m); // before any change: a message nobody can get stays held as it was
        Object.assign(m, { data: content, editedAt: now, editedBy: SYSTEM_UID, updatedAt: now });
        if (held) block(a, m, verdict, "send", now);
        else {
          a.moderation.blocked.delete(m.id);
          deliver(a, m);
          if (verdict) flagForRule(a, m, verdict, now);
          a.emit("moderation_engine_approved", () => ({ message: messageView(a, m) }), m);
        }
        return ok(c, messageView(a, m));
      }
      const edit = { data: applyExtensions(a, changed, true) };
      const held = moderateEdit(a, now, m, edit, undefined, true);
      if (held) return ok(c, messageView(a, held));
      commitEdit(a, now, m, edit, undefined);
      return ok(c, messageView(a, m));
    },
  }),

  operation({
    id: "chat-api-delete-message-moderation",
    method: "DELETE",
    path: "/moderation/messages/:id",
    plane: "rest",
    handler: (c) => {
      const m = pathModerated(c);
      const a = app(c);
      if (a.messages.get(m.id) === m && m.deletedAt === undefined) commitDelete(a, c.get("emulator").clock.now(), m, undefined);
      a.moderation.forget(m.id);
      return success(c, `Message with id ${m.id} has been deleted successfully.`);
    },
  }),
);
