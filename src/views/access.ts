import { apiError } from "../http/errors.js";
import type { AppState } from "../store/app-state.js";
import { groupConversationId, parseConversationId } from "../store/conversation-ids.js";
import type { MessageRecord, UserRecord } from "../store/types.js";

export { parseConversationId };

/** The part of a conversation a user may see: ids in (after, until]. */
export interface Visible {
  conversationId: string;
  after: number;
  until: number;
}

/**
 * What `viewer` may see of a conversation, or why not: a party of a one-on-one conversation sees it from their
 * last reset on; a group member sees the group's; a former member sees up to their departure; a banned user or a
 * user who never joined sees nothing (ERR_BANNED_GROUPMEMBER / ERR_GROUP_NOT_JOINED).
 */
export function visibleTo(app: AppState, viewer: UserRecord, conversationId: string): Visible {
  const state = app.conversations.state(viewer.uid, conversationId);
  const after = state?.clearedId ?? 0;
  const parsed = parseConversationId(conversationId);
  if (parsed && "guid" in parsed) {
    const params = { uid: viewer.uid, guid: parsed.guid };
    if (app.groups.member(parsed.guid, viewer.uid)) return { conversationId, after, until: Infinity };
    if (app.groups.ban(parsed.guid, viewer.uid)) throw apiError("ERR_BANNED_GROUPMEMBER", params);
    if (state?.untilId !== undefined) return { conversationId, after, until: state.untilId };
    throw apiError("ERR_GROUP_NOT_JOINED", params);
  }
  if (parsed && parsed.uids.includes(viewer.uid)) return { conversationId, after, until: Infinity };
  throw apiError("ERR_CONVERSATION_NOT_ACCESSIBLE", { conversationId, uid: viewer.uid });
}

/** Like `visibleTo`, as a yes/no for one message. */
export function canSee(app: AppState, viewer: UserRecord, m: MessageRecord): boolean {
  try {
    const v = visibleTo(app, viewer, m.conversationId);
    return m.id > v.after && m.id <= v.until;
  } catch {
    return false;
  }
}

/** A message by path id (a numeric string); with a viewer, one they may see (ERR_MESSAGE_NO_ACCESS otherwise). */
export function pathMessage(app: AppState, rawId: string, viewer: UserRecord | undefined): MessageRecord {
  const id = /^\d{1,15}$/.test(rawId) ? Number(rawId) : NaN;
  const m = Number.isNaN(id) ? undefined : app.messages.get(id);
  if (!m) throw apiError("ERR_MESSAGE_ID_NOT_FOUND", { id: rawId });
  if (viewer && !canSee(app, viewer, m)) throw apiError("ERR_MESSAGE_NO_ACCESS", { uid: viewer.uid, id: rawId });
  return m;
}

/** A group departure: the former member keeps seeing what was said up to now (the action included). */
export function noteDeparture(app: AppState, uid: string, guid: string): void {
  app.conversations.ensure(uid, groupConversationId(guid)).untilId = app.messages.lastId;
  app.conversationActivity.touchFor(uid, groupConversationId(guid));
}

/** A (re)joined member sees the whole group again. */
export function noteArrival(app: AppState, uid: string, guid: string): void {
  const state = app.conversations.state(uid, groupConversationId(guid));
  if (state) {
    delete state.untilId;
    app.conversations.touch(state);
  }
  app.conversationActivity.touchFor(uid, groupConversationId(guid));
}
