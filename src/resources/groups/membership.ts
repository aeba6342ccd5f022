import { apiError, badRequest, keyedMap } from "../../http/errors.js";
import { bulkFailure } from "../../http/reply.js";
import type { Body, Schema } from "../../http/validate.js";
import { messageView } from "../../views/messages.js";
import { requireUser } from "../users/lookup.js";
import { normalizeUid } from "../../http/auth.js";
import type { AppState } from "../../store/app-state.js";
import { groupConversationId } from "../../store/conversation-ids.js";
import type { BanRecord, GroupRecord, JsonObject, MemberRecord, MessageRecord, Scope, UserRecord } from "../../store/types.js";
import { actorEntity, entity, SYSTEM_UID, subjectEntity } from "../../views/messages.js";
import { noteArrival, noteDeparture } from "../../views/access.js";
import { groupEntity } from "../../views/groups.js";
import { userView } from "../../views/users.js";
import { byPayload, groupPayload } from "../../webhooks/payloads.js";
import { requireAllowed, requireListed } from "../roles/enforce.js";

/**
 * Membership rules shared by group creation, add-members, kick, ban, unban and scope changes: who may act on
 * whom (clearance), the plan limits, and the `groupMember` action message every change leaves in the group.
 * `actor` is the `onBehalfOf` user; without one the app itself acts, with full clearance.
 */

export const GROUPS_PER_USER = 2000;
export const MEMBERS_PER_GROUP = 100_000;

export type MemberAction = "added" | "joined" | "kicked" | "banned" | "unbanned" | "scopeChanged" | "left";

const MEMBER_TRIGGERS: Record<MemberAction, string> = {
  added: "group_member_added",
  joined: "group_member_joined",
  kicked: "group_member_kicked",
  banned: "group_member_banned",
  unbanned: "group_member_unbanned",
  scopeChanged: "group_member_scope_changed",
  left: "group_member_left",
};

const RANK: Record<Scope, number> = { participant: 0, moderator: 1, admin: 2 };

export function pathGroup(app: AppState, guid: string): GroupRecord {
  const id = normalizeUid(guid);
  const group = app.groups.get(id);
  if (!group) throw apiError("ERR_GUID_NOT_FOUND", { guid: id });
  return group;
}

/**
 * On the client plane a private group shows itself to its members only: the SDK's group list leaves it out for
 * others (as documented for `GroupsRequest`), and its details and members answer as its messages do.
 */
export function requireVisible(app: AppState, group: GroupRecord, viewer: UserRecord | undefined): void {
  if (viewer && group.type === "private" && !app.groups.member(group.guid, viewer.uid))
    throw apiError("ERR_GROUP_NOT_JOINED", { uid: viewer.uid, guid: group.guid });
}

/** The acting user's membership; acting in a group needs one. */
function actingMember(app: AppState, group: GroupRecord, actor: UserRecord): MemberRecord {
  const mine = app.groups.member(group.guid, actor.uid);
  if (!mine) throw apiError("ERR_GROUP_NOT_JOINED", { uid: actor.uid, guid: group.guid });
  return mine;
}

/** Updating or deleting a group on behalf of a user needs the admin scope. */
export function requireAdmin(app: AppState, group: GroupRecord, actor: UserRecord | undefined): void {
  if (!actor) return;
  if (actingMember(app, group, actor).scope !== "admin")
    throw apiError("ERR_GROUP_NO_ADMIN_SCOPE", { uid: actor.uid, guid: group.guid });
}

/**
 * Kick, ban, unban and scope changes: participants act on nobody, moderators on participants only, admins on
 * everyone but the owner. `targetScope` is undefined for a banned (non-member) target, who ranks as a participant.
 */
export function requireClearance(
  app: AppState,
  group: GroupRecord,
  actor: UserRecord | undefined,
  targetUid: string,
  targetScope: Scope | undefined,
): void {
  if (!actor) return;
  if (actor.uid === targetUid) throw apiError("ERR_GROUP_NO_SELF_ACTION", { uid: actor.uid, guid: group.guid });
  const mine = actingMember(app, group, actor).scope;
  const allowed =
    mine === "admin" ? targetUid !== group.owner : mine === "moderator" ? (targetScope ?? "participant") === "participant" : false;
  if (!allowed) throw apiError("ERR_GROUP_NO_CLEARANCE", { uid: actor.uid, target: targetUid, guid: group.guid });
}

