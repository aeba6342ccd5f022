import type { Ctx } from "../../http/context.js";
import { badRequest } from "../../http/errors.js";
import { onBehalfOf } from "../../http/auth.js";
import { PAGE_QUERY, pageMatching } from "../../http/pagination.js";
import { ok, page, success, prependCursor } from "../../http/reply.js";
import type { Body } from "../../http/validate.js";
import type { Schema } from "../../http/schema.js";
import { operation, routes } from "../../http/operation.js";
import { q } from "../../http/query-spec.js";
import { SCOPES, type Scope } from "../../store/types.js";
import { addMemberLists, changeScope, MEMBERS, pathGroup, removeMember, requireAtMostPerCall, requireVisible } from "../groups/membership.js";
import { requireUser } from "../users/lookup.js";
import { userView } from "../../views/users.js";
import { requireScopeAllowed, scopeAllowList } from "../roles/enforce.js";

/** The add-members lists: a list that is given names someone (`minItems: 1`). */
export const ADD: Schema = Object.fromEntries(Object.entries(MEMBERS).map(([list, spec]) => [list, { ...spec, minItems: 1 }]));

/** At least one list must name someone (Laravel's required_without_all). */
function requireSomeList(body: Body): void {
  const lists = Object.keys(MEMBERS);
  if (lists.some((k) => (body[k] as unknown[] | undefined)?.length)) return;
  throw badRequest(
    Object.fromEntries(
      lists.map((k) => [k, [`The ${k} field is required when none of ${lists.filter((o) => o !== k).join(" / ")} are present.`]]),
    ),
  );
}

/** Adds (and bans) the users the body's lists name; a result per user, in all four lists. The SDK sends it as PUT. */
export function addMembersFrom(c: Ctx, body: Body) {
  const actor = onBehalfOf(c, "optional");
  const app = c.get("app");
  const group = pathGroup(app, c.req.param("guid")!);
  requireSomeList(body);
  requireAtMostPerCall(body, "members");
  const data = addMemberLists(app, c.get("emulator").clock.now(), group, body, actor);
  // All four lists, `{}` for one that named nobody (the SDK reads the keys of each).
  return ok(c, data);
}

export const members = routes(
  operation({
    id: "add-group-members",
    method: "POST",
    path: "/groups/:guid/members",
    plane: "rest",
    body: ADD,
    headers: ["onBehalfOf"],
    handler: (c, { body }) => addMembersFrom(c, body),
  }),

  operation({
    id: "list-group-members",
    method: "GET",
    path: "/groups/:guid/members",
    plane: "rest",
    query: { status: q.oneOf(["available", "offline"]), scopes: q.listOf(SCOPES), ...PAGE_QUERY },
    headers: ["onBehalfOf"],
    handler: (c, { query }) => {
      const viewer = onBehalfOf(c, "optional");
      const app = c.get("app");
      const group = pathGroup(app, c.req.param("guid")!);
      requireVisible(app, group, c.get("actor"));
      requireScopeAllowed(app, group, viewer, "listMembers");
      const { status, perPage, page: pageNo } = query;
      // A scope permission may narrow which scopes a member sees.
      const allowed = scopeAllowList(app, group, viewer, "listMembers.allowedScopes") as Scope[] | undefined;
      const asked = query.scopes;
      const scopes = allowed ? (asked ?? allowed).filter((s) => allowed.includes(s)) : asked;
      const all = app.groups.membership(group.guid).members;
      const wanted = scopes ? new Set(scopes) : undefined;
      // Deactivated users vanish from lists; while there are none, the unfiltered total is the member count.
      const filtered = status || wanted || app.deactivatedCount > 0;
      const matches = filtered
        ? (m: { uid: string; scope: Scope }) => {
            const u = app.activeUser(m.uid);
            return !!u && (!wanted || wanted.has(m.scope)) && (!status || u.status === status);
          }
        : undefined;
      // Only this group's members are walked, and without filters only up to the end of the page.
      const result = pageMatching(all.values(), matches, perPage, pageNo, filtered ? undefined : all.size);
      const data = result.items.map((m) => ({ ...userView(app.users.get(m.uid)!, { list: true }), scope: m.scope, joinedAt: m.joinedAt }));
      const last = result.items.at(-1);
      return page(c, data, result.pagination, { cursor: prependCursor(c, last?.joinedAt) });
    },
  }),

  operation({
    id: "change-group-member-scope",
    method: "PUT",
    path: "/groups/:guid/members/:uid",
    plane: "rest",
    body: { scope: { type: "string", in: SCOPES } },
    headers: ["onBehalfOf"],
    handler: (c, { body }) => {
      const actor = onBehalfOf(c, "optional");
      const app = c.get("app");
      const group = pathGroup(app, c.req.param("guid")!);
      const user = requireUser(app, c.req.param("uid")!);
      const member = changeScope(app, c.get("emulator").clock.now(), group, user, (body.scope as Scope | undefined) ?? "participant", actor);
      return ok(c, { guid: group.guid, uid: user.uid, scope: member.scope, joinedAt: member.joinedAt });
    },
  }),

  operation({
    id: "kick-group-member",
    method: "DELETE",
    path: "/groups/:guid/members/:uid",
    plane: "rest",
    headers: ["onBehalfOf"],
    handler: (c) => {
      const actor = onBehalfOf(c, "optional");
      const app = c.get("app");
      const group = pathGroup(app, c.req.param("guid")!);
      const user = requireUser(app, c.req.param("uid")!);
      removeMember(app, c.get("emulator").clock.now(), group, user, actor);
      return success(c, `The member with ${user.uid} has been kicked from the Group with ${group.guid}.`);
    },
  }),
);
