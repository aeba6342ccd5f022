import { onBehalfOf } from "../../http/auth.js";
import { PAGE_QUERY, pageMatching } from "../../http/pagination.js";
import { page, success, prependCursor } from "../../http/reply.js";
import { operation, routes } from "../../http/operation.js";
import { banUser, pathGroup, unbanUser } from "../groups/membership.js";
import { requireUser } from "../users/lookup.js";
import { userView } from "../../views/users.js";

export const bannedUsers = routes(
  operation({
    id: "ban-group-user",
    method: "POST",
    path: "/groups/:guid/bannedusers/:uid",
    plane: "rest",
    headers: ["onBehalfOf"],
    handler: (c) => {
      const actor = onBehalfOf(c, "optional");
      const app = c.get("app");
      const group = pathGroup(app, c.req.param("guid")!);
      const user = requireUser(app, c.req.param("uid")!);
      banUser(app, c.get("emulator").clock.now(), group, user, actor, { membersOnly: true });
      return success(c, `The user with uid ${user.uid} has been banned from the Group with ${group.guid}.`);
    },
  }),

  operation({
    id: "unban-group-user",
    method: "DELETE",
    path: "/groups/:guid/bannedusers/:uid",
    plane: "rest",
    headers: ["onBehalfOf"],
    handler: (c) => {
      const actor = onBehalfOf(c, "optional");
      const app = c.get("app");
      const group = pathGroup(app, c.req.param("guid")!);
      const user = requireUser(app, c.req.param("uid")!);
      unbanUser(app, c.get("emulator").clock.now(), group, user, actor);
      return success(c, `The user with uid ${user.uid} has been unbanned from the Group with ${group.guid}.`);
    },
  }),

  operation({
    id: "list-banned-group-users",
    method: "GET",
    path: "/groups/:guid/bannedusers",
    plane: "rest",
    query: PAGE_QUERY,
    handler: (c, { query }) => {
      const app = c.get("app");
      const group = pathGroup(app, c.req.param("guid")!);
      const { perPage, page: pageNo } = query;
      const bans = app.groups.membership(group.guid).bans;
      const active = app.deactivatedCount > 0 ? (b: { uid: string }) => !!app.activeUser(b.uid) : undefined;
      const result = pageMatching(bans.values(), active, perPage, pageNo, active ? undefined : bans.size);
      // rest-api/banned-users: each ban has the user's former `scope` (a non-member's is participant) and `bannedAt`.
      const data = result.items.map((b) => ({ ...userView(app.users.get(b.uid)!, { list: true }), scope: b.scope ?? "participant", bannedAt: b.bannedAt }));
      const last = result.items.at(-1);
      return page(c, data, result.pagination, { cursor: prependCursor(c, last?.bannedAt) });
    },
  }),
);
