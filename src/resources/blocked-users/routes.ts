import { Hono } from "hono";
import type { Ctx, Env } from "../../http/context.js";
import { apiError, keyedMap } from "../../http/errors.js";
import { bulkFailure, ok } from "../../http/reply.js";
import { Query, readBody, validate } from "../../http/validate.js";
import type { AppState } from "../../store/app-state.js";
import type { UserRecord } from "../../store/types.js";
import { pathUser, requireUser } from "../users/lookup.js";
import { relatedUsersPage } from "./flags.js";
import { brief } from "../../webhooks/payloads.js";

const BLOCKED_UIDS = { blockedUids: { required: true, type: "array", items: { required: true, type: "string" } } } as const;

/** Whose block list: the path's user, or on the client plane (`/blockedusers`) the token's owner. */
const owner = (c: Ctx): UserRecord => c.get("actor") ?? pathUser(c);

/** Runs `change` per uid of the body; unknown uids and refusals are per-item results, the request stays 200. */
async function perUid(c: Ctx, event: "user_blocked" | "user_unblocked", change: (app: AppState, user: UserRecord, other: UserRecord) => string) {
  const user = owner(c);
  const body = await readBody(c);
  validate(body, BLOCKED_UIDS);
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

/** Block, unblock and list, at `base`: `/users/:uid/blockedusers` (REST) or `/blockedusers` (client plane). */
export const blockedUsersAt = (base: string) =>
  new Hono<Env>()
    .post(base, (c) =>
      perUid(c, "user_blocked", (app, user, other) => {
        if (other.uid === user.uid) throw apiError("ERR_CANNOT_BLOCK_SELF", { uid: user.uid });
        if (!app.relations.blockOf(user.uid, other.uid))
          app.relations.block({ uid: user.uid, blockedUid: other.uid, blockedAt: c.get("emulator").clock.now() });
        return `The user with UID ${user.uid} has blocked user with UID ${other.uid} successfully.`;
      }),
    )

    .delete(base, (c) =>
      perUid(c, "user_unblocked", (app, user, other) => {
        app.relations.unblock(user.uid, other.uid);
        return `The user with UID ${user.uid} has unblocked user with UID ${other.uid} successfully.`;
      }),
    )

    .get(base, (c) => {
      const user = owner(c);
      const app = c.get("app");
      const q = new Query(c);
      // Without `direction`: the SDK's BlockedUsersRequestBuilder documents `both` as its default and sends nothing,
      // so an authToken caller gets both; the REST operation lists the users the owner blocked (docs/coverage.md).
      const direction = q.oneOf("direction", ["blockedByMe", "hasBlockedMe", "both"] as const) ?? (c.get("authToken") === undefined ? "blockedByMe" : "both");
      const perPage = q.int("perPage", { def: 100, min: 1, max: 1000 });
      const pageNo = q.int("page", { def: 1, min: 1 });
      q.done();
      const uids = new Set<string>();
      if (direction !== "hasBlockedMe") for (const uid of app.relations.blockedByUser(user.uid).keys()) uids.add(uid);
      if (direction !== "blockedByMe") for (const uid of app.relations.blockersOf(user.uid).keys()) uids.add(uid);
      const list = [...uids].map((uid) => app.activeUser(uid)).filter((u) => u !== undefined);
      return relatedUsersPage(c, user, list, perPage, pageNo);
    });

export const blockedUsers = blockedUsersAt("/users/:uid/blockedusers");
