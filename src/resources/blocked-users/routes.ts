import type { Ctx } from "../../http/context.js";
import { apiError, keyedMap } from "../../http/errors.js";
import { bulkFailure, ok } from "../../http/reply.js";
import type { Body } from "../../http/validate.js";
import { operation, routes, type OperationPlane } from "../../http/operation.js";
import { q } from "../../http/query-spec.js";
import { PAGE_QUERY } from "../../http/pagination.js";
import type { AppState } from "../../store/app-state.js";
import type { UserRecord } from "../../store/types.js";
import { pathUser, requireUser } from "../users/lookup.js";
import { relatedUsersPage } from "./flags.js";
import { brief } from "../../webhooks/payloads.js";

const BLOCKED_UIDS = { blockedUids: { required: true, type: "array", items: { required: true, type: "string" } } } as const;

/** Whose block list: the path's user, or on the client plane (`/blockedusers`) the token's owner. */
const owner = (c: Ctx): UserRecord => c.get("actor") ?? pathUser(c);

/** Runs `change` per uid of the body; unknown uids and refusals are per-item results, the request stays 200. */
function perUid(c: Ctx, body: Body, event: "user_blocked" | "user_unblocked", change: (app: AppState, user: UserRecord, other: UserRecord) => string) {
  const user = owner(c);
  const app = c.get("app");
  const data: Record<string, unknown> = keyedMap();
  const done: UserRecord[] = [];
  for (const uid of body.blockedUids as string[]) {
    try {
      const other = requireUser(app, uid);
      data[uid] = { success: true, message: change(app, user, other) };
      done.push(other);
    } catch (e) {
      data[uid] = bulkFailure(e);
    }
  }
  if (done.length > 0)
    app.emit(event, () => ({ users: Object.fromEntries(done.map((u) => [u.uid, brief(u)])), by: brief(user) }));
  return ok(c, data);
}

/** Block, unblock and list, at `base`: `/users/:uid/blockedusers` (REST) or `/blockedusers` (client plane, SDK-only). */
export const blockedUsersAt = (base: string, plane: OperationPlane = "client") =>
  routes(
    operation({
      id: plane === "rest" ? "block-users" : undefined,
      method: "POST",
      path: base,
      plane,
      body: BLOCKED_UIDS,
      handler: (c, { body }) =>
        perUid(c, body, "user_blocked", (app, user, other) => {
          if (other.uid === user.uid) throw apiError("ERR_CANNOT_BLOCK_SELF", { uid: user.uid });
          if (!app.relations.blockOf(user.uid, other.uid))
            app.relations.block({ uid: user.uid, blockedUid: other.uid, blockedAt: c.get("emulator").clock.now() });
          return `The user with UID ${user.uid} has blocked user with UID ${other.uid} successfully.`;
        }),
    }),

    operation({
      id: plane === "rest" ? "unblock-users" : undefined,
      method: "DELETE",
      path: base,
      plane,
      body: BLOCKED_UIDS,
      handler: (c, { body }) =>
        perUid(c, body, "user_unblocked", (app, user, other) => {
          app.relations.unblock(user.uid, other.uid);
          return `The user with UID ${user.uid} has unblocked user with UID ${other.uid} successfully.`;
        }),
    }),

    operation({
      id: plane === "rest" ? "list-blocked-users" : undefined,
      method: "GET",
      path: base,
      plane,
      query: { direction: q.oneOf(["blockedByMe", "hasBlockedMe", "both"]), ...PAGE_QUERY },
      handler: (c, { query }) => {
        const user = owner(c);
        const app = c.get("app");
        // Without `direction`: the SDK's BlockedUsersRequestBuilder documents `both` as its default and sends nothing,
        // so an authToken caller gets both; the REST operation lists the users the owner blocked (docs/coverage.md).
        const direction = query.direction ?? (c.get("authToken") === undefined ? "blockedByMe" : "both");
        const uids = new Set<string>();
        if (direction !== "hasBlockedMe") for (const uid of app.relations.blockedByUser(user.uid).keys()) uids.add(uid);
        if (direction !== "blockedByMe") for (const uid of app.relations.blockersOf(user.uid).keys()) uids.add(uid);
        const list = [...uids].map((uid) => app.activeUser(uid)).filter((u) => u !== undefined);
        return relatedUsersPage(c, user, list, query.perPage, query.page);
      },
    }),
  );

export const blockedUsers = blockedUsersAt("/users/:uid/blockedusers", "rest");
