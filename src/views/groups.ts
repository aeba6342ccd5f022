import type { AppState } from "../store/app-state.js";
import { groupConversationId } from "../store/conversation-ids.js";
import type { GroupRecord, UserRecord } from "../store/types.js";

export interface GroupViewOptions {
  /** The requesting (`onBehalfOf`) user: `scope`, `joinedAt` and `hasJoined` describe them. */
  viewer?: UserRecord;
  /** Include `tags` (single-group replies when set; lists only with `withTags`). */
  tags?: boolean;
}

/** A group as the API shows it: the password never, optional attributes only when set. */
export function groupView(app: AppState, g: GroupRecord, opts: GroupViewOptions = {}): Record<string, unknown> {
  const out: Record<string, unknown> = { guid: g.guid, name: g.name };
  if (g.description !== undefined) out.description = g.description;
  if (g.icon !== undefined) out.icon = g.icon;
  if (g.metadata !== undefined) out.metadata = g.metadata;
  out.type = g.type;
  const mine = opts.viewer ? app.groups.member(g.guid, opts.viewer.uid) : undefined;
  if (mine) out.scope = mine.scope;
  out.membersCount = app.groups.membersCount(g.guid);
  if (mine) out.joinedAt = mine.joinedAt;
  out.conversationId = groupConversationId(g.guid);
  out.hasJoined = mine !== undefined;
  out.createdAt = g.createdAt;
  if (g.owner !== undefined) out.owner = g.owner;
  if (g.updatedAt !== undefined) out.updatedAt = g.updatedAt;
  if (g.updatedBy !== undefined) out.updatedBy = g.updatedBy;
  if (opts.tags) out.tags = g.tags;
  return out;
}

/** The group entity embedded in messages and action messages (`for`, group receivers). */
export function groupEntity(app: AppState, g: GroupRecord): Record<string, unknown> {
  const out: Record<string, unknown> = { guid: g.guid };
  if (g.icon !== undefined) out.icon = g.icon;
  out.name = g.name;
  if (g.tags.length > 0) out.tags = g.tags;
  out.type = g.type;
  if (g.owner !== undefined) out.owner = g.owner;
  out.createdAt = g.createdAt;
  if (g.updatedAt !== undefined) out.updatedAt = g.updatedAt;
  if (g.updatedBy !== undefined) out.updatedBy = g.updatedBy;
  if (g.description !== undefined) out.description = g.description;
  out.membersCount = app.groups.membersCount(g.guid);
  out.conversationId = groupConversationId(g.guid);
  return out;
}

/**
 * Whether `groupEntity(app, g)` would show what `shown` (an entity it built for `g`) shows: every field it reads,
 * the member count included. Nested values (tags) are replaced, never mutated, so identity tells.
 */
export function groupShowsSame(app: AppState, g: GroupRecord, shown: Record<string, unknown>): boolean {
  return (
    shown.guid === g.guid &&
    shown.icon === g.icon &&
    shown.name === g.name &&
    shown.tags === (g.tags.length > 0 ? g.tags : undefined) &&
    shown.type === g.type &&
    shown.owner === g.owner &&
    shown.createdAt === g.createdAt &&
    shown.updatedAt === g.updatedAt &&
    shown.updatedBy === g.updatedBy &&
    shown.description === g.description &&
    shown.membersCount === app.groups.membersCount(g.guid)
  );
}
