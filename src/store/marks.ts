import { addTo, removeFrom } from "./multimap.js";
import type { InteractionRecord, MarkRecord } from "./types.js";

/**
 * Private per-user marks on messages, each with when it was made: the saves, or the thread subscriptions. Indexed
 * by user (their marks and count) and by message (who marked it: a message deleted for good drops its marks).
 */
export class UserMarks {
  private readonly byUser = new Map<string, Map<number, number>>();
  private readonly byMessage = new Map<number, Set<string>>();
  /** Counts the changes (the change log takes the marks when it moved; nothing else changes them). */
  version = 0;

  load(records: readonly MarkRecord[]): void {
    this.version++;
    this.byUser.clear();
    this.byMessage.clear();
    for (const r of records) this.add(r.uid, r.messageId, r.at);
  }

  toData(): MarkRecord[] {
    const out: MarkRecord[] = [];
    for (const [uid, marks] of this.byUser) for (const [messageId, at] of marks) out.push({ uid, messageId, at });
    return out;
  }

  at(uid: string, messageId: number): number | undefined {
    return this.byUser.get(uid)?.get(messageId);
  }

  count(uid: string): number {
    return this.byUser.get(uid)?.size ?? 0;
  }

  /** The users who marked a message. */
  markedBy(messageId: number): ReadonlySet<string> {
    return this.byMessage.get(messageId) ?? new Set();
  }

  /** Marks once: a repeated mark keeps its first time, which is returned. */
  add(uid: string, messageId: number, at: number): number {
    let mine = this.byUser.get(uid);
    if (!mine) this.byUser.set(uid, (mine = new Map()));
    const known = mine.get(messageId);
    if (known !== undefined) return known;
    this.version++;
    mine.set(messageId, at);
    addTo(this.byMessage, messageId, uid);
    return at;
  }

  remove(uid: string, messageId: number): void {
    const mine = this.byUser.get(uid);
    if (!mine?.delete(messageId)) return;
    this.version++;
    if (mine.size === 0) this.byUser.delete(uid);
    removeFrom(this.byMessage, messageId, uid);
  }

  forgetMessage(messageId: number): void {
    for (const uid of [...this.markedBy(messageId)]) this.remove(uid, messageId);
  }

  forgetUser(uid: string): void {
    for (const messageId of [...(this.byUser.get(uid)?.keys() ?? [])]) this.remove(uid, messageId);
  }
}

/** The elements of interactive messages each user interacted with, per message in the order first recorded. */
export class Interactions {
  private readonly byMessage = new Map<number, Map<string, { elementId: string; interactedAt: number }[]>>();
  /** Counts the changes (see UserMarks). */
  version = 0;

  load(records: readonly InteractionRecord[]): void {
    this.version++;
    this.byMessage.clear();
    for (const r of records) this.add(r.uid, r.messageId, r.elementId, r.interactedAt);
  }

  toData(): InteractionRecord[] {
    const out: InteractionRecord[] = [];
    for (const [messageId, users] of this.byMessage)
      for (const [uid, list] of users) for (const i of list) out.push({ uid, messageId, ...i });
    return out;
  }

  of(uid: string, messageId: number): readonly { elementId: string; interactedAt: number }[] | undefined {
    return this.byMessage.get(messageId)?.get(uid);
  }

  /** Records an interaction once: a repeated element keeps its first `interactedAt`. */
  add(uid: string, messageId: number, elementId: string, at: number): void {
    let users = this.byMessage.get(messageId);
    if (!users) this.byMessage.set(messageId, (users = new Map()));
    let list = users.get(uid);
    if (!list) users.set(uid, (list = []));
    if (list.some((i) => i.elementId === elementId)) return;
    list.push({ elementId, interactedAt: at });
    this.version++;
  }

  forgetMessage(messageId: number): void {
    if (this.byMessage.delete(messageId)) this.version++;
  }
}
