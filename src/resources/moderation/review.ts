import { apiError } from "../../http/errors.js";
import type { AppState } from "../../store/app-state.js";
import type { BlockedEntry, FlagEntry } from "../../store/moderation.js";
import type { MessageRecord } from "../../store/types.js";
import { commitEdit } from "../messages/changes.js";
import { publishSent } from "../messages/send.js";
import { messageView } from "../../views/messages.js";
import { APPROVED, moderationInfo } from "./screen.js";

/** A moderator's decisions: on the blocked queue (approve delivers, reject keeps hidden) and on flagged messages. */

export function blockedEntry(app: AppState, rawId: string): BlockedEntry {
  const entry = /^\d{1,15}$/.test(rawId) ? app.moderation.blocked.get(Number(rawId)) : undefined;
  if (!entry) throw apiError("ERR_BLOCKED_MESSAGE_NOT_FOUND", { id: rawId });
  return entry;
}

/** Throws when a held message has nobody to go to any more (its group or receiving user is gone). */
export function checkDeliverable(app: AppState, m: MessageRecord): void {
  if (m.receiverType === "group" && !app.groups.get(m.receiver)) throw apiError("ERR_GUID_NOT_FOUND", { guid: m.receiver });
  if (m.receiverType === "user" && !app.activeUser(m.receiver)) throw apiError("ERR_UID_NOT_FOUND", { uid: m.receiver });
}

/** Delivers a held message now: stored at its place, in its conversation, counted unread, announced. */
export function deliver(app: AppState, m: MessageRecord): void {
  checkDeliverable(app, m);
  m.data = { ...m.data, moderation: APPROVED };
  app.deliverMessage(m);
  const parent = m.parentId === undefined ? undefined : app.messages.get(m.parentId);
  if (parent) {
    parent.replyCount = (parent.replyCount ?? 0) + 1;
    app.messages.touch(parent);
  }
  publishSent(app, m);
}

/** Applies a held edit to the message it was made to. */
function applyEdit(app: AppState, now: number, entry: BlockedEntry): void {
  const m = app.messages.get(entry.message.id);
  if (!m || m.deletedAt !== undefined)
    throw apiError("ERR_MESSAGE_ACTION_NOT_ALLOWED", { id: entry.message.id, action: "edited", reason: "it has been deleted" });
  const editor = entry.message.editedBy === undefined ? undefined : app.activeUser(entry.message.editedBy);
  const { moderation: _held, ...data } = entry.message.data;
  commitEdit(app, now, m, { data: { ...data, moderation: APPROVED }, tags: entry.message.tags }, editor);
  entry.message = m;
}

/** Approves (delivers) or rejects (keeps hidden) a blocked message, recording who and when. */
export function reviewBlocked(app: AppState, now: number, entry: BlockedEntry, status: "approved" | "rejected", reviewer: string): void {
  if (entry.status === "approved") throw apiError("ERR_BLOCKED_MESSAGE_ALREADY_REVIEWED", { id: entry.message.id, status: entry.status });
  if (status === "approved") {
    if (entry.kind === "send") deliver(app, entry.message);
    else applyEdit(app, now, entry);
  }
  const m = entry.message;
  // The entry keeps the message as it was reviewed: a delivered one lives on in the store, and changes there.
  app.moderation.blocked.update(entry, (e) => {
    reviewed(e, status, reviewer, now);
    e.message = { ...m };
  });
  if (status === "approved") {
    app.emit("moderation_manual_approved", () => ({ message: messageView(app, m), moderation: moderationInfo(entry), reviewedBy: reviewer }), m);
  }
}

/** The message a flag entry is about: delivered, or withdrawn by a disapproving review. */
export function flaggedMessage(app: AppState, f: FlagEntry): MessageRecord | undefined {
  return f.withdrawn ?? app.messages.get(f.messageId);
}

/**
 * Reviews a flagged message: approved keeps it delivered (the flags are cleared from the queue); disapproved
 * withdraws it from every list and conversation. Either way it moves to the reviewed list.
 */
export function reviewFlagged(app: AppState, now: number, f: FlagEntry, status: "approved" | "disapproved", reviewer: string): void {
  if (status === "disapproved") {
    const m = app.messages.get(f.messageId);
    if (m) {
      f.withdrawn = { ...m, data: { ...m.data, moderation: { status: "disapproved" } } };
      app.removeMessage(m);
    }
  }
  app.moderation.flags.update(f, (e) => reviewed(e, status, reviewer, now));
}

/** Records a review: the outcome, who and when. */
function reviewed<S extends string>(e: { status: S; reviewedBy?: string; reviewedAt?: number; updatedAt: number }, status: S, reviewer: string, now: number): void {
  e.status = status;
  e.reviewedBy = reviewer;
  e.reviewedAt = now;
  e.updatedAt = now;
}
