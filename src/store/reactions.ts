import type { GroupedNotes } from "./noted.js";
import type { ReactionRecord } from "./types.js";

/** Reactions per message, in the order they were made; ids come from a per-app sequence. */
export class Reactions {
  private readonly byMessage = new Map<number, ReactionRecord[]>();
  lastId = 0;
  /** What changed, from when the change log tracks it (reactions are never changed in place: added or removed). */
  noted: GroupedNotes<ReactionRecord> | undefined;

  load(reactions: ReactionRecord[], lastId: number): void {
    this.noted?.clear();
    if (this.noted) this.noted.reloaded = true;
    this.byMessage.clear();
    this.lastId = lastId;
    for (const r of reactions) {
      this.push({ ...r });
      this.lastId = Math.max(this.lastId, r.id);
    }
  }

  toData(): ReactionRecord[] {
    return [...this.byMessage.values()].flat();
  }

  of(messageId: number): readonly ReactionRecord[] {
    return this.byMessage.get(messageId) ?? [];
  }

  find(messageId: number, reaction: string, uid: string): ReactionRecord | undefined {
    return this.of(messageId).find((r) => r.reaction === reaction && r.uid === uid);
  }

  add(reaction: Omit<ReactionRecord, "id">): ReactionRecord {
    const r: ReactionRecord = { id: ++this.lastId, ...reaction };
    this.push(r);
    this.noted?.put.add(r);
    return r;
  }

  remove(r: ReactionRecord): void {
    const list = this.byMessage.get(r.messageId);
    if (!list) return;
    this.noted?.remove(r, r.messageId, r.id);
    list.splice(list.indexOf(r), 1);
    if (list.length === 0) this.byMessage.delete(r.messageId);
  }

  /** A permanently deleted message takes its reactions along. */
  dropMessage(messageId: number): void {
    if (this.noted) for (const r of this.of(messageId)) this.noted.remove(r, messageId, r.id);
    this.byMessage.delete(messageId);
  }

  /** `{reaction, count}` per distinct reaction in first-use order, `reactedByMe` when `uid` is among them. */
  summary(messageId: number, uid?: string): { reaction: string; count: number; reactedByMe?: true }[] {
    const reactions = this.of(messageId);
    if (reactions.length === 0) return [];
    const out = new Map<string, { reaction: string; count: number; reactedByMe?: true }>();
    for (const r of reactions) {
      let s = out.get(r.reaction);
      if (!s) out.set(r.reaction, (s = { reaction: r.reaction, count: 0 }));
      s.count++;
      if (uid !== undefined && r.uid === uid) s.reactedByMe = true;
    }
    return [...out.values()];
  }

  private push(r: ReactionRecord): void {
    let list = this.byMessage.get(r.messageId);
    if (!list) this.byMessage.set(r.messageId, (list = []));
    list.push(r);
  }
}