/** Which scopes an actor may hand out: moderators up to moderator, admins any, participants none. */
export function requireScopeClearance(app: AppState, group: GroupRecord, actor: UserRecord | undefined, scope: Scope): void {
  if (!actor) return;
  const mine = actingMember(app, group, actor).scope;
  if (mine === "participant" || RANK[scope] > RANK[mine])
    throw apiError("ERR_GROUP_NO_SCOPE_CLEARANCE", { uid: actor.uid, scope, guid: group.guid });
}

/** Leaves the `groupMember` action message of a change in the group's conversation. */
export function recordAction(
  app: AppState,
  now: number,
  group: GroupRecord,
  action: MemberAction,
  actor: UserRecord | undefined,
  target: UserRecord,
  extras?: JsonObject,
): MessageRecord {
  const by = actor?.uid ?? SYSTEM_UID;
  // A membership change updates the group (its list cursor and the `for` entity show it).
  app.groups.update(group, (g) => {
    g.updatedAt = now;
  });
  const data: JsonObject = {
    action,
    entities: {
      by: entity(actorEntity(app, by), "user"),
      on: entity(subjectEntity(target), "user"),
      for: entity(groupEntity(app, group), "group"),
    },
  };
  if (extras) data.extras = extras;
  const message = app.addMessage({
    conversationId: groupConversationId(group.guid),
    sender: by,
    receiverType: "group",
    receiver: group.guid,
    category: "action",
    type: "groupMember",
    data,
    sentAt: now,
    updatedAt: now,
  });
  app.emit(
    MEMBER_TRIGGERS[action],
    () => {
      const member: Record<string, unknown> = userView(target);
      const scope = extras?.scope as { new: string; old: string } | undefined;
      if (scope) Object.assign(member, { scope: scope.new, oldScope: scope.old });
      return { group: groupPayload(app, group), members: { [target.uid]: member }, by: byPayload(actor) };
    },
    message,
  );
  return message;
}

/** Room for `users` to join `guid`: the plan's members-per-group and groups-per-user limits. */
export function requireRoom(app: AppState, guid: string, users: UserRecord[]): void {
  if (app.groups.membersCount(guid) + users.length > MEMBERS_PER_GROUP)
    throw apiError("ERR_PLAN_QUOTA_RESTRICTION", { what: `The group ${guid} has reached the limit of ${MEMBERS_PER_GROUP} members.` });
  for (const user of users)
    if (app.groups.groupsOf(user.uid).size >= GROUPS_PER_USER)
      throw apiError("ERR_PLAN_QUOTA_RESTRICTION", {
        what: `The user ${user.uid} has reached the limit of ${GROUPS_PER_USER} groups; they must leave a group before joining another.`,
      });
}

/**
 * Makes `user` a member with `scope`; `joined` when they add themselves, `added` otherwise. Joining oneself takes
 * a public group, or a password group with its `password` (the client plane's join).
 */
export function addMember(
  app: AppState,
  now: number,
  group: GroupRecord,
  user: UserRecord,
  scope: Scope,
  actor: UserRecord | undefined,
  password?: string,
): MessageRecord {
  const params = { uid: user.uid, guid: group.guid };
  if (app.groups.ban(group.guid, user.uid)) throw apiError("ERR_BANNED_GROUPMEMBER", params);
  if (app.groups.member(group.guid, user.uid)) throw apiError("ERR_ALREADY_JOINED", params);
  const self = actor?.uid === user.uid;
  if (self) {
    requireAllowed(app, actor, "u.joinGroup", "joinGroup");
    requireListed(app, actor, "joinGroup.allowedGroupTypes", group.type);
    if (group.type === "password" && password !== undefined && scope === "participant") {
      if (password === "") throw apiError("ERR_EMPTY_GROUP_PASS");
      if (password !== group.password) throw apiError("ERR_WRONG_GROUP_PASS", params);
    } else if (group.type !== "public" || scope !== "participant")
      throw apiError("ERR_GROUP_JOIN_NOT_ALLOWED", { uid: user.uid, guid: group.guid, type: group.type });
  } else {
    requireAllowed(app, actor, "u.addMembers");
    requireScopeClearance(app, group, actor, scope);
  }
  requireRoom(app, group.guid, [user]);
  app.groups.addMember(group.guid, { uid: user.uid, scope, joinedAt: now });
  noteArrival(app, user.uid, group.guid);
  return recordAction(app, now, group, self ? "joined" : "added", actor, user);
}

