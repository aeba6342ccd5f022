import type { Ctx } from "../../http/context.js";
import { apiError } from "../../http/errors.js";
import { normalizeUid, onBehalfOf } from "../../http/auth.js";
import { page, pageCached, ok, okCached, success, prependCursor } from "../../http/reply.js";
import { asBool, RANGE, type Body } from "../../http/validate.js";
import type { Schema } from "../../http/schema.js";
import { operation, routes } from "../../http/operation.js";
import { q } from "../../http/query-spec.js";
import { PAGE_QUERY } from "../../http/pagination.js";
import type { JsonObject, UserRecord } from "../../store/types.js";
import { mintToken } from "../auth-tokens/tokens.js";
import { listUsers } from "./list.js";
import { pathUser } from "./lookup.js";
import { relationFlags } from "../blocked-users/flags.js";
import { allowList, friendsOnly, requireAllowed, requireListed } from "../roles/enforce.js";
import { userView } from "../../views/users.js";
import { byPayload, groupPayload } from "../../webhooks/payloads.js";

const ID = /^[A-Za-z0-9-]+$/;
const ID_MESSAGE = (field: string) => `The ${field} may only contain letters, numbers, and dashes.`;

/** Attribute rules shared by create and update (spec limits). */
const ATTRIBUTES: Schema = {
  avatar: { type: "string", max: 3000, url: true },
  link: { type: "string", max: 3000, url: true },
  role: { type: "string", max: 100 },
  statusMessage: { type: "string", max: 1000 },
  metadata: { type: "object", maxKb: 5 },
  tags: { type: "array", max: 25, items: { required: true, type: "string", max: 100 } },
};

export const CREATE: Schema = {
  uid: { required: true, type: "string", max: 100, pattern: ID, patternMessage: ID_MESSAGE("uid") },
  name: { required: true, type: "string", max: 100 },
  ...ATTRIBUTES,
  withAuthToken: { type: "boolean" },
};

const { role: _role, ...OWN_ATTRIBUTES } = ATTRIBUTES;

/**
 * What a user may change about themselves with the SDK's `updateCurrentUserDetails` (`PUT /me`): the editable
 * fields of sdk/javascript/user-management's User class but `role` ("You cannot update the user's role with this
 * method").
 */
export const OWN_PROFILE: Schema = { name: { filled: true, type: "string", max: 100 }, ...OWN_ATTRIBUTES };

const UPDATE: Schema = {
  ...OWN_PROFILE,
  role: ATTRIBUTES.role,
  unset: { type: "array", items: { type: "string", in: ["avatar", "link", "metadata"] } },
};


const LIST_QUERY = {
  role: q.str(),
  roles: q.list(),
  searchKey: q.str(),
  searchIn: q.listOf(["name", "uid"]),
  status: q.listOf(["available", "offline"]),
  createdAt: q.bounds(RANGE),
  updatedAt: q.bounds(RANGE),
  tags: q.list(),
  onlyDeactivated: q.bool(),
  withDeactivated: q.bool(),
  ...PAGE_QUERY,
  withTags: q.bool(),
  count: q.bool(),
  /**
   * The user-list filters the SDK sends on the client plane (`UsersRequestBuilder`), for the token's owner:
   * `friendsOnly=1` (their friends), `hideBlockedUsers=1` (not the users they blocked), `uids` (only these).
   */
  friendsOnly: q.bool(),
  hideBlockedUsers: q.bool(),
  uids: q.list(),
};

function checkRole(c: Ctx, role: unknown): void {
  if (typeof role === "string" && !c.get("app").roles.has(role)) throw apiError("ERR_ROLE_NOT_FOUND", { role });
}

export function applyAttributes(user: UserRecord, body: Body): void {
  for (const k of ["avatar", "link", "role", "statusMessage"] as const)
    if (typeof body[k] === "string") user[k] = body[k] as string;
  if (body.metadata !== undefined && body.metadata !== null) user.metadata = body.metadata as JsonObject;
  if (Array.isArray(body.tags)) user.tags = [...new Set(body.tags as string[])];
}

/**
 * A user's profile change (checked body): `PUT /users/{uid}`, and the SDK's `PUT /me` with only the fields a user
 * may change about themselves. Any change of a user goes through `updateUser`, which the change log, the caches and
 * the indexes follow.
 */
