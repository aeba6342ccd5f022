import { apiError, badRequest } from "../../http/errors.js";
import { normalizeUid } from "../../http/auth.js";
import { validate, type Body, type Schema } from "../../http/validate.js";
import type { AppState } from "../../store/app-state.js";
import { groupConversationId, userConversationId } from "../../store/conversation-ids.js";
import type { GroupRecord, GroupType, MemberRecord, MessageRecord, Scope, UserRecord } from "../../store/types.js";
import { SCOPES } from "../../store/types.js";
import { CREATE as GROUP_CREATE, applyAttributes as applyGroupAttributes, requirePassword } from "../groups/routes.js";
import { CREATE as USER_CREATE, applyAttributes as applyUserAttributes } from "../users/routes.js";
import { mentionsIn, readContent } from "../messages/send.js";

/**
 * One imported item of each kind (reference/data-import.md): checked as its create operation checks it, kept with
 * its given ids and times, and stored without events (imports fire no webhooks or realtime events). Users and
 * groups an item references are created on the fly from their `...Details` when missing, and only when the whole
 * item passes its checks.
 */

/** 10-digit Unix seconds, as integers or (as the docs' examples send them) digit strings. */
const SECONDS = { type: "integer" } as const;

export function seconds(v: unknown): number | undefined {
  if (v === undefined || v === null || v === "") return undefined;
  return typeof v === "string" ? Number(v) : (v as number);
}

/** The body's field `name` must be an object (the `...Details` sub-objects). */
function details(body: Body, name: string): Body | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "object" || Array.isArray(v)) throw badRequest({ [name]: [`The ${name} must be an object.`] });
  return v as Body;
}

/**
 * The users and groups one item creates, made in memory while the item is checked (a second mention in the same
 * item finds them) and stored by `commit` once every check passed: an item that fails changes nothing.
 */
class Pending {
  readonly users = new Map<string, { user: UserRecord; deactivatedAt?: number }>();
  readonly groups = new Map<string, GroupRecord>();

  constructor(
    readonly app: AppState,
    readonly now: number,
  ) {}

  commit(): void {
    for (const { user, deactivatedAt } of this.users.values()) {
      this.app.addUser(user);
      if (deactivatedAt !== undefined) this.app.setDeactivated(user, deactivatedAt);
    }
    // The owner is an admin member since the group's creation.
    for (const g of this.groups.values()) {
      this.app.groups.add(g);
      if (g.owner) this.app.groups.addMember(g.guid, { uid: g.owner, scope: "admin", joinedAt: g.createdAt });
    }
  }
}

/** Runs `make` over a fresh Pending and stores what it made once it returns. */
function atomically<T>(app: AppState, now: number, make: (p: Pending) => T): T {
  const p = new Pending(app, now);
  const out = make(p);
  p.commit();
  return out;
}

const USER: Schema = { ...USER_CREATE, createdAt: SECONDS, lastActiveAt: SECONDS, deactivatedAt: SECONDS };

/** A new user from an import item or a `...Details` object; ERR_UID_ALREADY_EXISTS for a taken uid. */
function newUser(p: Pending, body: Body): UserRecord {
  validate(body, USER);
  const uid = normalizeUid(body.uid as string);
  if (p.app.users.has(uid) || p.users.has(uid)) throw apiError("ERR_UID_ALREADY_EXISTS", { uid });
  if (typeof body.role === "string" && !p.app.roles.has(body.role)) throw apiError("ERR_ROLE_NOT_FOUND", { role: body.role });
  const user: UserRecord = { uid, name: body.name as string, role: "default", tags: [], status: "offline", createdAt: seconds(body.createdAt) ?? p.now };
  applyUserAttributes(user, body);
  const lastActiveAt = seconds(body.lastActiveAt);
  if (lastActiveAt !== undefined) user.lastActiveAt = lastActiveAt;
  p.users.set(uid, { user, deactivatedAt: seconds(body.deactivatedAt) });
  return user;
}

export function importUser(app: AppState, body: Body, now: number): UserRecord {
  return atomically(app, now, (p) => newUser(p, body));
}

/** The user `uid` names: an existing one, one this item makes, or one made from `detailsOf` (which must describe that uid). */
function userFor(p: Pending, uid: string, detailsOf: Body | undefined, field: string): UserRecord {
  const id = normalizeUid(uid);
  const existing = p.app.users.get(id) ?? p.users.get(id)?.user;
  if (existing && existing.deletedAt === undefined) return existing;
  if (!detailsOf) throw apiError("ERR_UID_NOT_FOUND", { uid: id });
  if (typeof detailsOf.uid === "string" && normalizeUid(detailsOf.uid) !== id)
    throw badRequest({ [`${field}.uid`]: [`The ${field}.uid must be ${id}.`] });
  return newUser(p, { ...detailsOf, uid: id });
}

const GROUP: Schema = { ...GROUP_CREATE, createdAt: SECONDS };

/** A new group (its owner an admin member since its creation); ERR_GUID_ALREADY_EXISTS for a taken guid. */
function newGroup(p: Pending, body: Body): GroupRecord {
  validate(body, GROUP);
  const guid = normalizeUid(body.guid as string);
  if (p.app.groups.get(guid) || p.groups.has(guid)) throw apiError("ERR_GUID_ALREADY_EXISTS", { guid });
  requirePassword(body);
  const owner = typeof body.owner === "string" ? userFor(p, body.owner, details(body, "groupOwnerDetails"), "groupOwnerDetails") : undefined;
  const group: GroupRecord = { guid, name: body.name as string, type: body.type as GroupType, tags: [], createdAt: seconds(body.createdAt) ?? p.now };
  applyGroupAttributes(group, body);
  if (owner) group.owner = owner.uid;
  p.groups.set(guid, group);
  return group;
}

