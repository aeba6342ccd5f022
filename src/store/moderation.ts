import type { JsonObject, MessageRecord } from "./types.js";
import { defaultModeration } from "./moderation-defaults.js";
import type { ListChange } from "./noted.js";
import { ReviewQueue } from "./review-queue.js";
import { firstWhere } from "../util/search.js";

/**
 * Moderation state of one app: flag reasons, rules (every update a new revision), keyword lists, the blocked
 * queue (messages held back by a rule, and edits held back the same way), flags on delivered messages, and the
 * ids of every message the rules looked at. A held message lives only here until a moderator approves it, so
 * the message indexes (lists, conversations, unread counts) never see it.
 */

export interface ReasonRecord {
  id: string;
  name: string;
  description?: string;
  default?: boolean;
  createdAt: number;
  updatedAt: number;
}

/** One condition of a rule, as the platform shows it. */
export interface ConditionRecord {
  id: number;
  entity: "message";
  operand: "text" | "image" | "video" | "custom";
  category: "word" | "pattern";
  operator: "contains" | "equals";
  isKeywordsReferencePresent: boolean;
  isMediaPresent: boolean;
  value: string[];
  message?: string[];
}

/** What one revision of a rule says. */
export interface RuleRevision {
  revision: number;
  name: string;
  description?: string;
  enabled: boolean;
  conditions: ConditionRecord[];
  action: string[];
  filters?: JsonObject[];
  createdAt: number;
}

export interface RuleRecord {
  id: string;
  default?: boolean;
  createdAt: number;
  /** Oldest first; the last one is the active revision. */
  revisions: RuleRevision[];
}

export type KeywordCategory = "word" | "pattern" | "sentence-similarity";
/** The longest search term a keyword list holds (the keywords route and the loader both hold to it). */
export const MAX_KEYWORD_TERM = 500;

export interface KeywordListRecord {
  id: string;
  name: string;
  description?: string;
  category: KeywordCategory;
  isCSV: boolean;
  searchTerms: string[];
  default?: boolean;
  revision: number;
  createdAt: number;
  updatedAt: number;
}

/** The rule, revision and condition that caught a message. */
export interface Verdict {
  ruleId: string;
  ruleName: string;
  revisionId: string;
  condition: ConditionRecord;
  action: string[];
}

export type BlockedStatus = "pending" | "approved" | "rejected";

/** A message (kind "send") or an edit of a delivered one (kind "edit", the message as edited) held by a rule. */
export interface BlockedEntry extends Verdict {
  kind: "send" | "edit";
  message: MessageRecord;
  status: BlockedStatus;
  reviewedBy?: string;
  reviewedAt?: number;
  createdAt: number;
  updatedAt: number;
}

export interface FlagRecord {
  uid: string;
  reasonId: string;
  remark?: string;
  flaggedAt: number;
}

export type FlagStatus = "pending" | "approved" | "disapproved";

export interface FlagEntry {
  messageId: number;
  flaggedBy: FlagRecord[];
  status: FlagStatus;
  reviewedBy?: string;
  reviewedAt?: number;
  /** A disapproved message leaves the message indexes; its record stays here. */
  withdrawn?: MessageRecord;
  createdAt: number;
  updatedAt: number;
}

/** What files and `/_emulator/state` hold (`AppData.moderation`; absent in older files: the defaults). */
export interface ModerationData {
  reasons: ReasonRecord[];
  rules: RuleRecord[];
  keywordLists: KeywordListRecord[];
  blocked: BlockedEntry[];
  flags: FlagEntry[];
  /** Ids of the messages the rules looked at, ascending. */
  moderated: number[];
}

export class Moderation {
  readonly reasons = new Map<string, ReasonRecord>();
  readonly rules = new Map<string, RuleRecord>();
  readonly keywordLists = new Map<string, KeywordListRecord>();
  /** By message id, in the order they were (last) blocked; by status. */
  readonly blocked = new ReviewQueue<BlockedEntry>(blockedId, (b) => b.status, (change) => this.queued?.blocked.push(change));
  /** By message id, in the order they were (again) flagged; pending or reviewed. */
  readonly flags = new ReviewQueue<FlagEntry>(flagId, (f) => (f.status === "pending" ? "pending" : "reviewed"), (change) => this.queued?.flags.push(change));
  /** Read only: `noteModerated` and `forget` change it. */
  moderated: number[] = [];
  /** Bumped on every change of rules or keyword lists: compiled matchers are cached per version. */
  version = 0;
  /**
   * Bumped on every change of the reasons, rules and keyword lists (and at a load): the change log takes the
   * moderation data whole when it moved, and reads nothing otherwise (see change-tracker.ts). What grows with
   * use is noted one change at a time instead: the moderated ids (with every message while a rule is on) and the
   * two queues (with every blocked or flagged message).
   */
  revision = 0;
  /** The moderated ids added (id) and removed (-id) since the change log last took them: set by the change tracker. */
  noted: number[] | undefined;
  /** The queues' changes since the change log last took them: set by the change tracker. */
  queued: { blocked: ListChange<number, BlockedEntry>[]; flags: ListChange<number, FlagEntry>[] } | undefined;
  /** Enabled rules: 0 keeps the send path free of moderation work. */
  enabledCount = 0;

  load(data: ModerationData | undefined, createdAt: number): void {
    const d = data ? structuredClone(data) : defaultModeration(createdAt);
    this.reasons.clear();
    this.rules.clear();
    this.keywordLists.clear();
    this.blocked.clear();
    this.flags.clear();
    for (const r of d.reasons) this.reasons.set(r.id, r);
    for (const r of d.rules) this.rules.set(r.id, r);
    for (const k of d.keywordLists) this.keywordLists.set(k.id, k);
    for (const b of d.blocked) this.blocked.put(b);
    for (const f of d.flags) this.flags.put(f);
    this.moderated = [...d.moderated];
    this.changed();
  }

  /** Live references: serialize or clone, never mutate. */
  toData(): ModerationData {
    return {
      reasons: [...this.reasons.values()],
      rules: [...this.rules.values()],
      keywordLists: [...this.keywordLists.values()],
      blocked: [...this.blocked.values()],
      flags: [...this.flags.values()],
      moderated: this.moderated,
    };
  }

  /** Rules or keyword lists changed. */
  changed(): void {
    this.version++;
    this.revision++;
    let n = 0;
    for (const r of this.rules.values()) if (current(r).enabled) n++;
    this.enabledCount = n;
  }

  /** A message the rules looked at (ids only grow, so a push keeps the order). */
  noteModerated(id: number): void {
    if (this.moderated.length > 0 && this.moderated[this.moderated.length - 1] >= id) return;
    this.moderated.push(id);
    this.noted?.push(id);
  }

  forget(id: number): void {
    const at = firstWhere(this.moderated, (n) => n >= id);
    if (this.moderated[at] === id) {
      this.moderated.splice(at, 1);
      this.noted?.push(-id);
    }
    this.blocked.delete(id);
    this.flags.delete(id);
  }

  /** A reason created, or changed in place. */
  saveReason(reason: ReasonRecord): void {
    this.reasons.set(reason.id, reason);
    this.revision++;
  }

  deleteReason(id: string): void {
    if (this.reasons.delete(id)) this.revision++;
  }

}

/** The message a queue entry is about. */
export const blockedId = (b: BlockedEntry): number => b.message.id;
export const flagId = (f: FlagEntry): number => f.messageId;

export function current(rule: RuleRecord): RuleRevision {
  return rule.revisions[rule.revisions.length - 1];
}

export function revisionId(appId: string, id: string, revision: number): string {
  return `${appId}_${id}_${revision}`;
}
