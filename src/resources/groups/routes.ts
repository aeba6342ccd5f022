import { header } from "../../http/context.js";
import { apiError, badRequest } from "../../http/errors.js";
import { normalizeUid, onBehalfOf } from "../../http/auth.js";
import { ok, okCached, page, success } from "../../http/reply.js";
import { RANGE, type Body } from "../../http/validate.js";
import { bodySchema, type Schema } from "../../http/schema.js";
import { checkBody } from "../../http/body-check.js";
import { operation, routes } from "../../http/operation.js";
import { q } from "../../http/query-spec.js";
import { PAGE_QUERY } from "../../http/pagination.js";
import type { AppState } from "../../store/app-state.js";
import { groupConversationId } from "../../store/conversation-ids.js";
import { GROUP_TYPES, type GroupRecord, type GroupType, type JsonObject, type UserRecord } from "../../store/types.js";
import { SYSTEM_UID } from "../../views/messages.js";
import { byPayload, groupPayload } from "../../webhooks/payloads.js";
import { requireUser } from "../users/lookup.js";
import { COUNT_OPS, listGroups } from "./list.js";
import { addMemberLists, makeAdmin, MEMBERS, rescope, pathGroup, requireAdmin, requireAtMostPerCall, requireRoom, requireVisible } from "./membership.js";
import { groupView } from "../../views/groups.js";
import { allowList, requireAllowed, requireListed } from "../roles/enforce.js";

const GUID = /^[A-Za-z0-9-]+$/;


const ATTRIBUTES: Schema = {
  type: { type: "string", in: GROUP_TYPES },
  password: { type: "string", max: 100 },
  icon: { type: "string", max: 3000, url: true },
  description: { type: "string", max: 255 },
  metadata: { type: "object", maxKb: 5 },
  owner: { type: "string", max: 100 },
  tags: { type: "array", max: 25, items: { required: true, type: "string", max: 100 } },
};

export const CREATE: Schema = {
  guid: {
    required: true,
    type: "string",
    max: 100,
    pattern: GUID,
    patternMessage: "The guid may only contain letters, numbers, and dashes.",
  },
  name: { required: true, type: "string", max: 100 },
  ...ATTRIBUTES,
  type: { required: true, type: "string", in: GROUP_TYPES },
  // The create's `members` holds the add-members lists and nothing else (`additionalProperties: false`).
  members: { type: "object", keys: Object.keys(MEMBERS) },
};

const UPDATE: Schema = {
  name: { filled: true, type: "string", max: 100 },
  ...ATTRIBUTES,
  unset: { type: "array", items: { type: "string", in: ["icon", "description", "metadata"] } },
};

export function applyAttributes(g: GroupRecord, body: Body): void {
  if (typeof body.name === "string") g.name = body.name;
  if (typeof body.type === "string") g.type = body.type as GroupType;
  if (g.type === "password") {
    if (typeof body.password === "string" && body.password !== "") g.password = body.password;
  } else delete g.password;
  for (const k of ["icon", "description"] as const) if (typeof body[k] === "string") g[k] = body[k] as string;
  if (body.metadata !== undefined && body.metadata !== null) g.metadata = body.metadata as JsonObject;
  if (Array.isArray(body.tags)) g.tags = [...new Set(body.tags as string[])];
}

/** A password group needs a password: given now, or kept from before when the type was already `password`. */
export function requirePassword(body: Body, current?: GroupRecord): void {
  const type = (body.type as GroupType | undefined) ?? current?.type;
  const password = body.password || (current?.type === "password" ? current.password : undefined);
  if (type === "password" && !password) throw apiError("ERR_EMPTY_GROUP_PASS");
}

/**
 * The lists inside a create's `members`, named as the platform names them (`members.admins`). The declaration's
 * notation describes `members` as an object with these keys only, not the lists' own fields, so they are checked
 * here with a schema of their own (compiled once, as a declaration's is).
 */
const LISTS = Object.keys(MEMBERS);
const MEMBER_LISTS = bodySchema(Object.fromEntries(LISTS.map((k) => [`members.${k}`, MEMBERS[k]])));

/**
 * The `members` of a create request, checked before anything is created: its shape and the 25 users a call may
 * add. Each user's own failure (unknown, quota) is reported in its list once the group exists (addMemberLists).
 */
async function memberLists(raw: unknown): Promise<Body | undefined> {
  if (raw === undefined || raw === null) return undefined;
  const body = raw as Body;
  await checkBody(Object.fromEntries(LISTS.map((k) => [`members.${k}`, body[k]])), MEMBER_LISTS);
  requireAtMostPerCall(body, "members");
  return body;
}

