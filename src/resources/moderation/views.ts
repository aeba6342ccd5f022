import { createHash } from "node:crypto";
import type { AppState } from "../../store/app-state.js";
import {
  current,
  revisionId,
  type BlockedEntry,
  type FlagEntry,
  type KeywordListRecord,
  type ReasonRecord,
  type RuleRecord,
  type RuleRevision,
} from "../../store/moderation.js";
import type { MessageRecord } from "../../store/types.js";
import { messageView } from "../../views/messages.js";
import { actorEntity } from "../../views/messages.js";
import { flaggedMessage } from "./review.js";

/** Wire shapes of moderation objects (catalogue §17 and its additions). */

/**
 * Reasons: times as strings (the list's example, and the get and update schemas), except on create, whose example
 * shows integer seconds; lists also show `default`.
 */
export function reasonView(r: ReasonRecord, as: "created" | "one" | "listed" = "one"): Record<string, unknown> {
  const out: Record<string, unknown> = { id: r.id, name: r.name };
  if (r.description !== undefined) out.description = r.description;
  if (as === "listed") out.default = r.default === true;
  const time = as === "created" ? (t: number) => t : String;
  out.createdAt = time(r.createdAt);
  out.updatedAt = time(r.updatedAt);
  return out;
}

/** A rule as one revision shows it (the current one by default, the only `active` one). */
export function ruleView(app: AppState, rule: RuleRecord, rev: RuleRevision = current(rule)): Record<string, unknown> {
  const out: Record<string, unknown> = { id: rule.id, name: rev.name };
  if (rev.description !== undefined) out.description = rev.description;
  out.enabled = rev.enabled;
  out.conditions = rev.conditions;
  if (rev.filters) out.filters = rev.filters;
  out.action = rev.action;
  out.active = rev === current(rule);
  out.createdAt = rule.createdAt;
  out.updatedAt = rev.createdAt;
  out.revisionId = revisionId(app.meta.appId, rule.id, rev.revision);
  if (rule.default) out.default = true;
  return out;
}

/** A keyword list; list items also carry the platform's storage fields (`_id`, `appId`, `__v`). */
export function keywordView(app: AppState, k: KeywordListRecord, inList = false): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (inList) out._id = createHash("sha1").update(`${app.meta.appId}/${k.id}`).digest("hex").slice(0, 24);
  out.id = k.id;
  out.name = k.name;
  if (k.description !== undefined) out.description = k.description;
  out.category = k.category;
  out.isCSV = k.isCSV;
  out.searchTerms = k.searchTerms;
  out.createdAt = k.createdAt;
  out.updatedAt = k.updatedAt;
  out.revisionId = revisionId(app.meta.appId, k.id, k.revision);
  out.active = true;
  if (k.default) out.default = true;
  if (inList) {
    out.appId = k.default ? "default" : app.meta.appId;
    out.__v = 0;
  }
  return out;
}

/** The queue shows a held message as waiting (`pending`) until a moderator decides. */
function queuedMessage(app: AppState, e: BlockedEntry): Record<string, unknown> {
  const view = messageView(app, e.message);
  const status = e.status === "pending" ? "pending" : e.status === "approved" ? "approved" : "disapproved";
  view.data = { ...(view.data as object), moderation: { ...((e.message.data.moderation as object | undefined) ?? {}), status } };
  return view;
}

export function blockedView(app: AppState, e: BlockedEntry): Record<string, unknown> {
  const out: Record<string, unknown> = {
    ruleId: e.ruleId,
    ruleName: e.ruleName,
    revisionId: e.revisionId,
    condition: { ...e.condition, weight: 1 },
    message: queuedMessage(app, e),
    action: e.action,
    kind: e.kind,
    status: e.status,
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
  };
  if (e.reviewedBy !== undefined) out.reviewedBy = e.reviewedBy;
  if (e.reviewedAt !== undefined) out.reviewedAt = e.reviewedAt;
  return out;
}

/** A flagged (or reviewed) message: the message, who flagged it why, and how often. */
export function flaggedView(app: AppState, f: FlagEntry, m: MessageRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {
    ...messageView(app, m),
    appId: app.meta.appId,
    flaggedBy: f.flaggedBy.map((flag) => {
      const who = actorEntity(app, flag.uid);
      const reason = app.moderation.reasons.get(flag.reasonId);
      const item: Record<string, unknown> = {
        uid: flag.uid,
        name: who.name,
        role: who.role,
        reasonId: flag.reasonId,
        reasonName: reason?.name ?? flag.reasonId,
        flaggedAt: flag.flaggedAt,
      };
      if (who.avatar !== undefined) item.avatar = who.avatar;
      if (reason?.description !== undefined) item.description = reason.description;
      if (flag.remark !== undefined) item.remark = flag.remark;
      return item;
    }),
    flaggedCount: f.flaggedBy.length,
    status: f.status,
  };
  if (f.reviewedBy !== undefined) out.reviewedBy = f.reviewedBy;
  if (f.reviewedAt !== undefined) out.reviewedAt = f.reviewedAt;
  return out;
}

/** Flag entries in a given state, newest flag first, with their messages (entries whose message is gone skipped). */
export function flagList(app: AppState, reviewed: boolean, limit: number): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const f of app.moderation.flags.newest(reviewed ? "reviewed" : "pending")) {
    if (out.length === limit) break;
    const m = flaggedMessage(app, f);
    if (m) out.push(flaggedView(app, f, m));
  }
  return out;
}