/** The owner of a new group, or a new owner: an admin member (added or promoted as needed). */
export function makeAdmin(app: AppState, now: number, group: GroupRecord, user: UserRecord, actor: UserRecord | undefined): void {
  const member = app.groups.member(group.guid, user.uid);
  if (!member) {
    if (app.groups.ban(group.guid, user.uid)) throw apiError("ERR_BANNED_GROUPMEMBER", { uid: user.uid, guid: group.guid });
    requireRoom(app, group.guid, [user]);
    app.groups.addMember(group.guid, { uid: user.uid, scope: "admin", joinedAt: now });
    noteArrival(app, user.uid, group.guid);
  } else rescope(app, now, group, user, "admin", actor);
}

/** Gives a member `scope` (with its scopeChanged action) when they have another; no checks (ownership's own rules). */
export function rescope(app: AppState, now: number, group: GroupRecord, user: UserRecord, scope: Scope, actor: UserRecord | undefined): void {
  const member = app.groups.member(group.guid, user.uid);
  if (!member || member.scope === scope) return;
  const old = member.scope;
  member.scope = scope;
  app.groups.touchMember(group.guid, user.uid);
  recordAction(app, now, group, "scopeChanged", actor, user, { scope: { new: scope, old } });
}

/** Kick (by someone else) or leave (oneself; the owner cannot leave). */
export function removeMember(app: AppState, now: number, group: GroupRecord, user: UserRecord, actor: UserRecord | undefined): void {
  const member = app.groups.member(group.guid, user.uid);
  if (!member) throw apiError("ERR_NOT_A_MEMBER", { uid: user.uid, guid: group.guid });
  const leaving = actor?.uid === user.uid;
  if (leaving && group.owner === user.uid) throw apiError("ERR_GROUP_NO_SELF_ACTION", { uid: user.uid, guid: group.guid });
  if (!leaving) {
    requireAllowed(app, actor, "u.kickMembers");
    requireClearance(app, group, actor, user.uid, member.scope);
  }
  app.groups.removeMember(group.guid, user.uid);
  recordAction(app, now, group, leaving ? "left" : "kicked", actor, user);
  noteDeparture(app, user.uid, group.guid);
}

/** Bans a member (they leave the group) or, through add-members' `usersToBan`, a user who is not one. */
export function banUser(
  app: AppState,
  now: number,
  group: GroupRecord,
  user: UserRecord,
  actor: UserRecord | undefined,
  opts: { membersOnly: boolean },
): void {
  const params = { uid: user.uid, guid: group.guid };
  if (app.groups.ban(group.guid, user.uid)) throw apiError("ERR_ALREADY_BANNED", params);
  const member = app.groups.member(group.guid, user.uid);
  if (!member && opts.membersOnly) throw apiError("ERR_NOT_A_MEMBER", params);
  requireAllowed(app, actor, "u.banMembers");
  requireClearance(app, group, actor, user.uid, member?.scope);
  if (member) app.groups.removeMember(group.guid, user.uid);
  const ban: BanRecord = { uid: user.uid, bannedAt: now, bannedBy: actor?.uid ?? SYSTEM_UID };
  if (member) ban.scope = member.scope;
  app.groups.addBan(group.guid, ban);
  if (member) {
    recordAction(app, now, group, "banned", actor, user);
    noteDeparture(app, user.uid, group.guid);
  }
}