/** The group-list filters, in the order the platform reports their problems. */
const LIST_QUERY = {
  type: q.oneOf(GROUP_TYPES),
  types: q.listOf(GROUP_TYPES),
  guid: q.str(),
  guids: q.list(),
  hasJoined: q.bool(),
  searchKey: q.str(),
  searchIn: q.listOf(["name", "guid"]),
  tags: q.list(),
  createdAt: q.bounds(RANGE),
  // `updatedAt` is both a range (`updatedAt[from]`, `updatedAt[to]`) and the cursor (`updatedAt`).
  "updatedAt[from]": q.int(),
  "updatedAt[to]": q.int(),
  membersCount: q.bounds(COUNT_OPS),
  updatedAt: q.int(),
  affix: q.oneOf(["append", "prepend"]),
  sortBy: q.oneOf(["name", "guid", "createdAt"]),
  sortOrder: q.oneOf(["asc", "desc"]),
  ...PAGE_QUERY,
  withTags: q.bool(),
};

/**
 * Changes a group (`change`) and, with `newOwner`, hands it over: the new owner becomes an admin member (added or
 * promoted), the former owner, if still a member, a participant. Emits group_updated, then group_owner_transferred when the owner changed.
 */
export function updateGroup(
  app: AppState,
  now: number,
  group: GroupRecord,
  actor: UserRecord | undefined,
  change: (g: GroupRecord) => void,
  newOwner?: UserRecord,
) {
  const oldOwner = group.owner;
  app.groups.update(group, (g) => {
    change(g);
    if (newOwner) g.owner = newOwner.uid;
    g.updatedAt = now;
    g.updatedBy = actor?.uid ?? SYSTEM_UID;
  });
  if (newOwner) makeAdmin(app, now, group, newOwner, undefined);
  // sdk/javascript/transfer-group-ownership: "the previous owner becomes a participant".
  const former = newOwner && oldOwner !== undefined && oldOwner !== newOwner.uid ? app.users.get(oldOwner) : undefined;
  if (former) rescope(app, now, group, former, "participant", undefined);
  app.emit("group_updated", () => ({ group: groupPayload(app, group), by: byPayload(actor) }));
  if (newOwner && newOwner.uid !== oldOwner)
    app.emit("group_owner_transferred", () => ({ group: { ...groupPayload(app, group), oldOwner }, by: byPayload(actor) }));
}