export function updateProfile(c: Ctx, user: UserRecord, body: Body): void {
  const unset = (body.unset as ("avatar" | "link" | "metadata")[] | undefined) ?? [];
  c.get("app").updateUser(user, (u) => {
    if (typeof body.name === "string") u.name = body.name;
    applyAttributes(u, body);
    for (const field of unset) delete u[field];
    u.updatedAt = c.get("emulator").clock.now();
  });
}

const uidList = (field: string): Schema => ({ [field]: { required: true, type: "array", items: { required: true, type: "string" } } });
const uidsOf = (body: Body, field: string) => [...new Set((body[field] as string[]).map(normalizeUid))];

/** The keys of a user's entry in a list read by the app, without and with tags (pageCached). */
const LIST_SHAPES = [{}, {}];

export const users = routes(
  operation({
    id: "create-user",
    method: "POST",
    path: "/users",
    plane: "rest",
    body: CREATE,
    handler: (c, { body }) => {
      const app = c.get("app");
      const uid = normalizeUid(body.uid as string);
      if (app.users.has(uid)) throw apiError("ERR_UID_ALREADY_EXISTS", { uid });
      checkRole(c, body.role);
      const now = c.get("emulator").clock.now();
      const user: UserRecord = { uid, name: body.name as string, role: "default", tags: [], status: "offline", createdAt: now };
      applyAttributes(user, body);
      app.addUser(user);
      const view = userView(user, { tags: true });
      if (asBool(body.withAuthToken)) view.authToken = mintToken(app, uid, now).authToken;
      return ok(c, view);
    },
  }),

  operation({
    id: "list-users",
    method: "GET",
    path: "/users",
    plane: "rest",
    query: LIST_QUERY,
    headers: ["onBehalfOf"],
    handler: (c, { query }) => {
      const viewer = onBehalfOf(c, "optional");
      const { role, roles } = query;
      const filters = {
        searchKey: query.searchKey,
        searchIn: query.searchIn,
        statuses: query.status,
        createdAt: query.createdAt,
        updatedAt: query.updatedAt,
        roles: role || roles ? [...(role ? [role] : []), ...(roles ?? [])] : undefined,
        tags: query.tags,
        deactivated: query.onlyDeactivated ? "only" : query.withDeactivated ? "include" : "exclude",
        perPage: query.perPage,
        page: query.page,
      } as const;
      const withTags = query.withTags;
      // On the client plane, the SDK's filters apply for the token's owner.
      const sdk = c.get("actor") ? { friendsOnly: query.friendsOnly, hideBlockedUsers: query.hideBlockedUsers, uids: query.uids } : undefined;
      const app = c.get("app");
      requireAllowed(app, viewer, "u.listUsers", "listUsers");
      // A role may narrow the list: to friends, and to some roles.
      const roleAllowed = allowList(app, viewer, "listUsers.allowedRoles");
      let among: UserRecord[] | undefined =
        friendsOnly(app, viewer, "listUsers") || sdk?.friendsOnly ? [...app.relations.friendsOf(viewer!.uid).keys()].map((uid) => app.users.get(uid)!) : undefined;
      if (sdk?.uids) {
        const named = new Set(sdk.uids.map(normalizeUid));
        among = among ? among.filter((u) => named.has(u.uid)) : [...named].flatMap((uid) => app.users.get(uid) ?? []).filter((u) => u.deletedAt === undefined);
      }
      const result = listUsers(app, {
        ...filters,
        searchIn: filters.searchIn ? [...filters.searchIn] : undefined,
        roles: roleAllowed ? (filters.roles?.filter((r) => roleAllowed.includes(r)) ?? roleAllowed) : filters.roles,
        among,
        hidden: sdk?.hideBlockedUsers ? app.relations.blockedByUser(viewer!.uid) : undefined,
      });
      const last = result.users[result.users.length - 1];
      const extra = { cursor: prependCursor(c, last && (last.updatedAt ?? last.createdAt)) };
      // Read by the app itself, a user's entry depends on the user and withTags only: its text is kept (reply.ts).
      if (!viewer) {
        const build = (u: UserRecord) => userView(u, { tags: withTags, list: true });
        return pageCached(c, result.users, (u) => u, LIST_SHAPES[Number(withTags)], build, result.pagination, extra);
      }
      const data = result.users.map((u) => ({ ...userView(u, { viewer, tags: withTags, list: true }), ...relationFlags(app, viewer, u) }));
      return page(c, data, result.pagination, extra);
    },
  }),

  operation({
    id: "reactivate-users",
    method: "PUT",
    path: "/users",
    plane: "rest",
    body: uidList("uidsToActivate"),
    handler: (c, { body }) => {
      const uids = uidsOf(body, "uidsToActivate");
      const app = c.get("app");
      const nonDeactivatedUids: string[] = [];
      const notFound: string[] = [];
      for (const uid of uids) {
        const user = app.users.get(uid);
        if (!user || user.deletedAt !== undefined) notFound.push(uid);
        else {
          app.setDeactivated(user, undefined);
          nonDeactivatedUids.push(uid);
        }
      }
      return ok(c, { nonDeactivatedUids, ...(notFound.length ? { notFound } : {}) });
    },
  }),

  operation({
    id: "deactivate-users",
    method: "DELETE",
    path: "/users",
    plane: "rest",
    body: uidList("uidsToDeactivate"),
    handler: (c, { body }) => {
      const uids = uidsOf(body, "uidsToDeactivate");
      const app = c.get("app");
      const now = c.get("emulator").clock.now();
      const deactivatedUids: string[] = [];
      const alreadyDeactivatedUids: string[] = [];
      const notFound: string[] = [];
      for (const uid of uids) {
        const user = app.users.get(uid);
        if (!user || user.deletedAt !== undefined) notFound.push(uid);
        else if (user.deactivatedAt !== undefined) alreadyDeactivatedUids.push(uid);
        else {
          app.setDeactivated(user, now);
          deactivatedUids.push(uid);
        }
      }
      return ok(c, {
        deactivatedUids,
        ...(alreadyDeactivatedUids.length ? { alreadyDeactivatedUids } : {}),
        ...(notFound.length ? { notFound } : {}),
      });
    },
  }),

  operation({
    id: "get-user",
    method: "GET",
    path: "/users/:uid",
    plane: "rest",
    headers: ["onBehalfOf"],
    handler: (c) => {
      const viewer = onBehalfOf(c, "optional");
      const user = pathUser(c);
      const app = c.get("app");
      if (viewer && viewer.uid !== user.uid) {
        requireAllowed(app, viewer, "u.getUser");
        if (friendsOnly(app, viewer, "getUserDetails") && !app.relations.friendship(viewer.uid, user.uid))
          throw apiError("ERR_NOT_A_FRIEND", { uid: viewer.uid, friend: user.uid });
        requireListed(app, viewer, "getUserDetails.allowedRoles", user.role);
      }
      return okCached(c, user, viewer, () => ({ ...userView(user, { viewer, tags: user.tags.length > 0 }), ...(viewer ? relationFlags(app, viewer, user) : {}) }));
    },
  }),

  operation({
    id: "update-user",
    method: "PUT",
    path: "/users/:uid",
    plane: "rest",
    body: UPDATE,
    handler: (c, { body }) => {
      const user = pathUser(c);
      checkRole(c, body.role);
      updateProfile(c, user, body);
      return ok(c, userView(user, { tags: true }));
    },
  }),

  operation({
    id: "delete-user",
    method: "DELETE",
    path: "/users/:uid",
    plane: "rest",
    body: { permanent: { type: "boolean" } },
    handler: (c, { body }) => {
      const app = c.get("app");
      const uid = normalizeUid(c.req.param("uid")!);
      const user = app.users.get(uid);
      const permanent = asBool(body.permanent);
      // A user soft-deleted by an older version can still be deleted permanently (that frees the uid).
      if (!user || (user.deletedAt !== undefined && !permanent)) throw apiError("ERR_UID_NOT_FOUND", { uid });
      // rest-api/users/delete: "By default, deleting a user only deactivates them": as `DELETE /users` deactivates,
      // so listed with onlyDeactivated and back with uidsToActivate.
      if (!permanent) {
        app.setDeactivated(user, c.get("emulator").clock.now());
        return success(c, `User with ${uid} has been deleted successfully.`);
      }
      if (user.deletedAt === undefined)
        for (const guid of app.groups.groupsOf(uid).keys())
          app.emit("group_member_removed", () => {
            const group = app.groups.get(guid)!;
            return { group: groupPayload(app, group), members: { [uid]: userView(user) }, by: byPayload(undefined) };
          });
      app.dropUserContent(uid);
      app.deleteUserPermanently(user);
      return success(c, `User with ${uid} has been deleted successfully.`);
    },
  }),
);