export function unbanUser(app: AppState, now: number, group: GroupRecord, user: UserRecord, actor: UserRecord | undefined): void {
  if (!app.groups.ban(group.guid, user.uid)) throw apiError("ERR_NOT_A_BANNED_USER", { uid: user.uid, guid: group.guid });
  requireAllowed(app, actor, "u.banMembers");
  requireClearance(app, group, actor, user.uid, undefined);
  app.groups.removeBan(group.guid, user.uid);
  recordAction(app, now, group, "unbanned", actor, user);
}

export function changeScope(
  app: AppState,
  now: number,
  group: GroupRecord,
  user: UserRecord,
  scope: Scope,
  actor: UserRecord | undefined,
): MemberRecord {
  const member = app.groups.member(group.guid, user.uid);
  if (!member) throw apiError("ERR_NOT_A_MEMBER", { uid: user.uid, guid: group.guid });
  requireAllowed(app, actor, "u.changeScope");
  requireClearance(app, group, actor, user.uid, member.scope);
  requireScopeClearance(app, group, actor, scope);
  if (member.scope === scope) throw apiError("ERR_SAME_SCOPE", { uid: user.uid, scope, guid: group.guid });
  const old = member.scope;
  member.scope = scope;
  app.groups.touchMember(group.guid, user.uid);
  recordAction(app, now, group, "scopeChanged", actor, user, { scope: { new: scope, old } });
  return member;
}

const UID_LIST = { type: "array", items: { required: true, type: "string" } } as const;
/** The lists of add-members and of `members` on create, with the scope each gives. */
export const MEMBER_LISTS = { admins: "admin", moderators: "moderator", participants: "participant" } as const satisfies Record<string, Scope>;

export const MEMBERS: Schema = {
  admins: UID_LIST,
  moderators: UID_LIST,
  participants: UID_LIST,
  usersToBan: UID_LIST,
};

/** "A maximum of 25 users can be added per API Call" (add members), "across all the scopes" (group create). */
export const USERS_PER_CALL = 25;

/**
 * The size up to which a group has every feature (rest-api/groups/create): beyond it "the conversations and unread
 * message counts are not updated" and delivery and read receipts are not kept.
 */
export const FULL_FEATURE_MEMBERS = 300;

/** Refuses lists that name more than USERS_PER_CALL users in all (400 with `details` under `field`). */
export function requireAtMostPerCall(lists: Body, field: string): void {
  const total = Object.keys(MEMBERS).reduce((n, k) => n + ((lists[k] as unknown[] | undefined)?.length ?? 0), 0);
  if (total > USERS_PER_CALL)
    throw badRequest({ [field]: [`At most ${USERS_PER_CALL} users can be added in one request, across all scopes; ${total} were given.`] });
}

/**
 * Adds (and bans) the users the lists name, each on its own: a result per user in its list, `{success: true, data}`
 * or the error, all four lists present. A uid named in several lists counts in the first of admins, moderators,
 * participants, usersToBan, and appears only there.
 */
export function addMemberLists(app: AppState, now: number, group: GroupRecord, lists: Body, actor: UserRecord | undefined): Record<string, Record<string, unknown>> {
  const data: Record<string, Record<string, unknown>> = {};
  const seen = new Set<string>();
  const first = (uid: string) => {
    const key = normalizeUid(uid);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };
  for (const [list, scope] of Object.entries(MEMBER_LISTS) as [string, Scope][]) {
    data[list] = keyedMap();
    for (const uid of ((lists[list] as string[] | undefined) ?? []).filter(first)) {
      try {
        const message = addMember(app, now, group, requireUser(app, uid), scope, actor);
        data[list][uid] = { success: true, data: messageView(app, message) };
      } catch (e) {
        data[list][uid] = bulkFailure(e);
      }
    }
  }
  data.usersToBan = keyedMap();
  for (const uid of ((lists.usersToBan as string[] | undefined) ?? []).filter(first)) {
    try {
      banUser(app, now, group, requireUser(app, uid), actor, { membersOnly: false });
      data.usersToBan[uid] = { success: true };
    } catch (e) {
      data.usersToBan[uid] = bulkFailure(e);
    }
  }
  return data;
}
