import type { Ctx } from "../../http/context.js";
import { pageOf } from "../../http/pagination.js";
import { page, prependCursor } from "../../http/reply.js";
import type { AppState } from "../../store/app-state.js";
import type { UserRecord } from "../../store/types.js";
import { userView } from "../../views/users.js";

/**
 * The blocked flags of `other` as `viewer` sees them: `blockedByMe` / `blockedByMeAt` when the viewer blocked
 * them, `hasBlockedMe` when they blocked the viewer, `blockedAt` the latest block between the two.
 */
export function relationFlags(app: AppState, viewer: UserRecord, other: UserRecord): Record<string, unknown> {
  const mine = app.relations.blockOf(viewer.uid, other.uid);
  const theirs = app.relations.blockOf(other.uid, viewer.uid);
  if (!mine && !theirs) return {};
  const out: Record<string, unknown> = {};
  if (mine) out.blockedByMe = true;
  if (theirs) out.hasBlockedMe = true;
  if (mine) out.blockedByMeAt = mine.blockedAt;
  out.blockedAt = Math.max(mine?.blockedAt ?? 0, theirs?.blockedAt ?? 0);
  return out;
}

/** A page of users related to `viewer` (friends, blocked users): by name, with the blocked flags, cursor in `meta`. */
export function relatedUsersPage(c: Ctx, viewer: UserRecord, users: UserRecord[], perPage: number, pageNo: number) {
  const app = c.get("app");
  const { data, pagination } = pageOf(users.sort(app.usersByName.compare), perPage, pageNo);
  const last = data.at(-1);
  const cursor = prependCursor(c, last && (last.updatedAt ?? last.createdAt));
  const views = data.map((u) => ({ ...userView(u, { viewer, list: true }), ...relationFlags(app, viewer, u) }));
  return page(c, views, pagination, { meta: { pagination, cursor } });
}
