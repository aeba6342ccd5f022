import type { AppState } from "../../store/app-state.js";
import type { UserRecord } from "../../store/types.js";

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