export function importGroup(app: AppState, body: Body, now: number): GroupRecord {
  return atomically(app, now, (p) => newGroup(p, body));
}

function groupFor(p: Pending, guid: string, detailsOf: Body | undefined, ownerDetails: Body | undefined, field: string): GroupRecord {
  const id = normalizeUid(guid);
  const existing = p.app.groups.get(id) ?? p.groups.get(id);
  if (existing) return existing;
  if (!detailsOf) throw apiError("ERR_GUID_NOT_FOUND", { guid: id });
  if (typeof detailsOf.guid === "string" && normalizeUid(detailsOf.guid) !== id)
    throw badRequest({ [`${field}.guid`]: [`The ${field}.guid must be ${id}.`] });
  return newGroup(p, { ...detailsOf, guid: id, ...(ownerDetails ? { groupOwnerDetails: ownerDetails } : {}) });
}

const MEMBER: Schema = {
  guid: { required: true, type: "string", max: 100 },
  uid: { required: true, type: "string", max: 100 },
  scope: { type: "string", in: SCOPES },
  isBanned: { type: "boolean" },
  joinedAt: SECONDS,
};

/** A membership (or a ban, with `isBanned`) as it was, at its `joinedAt`. */
export function importMember(app: AppState, key: string, body: Body, now: number): { guid: string; uid: string; scope?: Scope; joinedAt?: number; isBanned?: true } {
  validate(body, MEMBER);
  const expected = `${body.guid as string}_member_${body.uid as string}`;
  if (key.toLowerCase() !== expected.toLowerCase())
    throw badRequest({ memberId: [`The member key must be <guid>_member_<uid> (${expected}).`] });
  const { guid, uid, joinedAt } = atomically(app, now, (p) => {
    // The user first: a group made from groupDetails may name them as its owner.
    const user = userFor(p, body.uid as string, details(body, "userDetails"), "userDetails");
    const group = groupFor(p, body.guid as string, details(body, "groupDetails"), undefined, "groupDetails");
    const params = { uid: user.uid, guid: group.guid };
    // A group this item makes has its owner as its only member.
    if (app.groups.member(group.guid, user.uid) || (p.groups.has(group.guid) && group.owner === user.uid)) throw apiError("ERR_ALREADY_JOINED", params);
    if (app.groups.ban(group.guid, user.uid)) throw apiError("ERR_ALREADY_BANNED", params);
    const joinedAt = seconds(body.joinedAt) ?? now;
    if (joinedAt <= group.createdAt || joinedAt >= now)
      throw apiError("ERR_IMPORT_INVALID_JOINEDAT", { joinedAt, uid: user.uid, guid: group.guid, createdAt: group.createdAt });
    return { guid: group.guid, uid: user.uid, joinedAt };
  });
  if (body.isBanned === true || body.isBanned === "true" || body.isBanned === 1) {
    app.groups.addBan(guid, { uid, bannedAt: joinedAt, bannedBy: "app_system" });
    return { guid, uid, isBanned: true, joinedAt };
  }
  const member: MemberRecord = { uid, scope: (body.scope as Scope | undefined) ?? "participant", joinedAt };
  app.groups.addMember(guid, member);
  return { guid, uid, scope: member.scope, joinedAt };
}

const MESSAGE: Schema = {
  sender: { required: true, type: "string", max: 100 },
  receiverType: { required: true, type: "string", in: ["user", "group"] },
  receiver: { required: true, type: "string", max: 100 },
  sentAt: { required: true, type: "integer" },
  deliveredAt: SECONDS,
  readAt: SECONDS,
};

/** A message as it was sent: its sender, receiver and times; placed by `sentAt` among the conversation's messages. */
export function importMessage(app: AppState, muid: string, body: Body, now: number): MessageRecord {
  validate(body, MESSAGE);
  if (app.messages.imported(muid)) throw apiError("ERR_IMPORT_MUID_ALREADY_EXISTS", { muid });
  const content = readContent({ ...body, muid });
  const { sender, receiverType, receiver, conversationId } = atomically(app, now, (p) => {
    const sender = userFor(p, body.sender as string, details(body, "senderUserDetails"), "senderUserDetails");
    const receiverType = body.receiverType as "user" | "group";
    const to =
      receiverType === "user"
        ? userFor(p, body.receiver as string, details(body, "receiverUserDetails"), "receiverUserDetails").uid
        : groupFor(p, body.receiver as string, details(body, "receiverGroupDetails"), details(body, "receiverGroupOwnerDetails"), "receiverGroupDetails").guid;
    const mentioned = details(body, "mentionedUserDetails");
    if (mentioned) for (const [uid, d] of Object.entries(mentioned)) userFor(p, uid, d as Body, `mentionedUserDetails.${uid}`);
    const conversationId = receiverType === "user" ? userConversationId(sender.uid, to) : groupConversationId(to);
    return { sender, receiverType, receiver: to, conversationId };
  });
  const sentAt = seconds(body.sentAt)!;
  const m: Omit<MessageRecord, "id"> = {
    conversationId,
    sender: sender.uid,
    receiverType,
    receiver,
    category: content.category,
    type: content.type,
    data: content.data,
    sentAt,
    updatedAt: sentAt,
    muid,
    imported: true,
  };
  if (content.tags) m.tags = content.tags;
  const mentions = mentionsIn(app, content.data.text);
  if (mentions) m.mentionedUids = mentions;
  const deliveredAt = seconds(body.deliveredAt);
  const readAt = seconds(body.readAt);
  if (deliveredAt !== undefined || readAt !== undefined) m.deliveredAt = deliveredAt ?? readAt;
  if (readAt !== undefined) m.readAt = readAt;
  return app.addMessage(m);
}
