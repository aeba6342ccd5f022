import { Hono } from "hono";
import type { Env } from "../../http/context.js";
import { onBehalfOf } from "../../http/auth.js";
import { pageMatching } from "../../http/pagination.js";
import { page, success, prependCursor } from "../../http/reply.js";
import { Query } from "../../http/validate.js";
import { banUser, pathGroup, unbanUser } from "../groups/membership.js";
import { requireUser } from "../users/lookup.js";
import { userView } from "../../views/users.js";

export const bannedUsers = new Hono<Env>()
  .post("/groups/:guid/bannedusers/:uid", (c) => {
    const actor = onBehalfOf(c, "optional");
    const app = c.get("app");
    const group = pathGroup(app, c.req.param("guid"));
    const user = requireUser(app, c.req.param("uid"));
    banUser(app, c.get("emulator").clock.now(), group, user, actor, { membersOnly: true });
    return success(c, `The user with uid ${user.uid} has been banned from the Group with ${group.guid}.`);
  })

  .delete("/groups/:guid/bannedusers/:uid", (c) => {
    const actor = onBehalfOf(c, "optional");
    const app = c.get("app");
    const group = pathGroup(app, c.req.param("guid"));
    const user = requireUser(app, c.req.param("uid"));
    unbanUser(app, c.get("emulator").clock.now(), group, user, actor);
    return success(c, `The user with uid ${user.uid} has been unbanned from the Group with ${group.guid}.`);
  })

  .get("/groups/:guid/bannedusers", (c) => {
    const app = c.get("app");
    const group = pathGroup(app, c.req.param("guid"));
    const q = new Query(c);
    const perPage = q.int("perPage", { def: 100, min: 1, max: 1000 });
    const pageNo = q.int("page", { def: 1, min: 1 });
    q.done();
    const bans = app.groups.membership(group.guid).bans;
    const active = app.deactivatedCount > 0 ? (b: { uid: string }) => !!app.activeUser(b.uid) : undefined;
    const result = pageMatching(bans.values(), active, perPage, pageNo, active ? undefined : bans.size);
    // rest-api/banned-users: each ban has the user's former `scope` (a non-member's is participant) and `bannedAt`.
    const data = result.items.map((b) => ({ ...userView(app.users.get(b.uid)!, { list: true }), scope: b.scope ?? "participant", bannedAt: b.bannedAt }));
    const last = result.items.at(-1);
    return page(c, data, result.pagination, { cursor: prependCursor(c, last?.bannedAt) });
  });
