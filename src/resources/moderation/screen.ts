import type { AppState } from "../../store/app-state.js";
import type { BlockedEntry, Verdict } from "../../store/moderation.js";
import type { JsonObject, MessageRecord, UserRecord } from "../../store/types.js";
import type { Edit } from "../messages/changes.js";
import { messageView, SYSTEM_UID } from "../../views/messages.js";
import { holds, verdictFor } from "./engine.js";

/**
 * Moderation's seam in the send and edit paths. Each path makes one call before anything is published:
 * - no enabled rule: nothing happens (one integer comparison);
 * - a message that passes is stored with `data.moderation.status: "approved"` (`moderation_engine_approved`);
 * - a caught message is held: it gets its id but stays out of every message index (lists, conversations,
 *   unread counts), publishes `moderation_engine_blocked` and no `message_sent`, and waits in the blocked queue
 *   with `data.moderation.status: "disapproved"` until a moderator approves (delivers) or rejects it.
 * An edit is screened the same way: a caught edit leaves the message as it was and waits in the queue.
 * A rule whose only action is `flagMessage` lets the message (or edit) through, approved, and puts it in the flagged
 * queue (`flagForRule`).
 */

export const APPROVED = { status: "approved" } as const;

function disapproved(v: Verdict): JsonObject {
  return { status: "disapproved", rule: { id: v.ruleId, name: v.ruleName, revisionId: v.revisionId, action: v.action } };
}

/** The `moderation` entries of webhook payloads: the rule and the condition that caught the message. */
export function moderationInfo(v: Verdict): Record<string, unknown>[] {
  return [{ rule: { id: v.ruleId, name: v.ruleName, revisionId: v.revisionId, action: v.action }, condition: { ...v.condition, weight: 1 } }];
}

/**
 * A screened message as the SDK's send answers it: `pending` while "the moderation service analyzes it"; the
 * verdict follows as onMessageModerated (sdk/javascript/ai-moderation; see realtime/delivery.ts).
 */
export function asPending(m: MessageRecord): MessageRecord {
  return m.data.moderation === undefined ? m : { ...m, data: { ...m.data, moderation: { status: "pending" } } };
}

/** A message held back by moderation (blocked, not approved since). */
export function isHeld(m: MessageRecord): boolean {
  return (m.data.moderation as JsonObject | undefined)?.status === "disapproved";
}

export function block(app: AppState, held: MessageRecord, v: Verdict, kind: BlockedEntry["kind"], now: number): MessageRecord {
  held.data = { ...held.data, moderation: disapproved(v) };
  app.moderation.blocked.put({ ...v, kind, message: held, status: "pending", createdAt: now, updatedAt: now });
  app.emit("moderation_engine_blocked", () => ({ message: messageView(app, held), moderation: moderationInfo(v) }), held);
  return held;
}

/**
 * Puts a delivered message in the flagged queue for the rule that caught it: one flag by `app_system` whose reason
 * is the rule's id (no flag reason names a rule), with the rule's name and revision as its remark.
 */
export function flagForRule(app: AppState, m: MessageRecord, v: Verdict, now: number): void {
  let entry = app.moderation.flags.get(m.id);
  if (!entry || entry.status !== "pending") {
    entry = { messageId: m.id, flaggedBy: [], status: "pending", createdAt: now, updatedAt: now };
    app.moderation.flags.put(entry);
  }
  if (entry.flaggedBy.some((f) => f.uid === SYSTEM_UID && f.reasonId === v.ruleId)) return;
  const flag = { uid: SYSTEM_UID, reasonId: v.ruleId, remark: `Flagged by the rule ${v.ruleName} (${v.revisionId}).`, flaggedAt: now };
  app.moderation.flags.update(entry, (e) => {
    e.flaggedBy = [...e.flaggedBy, flag];
    e.updatedAt = now;
  });
}

/**
 * Stores a new message, or holds it when a rule catches it. `always` screens it even when no rule is enabled
 * (`POST /moderation/messages`). Returns the stored or held record.
 */
export function moderateSend(app: AppState, m: Omit<MessageRecord, "id">, always = false): MessageRecord {
  if (app.moderation.enabledCount === 0 && !always) return app.addMessage(m);
  const verdict = verdictFor(app, m);
  if (verdict && holds(verdict.action)) {
    const held = app.holdMessage(m);
    app.moderation.noteModerated(held.id);
    return block(app, held, verdict, "send", m.sentAt);
  }
  const stored = app.addMessage({ ...m, data: { ...m.data, moderation: APPROVED } });
  app.moderation.noteModerated(stored.id);
  if (verdict) flagForRule(app, stored, verdict, m.sentAt);
  app.emit("moderation_engine_approved", () => ({ message: messageView(app, stored) }), stored);
  return stored;
}

/**
 * Screens an edit before it is applied. Returns the message as edited when a rule holds the edit back (the
 * stored message is left as it was), or undefined when the edit may go ahead (marked approved when screened).
 */
export function moderateEdit(
  app: AppState,
  now: number,
  m: MessageRecord,
  edit: Edit,
  actor: UserRecord | undefined,
  always = false,
): MessageRecord | undefined {
  if (app.moderation.enabledCount === 0 && !always) return undefined;
  const verdict = verdictFor(app, { ...m, data: edit.data });
  if (!verdict || !holds(verdict.action)) {
    edit.data = { ...edit.data, moderation: APPROVED };
    if (verdict) flagForRule(app, m, verdict, now);
    return undefined;
  }
  const proposed: MessageRecord = { ...m, data: edit.data, editedAt: now, editedBy: actor?.uid ?? SYSTEM_UID, updatedAt: now };
  if (edit.tags) proposed.tags = edit.tags;
  return block(app, proposed, verdict, "edit", now);
}
