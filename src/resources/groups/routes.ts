import { Hono } from "hono";
import type { Env } from "../../http/context.js";
import { apiError } from "../../http/errors.js";
import { normalizeUid, onBehalfOf } from "../../http/auth.js";
import { ok, okCached, page, success } from "../../http/reply.js";
import { Query, RANGE, readBody, validate, type Body, type Schema } from "../../http/validate.js";
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
import { ignoredValue } from "../../http/advice.js";

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
 * The `members` of a create request, checked before anything is created: its shape and the 25 users a call may
 * add. Each user's own failure (unknown, quota) is reported in its list once the group exists (addMemberLists).
 */
function memberLists(raw: unknown): Body | undefined {
  if (raw === undefined || raw === null) return undefined;
  const body = raw as Body;
  const lists = Object.keys(MEMBERS);
  validate(
    Object.fromEntries(lists.map((k) => [`members.${k}`, body[k]])),
    Object.fromEntries(lists.map((k) => [`members.${k}`, MEMBERS[k]])),
  );
  requireAtMostPerCall(body, "members");
  return body;
}

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

export const groups = new Hono<Env>()
  .post("/groups", async (c) => {
    const body = await readBody(c);
    validate(body, CREATE);
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
    const lists = memberLists(body.members);
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
  })

  .get("/groups", (c) => {
    const q = new Query(c);
    const viewer = onBehalfOf(c, "optional");
    requireAllowed(c.get("app"), viewer, "u.listGroups", "listGroups");
    const type = q.oneOf("type", GROUP_TYPES);
    const types = q.listOf("types", GROUP_TYPES);
    const guid = q.str("guid");
    const guids = q.list("guids");
    const hasJoined = q.bool("hasJoined");
    if (hasJoined && !viewer) q.fail("onBehalfOf", "The onBehalfOf header is required when hasJoined is true.");
    const filters = {
      searchKey: q.str("searchKey"),
      searchIn: q.listOf("searchIn", ["name", "guid"] as const),
      types: type || types ? [...(type ? [type] : []), ...(types ?? [])] : undefined,
      tags: q.list("tags"),
      guids: guid || guids ? [...(guid ? [guid] : []), ...(guids ?? [])] : undefined,
      createdAt: q.bounds("createdAt", RANGE),
      updatedAtRange: q.bounds("updatedAt", RANGE),
      membersCount: q.bounds("membersCount", COUNT_OPS),
      joinedBy: hasJoined ? viewer : undefined,
      hidePrivateFrom: c.get("actor"),
      updatedAt: q.optInt("updatedAt"),
      affix: q.oneOf("affix", ["append", "prepend"] as const) ?? "append",
      sortBy: q.oneOf("sortBy", ["name", "guid", "createdAt"] as const) ?? "name",
      sortOrder: q.oneOf("sortOrder", ["asc", "desc"] as const) ?? "asc",
      perPage: q.int("perPage", { def: 100, min: 1, max: 1000 }),
      page: q.int("page", { def: 1, min: 1 }),
    };
    const withTags = q.bool("withTags");
    q.done();
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
  })

  .get("/groups/:guid", (c) => {
    const viewer = onBehalfOf(c, "optional");
    requireAllowed(c.get("app"), viewer, "u.getGroup");
    const group = pathGroup(c.get("app"), c.req.param("guid"));
    requireVisible(c.get("app"), group, c.get("actor"));
    return okCached(c, group, viewer, () => groupView(c.get("app"), group, { viewer, tags: group.tags.length > 0 }));
  })

  .put("/groups/:guid", async (c) => {
    const actor = onBehalfOf(c, "optional");
    const app = c.get("app");
    const group = pathGroup(app, c.req.param("guid"));
    const body = await readBody(c);
    validate(body, UPDATE);
    requireAllowed(app, actor, "u.updateGroup");
    requireAdmin(app, group, actor);
    // The owner can only be handed over by the app itself.
    const newOwner = !actor && typeof body.owner === "string" ? requireUser(app, body.owner) : undefined;
    if (actor && body.owner !== undefined) ignoredValue(c, "body", "owner", "with onBehalfOf the owner stays; send the update without onBehalfOf to hand the group over");
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
  })

  .delete("/groups/:guid", (c) => {
    const actor = onBehalfOf(c, "optional");
    const app = c.get("app");
    const group = pathGroup(app, c.req.param("guid"));
    requireAllowed(app, actor, "u.deleteGroup");
    requireAdmin(app, group, actor);
    // Emitted first: the payload is built (only if a webhook listens) while the group still has its members.
    app.emit("group_deleted", () => ({ group: groupPayload(app, group), by: byPayload(actor) }));
    app.groups.delete(group);
    app.dropConversation(groupConversationId(group.guid));
    return success(c, `Group with guid ${group.guid} has been deleted successfully.`);
  });
