import { SortedIndex } from "./sorted-index.js";
import type { CallRecord, MessageRecord } from "./types.js";

/** Metrics count in 5-minute slots (Unix seconds). */
export const SLOT_SECONDS = 300;

export function slotOf(t: number): number {
  return Math.floor(t / SLOT_SECONDS) * SLOT_SECONDS;
}

/** The system actor acts for the app, not for a user: it is never an active user. */
const SYSTEM_UID = "app_system";

/** Chat messages as the metrics count them: what senders wrote, not actions and call events. */
function isSent(m: MessageRecord): boolean {
  return m.category === "message" || m.category === "custom";
}

/**
 * What the metrics read, kept up to date as messages and calls come and go, so that no metric walks the messages:
 * per user, the times they were active (sent a message, or joined a call), in order; and the number of chat
 * messages sent in each 5-minute slot.
 */
export class Activity {
  private readonly times = new Map<string, SortedIndex<number>>();
  private readonly sent = new Map<number, number>();

  load(messages: readonly MessageRecord[], calls: readonly CallRecord[]): void {
    this.times.clear();
    this.sent.clear();
    // Bulk: gather each user's times, then sort once per user.
    const gathered = new Map<string, number[]>();
    const gather = (uid: string, t: number) => {
      let times = gathered.get(uid);
      if (!times) gathered.set(uid, (times = []));
      times.push(t);
    };
    for (const m of messages) {
      if (m.sender !== SYSTEM_UID) gather(m.sender, m.sentAt);
      if (isSent(m)) this.countSent(m, 1);
    }
    for (const call of calls) for (const p of call.participants) if (p.joinedAt !== undefined) gather(p.uid, p.joinedAt);
    for (const [uid, times] of gathered) this.timesOf(uid).reset(times);
  }

  noteMessage(m: MessageRecord): void {
    if (m.sender !== SYSTEM_UID) this.timesOf(m.sender).insert(m.sentAt);
    if (isSent(m)) this.countSent(m, 1);
  }

  /** A permanently deleted message no longer counts. */
  forgetMessage(m: MessageRecord): void {
    const times = this.times.get(m.sender);
    if (times?.remove(m.sentAt) && times.size === 0) this.times.delete(m.sender);
    if (isSent(m)) this.countSent(m, -1);
  }

  noteCall(call: CallRecord): void {
    for (const p of call.participants) if (p.joinedAt !== undefined) this.noteJoin(p.uid, p.joinedAt);
  }

  /** A user joined a call at `at`: they were active then. */
  noteJoin(uid: string, at: number): void {
    this.timesOf(uid).insert(at);
  }

  /** How many users were active at some time in [from, to]: one binary search per user who was ever active. */
  activeUsers(from: number, to: number): number {
    let n = 0;
    for (const times of this.times.values()) {
      const at = times.lowerBound(from);
      if (at < times.size && times.at(at) <= to) n++;
    }
    return n;
  }

  /** Chat messages sent in [from, to): one pass over the non-empty slots. */
  sentBetween(from: number, to: number): number {
    let n = 0;
    for (const [slot, count] of this.sent) if (slot >= from && slot < to) n += count;
    return n;
  }

  /** Chat messages sent in the 5-minute slot that starts at `slot`. */
  sentIn(slot: number): number {
    return this.sent.get(slot) ?? 0;
  }

  private timesOf(uid: string): SortedIndex<number> {
    let times = this.times.get(uid);
    if (!times) this.times.set(uid, (times = new SortedIndex<number>((a, b) => a - b)));
    return times;
  }

  private countSent(m: MessageRecord, change: 1 | -1): void {
    const slot = slotOf(m.sentAt);
    const n = (this.sent.get(slot) ?? 0) + change;
    if (n > 0) this.sent.set(slot, n);
    else this.sent.delete(slot);
  }
}
