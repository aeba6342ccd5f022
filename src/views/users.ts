import { userConversationId } from "../store/conversation-ids.js";
import type { UserRecord } from "../store/types.js";

export interface UserViewOptions {
  /** The requesting (`onBehalfOf`) user: adds the caller-relative fields. */
  viewer?: UserRecord;
  /** Include `tags` (create/update replies always do; lists only with `withTags`). */
  tags?: boolean;
  /** List results always carry `updatedAt`. */
  list?: boolean;
}

/** A user as the API shows it: optional attributes are left out when unset, never null. */
export function userView(u: UserRecord, opts: UserViewOptions = {}): Record<string, unknown> {
  const out: Record<string, unknown> = { uid: u.uid, name: u.name };
  if (u.link !== undefined) out.link = u.link;
  if (u.avatar !== undefined) out.avatar = u.avatar;
  if (u.metadata !== undefined) out.metadata = u.metadata;
  if (u.statusMessage !== undefined) out.statusMessage = u.statusMessage;
  out.status = u.status;
  out.role = u.role;
  out.createdAt = u.createdAt;
  if (u.updatedAt !== undefined) out.updatedAt = u.updatedAt;
  else if (opts.list) out.updatedAt = u.createdAt;
  if (u.lastActiveAt !== undefined) out.lastActiveAt = u.lastActiveAt;
  if (u.deactivatedAt !== undefined) out.deactivatedAt = u.deactivatedAt;
  if (opts.tags) out.tags = u.tags;
  if (opts.viewer && opts.viewer.uid !== u.uid) out.conversationId = userConversationId(opts.viewer.uid, u.uid);
  return out;
}

/**
 * The compact user entity embedded in messages and action messages: like the data-import reply's example, it shows
 * `metadata` when the user has some, and `lastActiveAt` when known (the reaction and moderation examples).
 */
export function userEntity(u: UserRecord): Record<string, unknown> {
  const out: Record<string, unknown> = { uid: u.uid, name: u.name };
  if (u.avatar !== undefined) out.avatar = u.avatar;
  if (u.metadata !== undefined) out.metadata = u.metadata;
  out.status = u.status;
  out.role = u.role;
  out.createdAt = u.createdAt;
  if (u.updatedAt !== undefined) out.updatedAt = u.updatedAt;
  if (u.lastActiveAt !== undefined) out.lastActiveAt = u.lastActiveAt;
  return out;
}

/**
 * Whether `userEntity(u)` would show what `shown` (an entity it built for `u`) shows: every field it reads. Records
 * change in place but their nested values (metadata) are replaced, never mutated, so identity tells.
 */
export function showsSame(u: UserRecord, shown: Record<string, unknown>): boolean {
  return (
    shown.uid === u.uid &&
    shown.name === u.name &&
    shown.avatar === u.avatar &&
    shown.metadata === u.metadata &&
    shown.status === u.status &&
    shown.role === u.role &&
    shown.createdAt === u.createdAt &&
    shown.updatedAt === u.updatedAt &&
    shown.lastActiveAt === u.lastActiveAt
  );
}