export const groups = routes(
  operation({
    id: "create-group",
    method: "POST",
    path: "/groups",
    plane: "rest",
    body: CREATE,
    headers: ["onBehalfOf"],
    handler: async (c, { body }) => {
      const app = c.get("app");
      const creator = onBehalfOf(c, "optional");
      requireAllowed(app, creator, "u.createGroup", "createGroup");
      requireListed(app, creator, "createGroup.allowedGroupTypes", body.type as string);
      const guid = normalizeUid(body.guid as string);
      if (app.groups.get(guid)) throw apiError("ERR_GUID_ALREADY_EXISTS", { guid });
      const owner = typeof body.owner === "string" ? requireUser(app, body.owner) : creator;
      requirePassword(body);
      const now = c.get("emulator").clock.now();
      const group: GroupRecord = { guid, name: body.name as string, type: body.type as GroupType, tags: [], createdAt: now };
      applyAttributes(group, body);
      if (owner) group.owner = owner.uid;
      const admins = [...new Set([owner, creator])].filter((u) => u !== undefined);
      const lists = await memberLists(body.members);
      // Every check of the request happens before the group exists, so a refused create leaves nothing behind;
      // "failure to add a member or ban a user does not result in a create group failure" (rest-api/groups).
      requireRoom(app, guid, admins);

      app.groups.add(group);
      for (const admin of admins) makeAdmin(app, now, group, admin, creator);
      // The owner and creator are admins already: the lists do not name them again.
      const others = lists && Object.fromEntries(Object.entries(lists).map(([k, v]) => [k, Array.isArray(v) ? v.filter((uid) => !admins.some((a) => a.uid === normalizeUid(String(uid)))) : v]));
      const members = others && addMemberLists(app, now, group, others, undefined);
      app.emit("group_created", () => ({ group: groupPayload(app, group), by: byPayload(creator) }));
      const view = groupView(app, group, { viewer: creator ?? owner, tags: group.tags.length > 0 });
      // Each member's result in its list, as add-members answers them.
      return ok(c, members ? { ...view, members } : view);
    },
  }),

  operation({
    id: "list-groups",
    method: "GET",
    path: "/groups",
    plane: "rest",
    query: LIST_QUERY,
    headers: ["onBehalfOf"],
    handler: (c, { query }) => {
      const viewer = onBehalfOf(c, "optional");
      requireAllowed(c.get("app"), viewer, "u.listGroups", "listGroups");
      const { type, types, guid, guids, hasJoined } = query;
      if (hasJoined && !viewer) throw badRequest({ onBehalfOf: ["The onBehalfOf header is required when hasJoined is true."] });
      const from = query["updatedAt[from]"];
      const to = query["updatedAt[to]"];
      const filters = {
        searchKey: query.searchKey,
        searchIn: query.searchIn,
        types: type || types ? [...(type ? [type] : []), ...(types ?? [])] : undefined,
        tags: query.tags,
        guids: guid || guids ? [...(guid ? [guid] : []), ...(guids ?? [])] : undefined,
        createdAt: query.createdAt,
        updatedAtRange: from !== undefined || to !== undefined ? { from, to } : undefined,
        membersCount: query.membersCount,
        joinedBy: hasJoined ? viewer : undefined,
        hidePrivateFrom: c.get("actor"),
        updatedAt: query.updatedAt,
        affix: query.affix ?? "append",
        sortBy: query.sortBy ?? "name",
        sortOrder: query.sortOrder ?? "asc",
        perPage: query.perPage,
        page: query.page,
      };
      const withTags = query.withTags;
      const app = c.get("app");
      // A role may list some group types only.
      const roleTypes = allowList(app, viewer, "listGroups.allowedGroupTypes") as GroupType[] | undefined;
      if (roleTypes) filters.types = filters.types ? filters.types.filter((t) => roleTypes.includes(t)) : roleTypes;
      const result = listGroups(app, filters);
      const last = result.groups.at(-1);
      const cursor = { updatedAt: last ? (last.updatedAt ?? last.createdAt) : c.get("emulator").clock.now(), affix: filters.affix };
      return page(c, result.groups.map((g) => groupView(app, g, { viewer, tags: withTags })), result.pagination, {
        cursor,
        meta: { pagination: result.pagination, cursor },
      });
    },
  }),

  operation({
    id: "get-group",
    method: "GET",
    path: "/groups/:guid",
    plane: "rest",
    headers: ["onBehalfOf"],
    handler: (c) => {
      const viewer = onBehalfOf(c, "optional");
      requireAllowed(c.get("app"), viewer, "u.getGroup");
      const group = pathGroup(c.get("app"), c.req.param("guid")!);
      requireVisible(c.get("app"), group, c.get("actor"));
      return okCached(c, group, viewer, () => groupView(c.get("app"), group, { viewer, tags: group.tags.length > 0 }));
    },
  }),

  operation({
    id: "update-group",
    method: "PUT",
    path: "/groups/:guid",
    plane: "rest",
    body: UPDATE,
    headers: ["onBehalfOf"],
    ignores: [
      {
        in: "body",
        name: "owner",
        when: (c, { body }) => body.owner !== undefined && !!header(c, "onBehalfOf"),
        why: "with onBehalfOf the owner stays; send the update without onBehalfOf to hand the group over",
      },
    ],
    handler: (c, { body }) => {
      const actor = onBehalfOf(c, "optional");
      const app = c.get("app");
      const group = pathGroup(app, c.req.param("guid")!);
      requireAllowed(app, actor, "u.updateGroup");
      requireAdmin(app, group, actor);
      // The owner can only be handed over by the app itself.
      const newOwner = !actor && typeof body.owner === "string" ? requireUser(app, body.owner) : undefined;
      requirePassword(body, group);
      if (newOwner && app.groups.ban(group.guid, newOwner.uid))
        throw apiError("ERR_BANNED_GROUPMEMBER", { uid: newOwner.uid, guid: group.guid });

      const unset = (body.unset as ("icon" | "description" | "metadata")[] | undefined) ?? [];
      const change = (g: GroupRecord) => {
        applyAttributes(g, body);
        for (const field of unset) delete g[field];
      };
      updateGroup(app, c.get("emulator").clock.now(), group, actor, change, newOwner);
      return ok(c, groupView(app, group, { viewer: actor, tags: group.tags.length > 0 }));
    },
  }),

  operation({
    id: "delete-group",
    method: "DELETE",
    path: "/groups/:guid",
    plane: "rest",
    headers: ["onBehalfOf"],
    handler: (c) => {
      const actor = onBehalfOf(c, "optional");
      const app = c.get("app");
      const group = pathGroup(app, c.req.param("guid")!);
      requireAllowed(app, actor, "u.deleteGroup");
      requireAdmin(app, group, actor);
      // Emitted first: the payload is built (only if a webhook listens) while the group still has its members.
      app.emit("group_deleted", () => ({ group: groupPayload(app, group), by: byPayload(actor) }));
      app.groups.delete(group);
      app.dropConversation(groupConversationId(group.guid));
      return success(c, `Group with guid ${group.guid} has been deleted successfully.`);
    },
  }),
);
