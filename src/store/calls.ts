import { SortedIndex } from "./sorted-index.js";
import { Noting } from "./noted.js";
import type { CallParticipantRecord, CallRecord } from "./types.js";

/**
 * The domain of generated device ids, room names and media URLs (`rtc.`, `transcripts.`, `recordings.`): reserved by
 * RFC 2606, so nothing ever resolves them by accident.
 */
export const MEDIA_DOMAIN = "chat-emulator.invalid";

/** Initiation order: `initiatedAt`, then session id. */
export function byInitiation(a: CallRecord, b: CallRecord): number {
  return a.initiatedAt - b.initiatedAt || (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0);
}

/** Whether `uid` took part in the call: its initiator, its (user) receiver, or one of its participants. */
export function takesPart(call: CallRecord, uid: string): boolean {
  return (
    call.initiator === uid || (call.receiverType === "user" && call.receiver === uid) || call.participants.some((p) => p.uid === uid)
  );
}

function parties(call: CallRecord): Set<string> {
  const uids = new Set([call.initiator, ...call.participants.map((p) => p.uid)]);
  if (call.receiverType === "user") uids.add(call.receiver);
  return uids;
}

/** Seconds the call has lasted: from its start to its end (or to `now` while ongoing); 0 if it never started. */
export function callSeconds(call: CallRecord, now: number): number {
  return call.startedAt === undefined ? 0 : Math.max(0, (call.endedAt ?? now) - call.startedAt);
}

/** Seconds one device spent in the call (to `now` while still in it); 0 for who never joined. */
export function participantSeconds(p: CallParticipantRecord, now: number): number {
  return p.joinedAt === undefined ? 0 : Math.max(0, (p.leftAt ?? now) - p.joinedAt);
}

/**
 * The calls of one app, with the indexes the calls API and the metrics read: by session id, in initiation order,
 * and per user (the calls they took part in, in initiation order). Calls are never deleted, only added.
 */
export class Calls {
  private readonly byId = new Map<string, CallRecord>();
  private readonly ordered = new SortedIndex<CallRecord>(byInitiation);
  private readonly byUser = new Map<string, SortedIndex<CallRecord>>();
  /** The calls in progress (`ongoing`), which the busy checks read: kept by `add`, `touch` and `load`. */
  private readonly live = new Set<CallRecord>();
  /** The calls stored or changed since the change log last looked (see noted.ts): `touch` after a change in place. */
  readonly notes = new Noting<CallRecord>();

  load(calls: CallRecord[]): void {
    this.byId.clear();
    this.byUser.clear();
    this.live.clear();
    const records = calls.map((c) => structuredClone(c));
    const perUser = new Map<string, CallRecord[]>();
    for (const call of records) {
      this.byId.set(call.sessionId, call);
      this.noteLive(call);
      for (const uid of parties(call)) {
        let mine = perUser.get(uid);
        if (!mine) perUser.set(uid, (mine = []));
        mine.push(call);
      }
    }
    this.ordered.reset(records);
    for (const [uid, mine] of perUser) {
      const index = new SortedIndex(byInitiation);
      index.reset(mine);
      this.byUser.set(uid, index);
    }
    this.notes.reload();
  }

  /** Live references in file form: serialize or clone, never mutate. */
  toData(): CallRecord[] {
    return [...this.ordered.values()];
  }

  get size(): number {
    return this.byId.size;
  }

  get(sessionId: string): CallRecord | undefined {
    return this.byId.get(sessionId);
  }

  add(call: CallRecord): void {
    this.byId.set(call.sessionId, call);
    this.ordered.insert(call);
    for (const uid of parties(call)) this.index(uid, call);
    this.noteLive(call);
    this.notes.put(call);
  }

  /** A call (or one of its participants) was changed in place. */
  touch(call: CallRecord): void {
    this.noteLive(call);
    this.notes.put(call);
  }

  private noteLive(call: CallRecord): void {
    if (call.status === "ongoing") this.live.add(call);
    else this.live.delete(call);
  }

  /** The calls in progress: few at a time, whatever the history holds. */
  ongoing(): Iterable<CallRecord> {
    return this.live;
  }

  /** `uid` takes part in a call already stored (a group member who answered): the call joins their index. */
  addParticipant(call: CallRecord, participant: CallParticipantRecord): void {
    const known = takesPart(call, participant.uid);
    call.participants.push(participant);
    if (!known) this.index(participant.uid, call);
    this.notes.put(call);
  }

  private index(uid: string, call: CallRecord): void {
    let mine = this.byUser.get(uid);
    if (!mine) this.byUser.set(uid, (mine = new SortedIndex(byInitiation)));
    mine.insert(call);
  }

  /**
   * The calls `uid` took part in (every call without `uid`) that were initiated at or before `until`, in
   * initiation order: a prefix of one index, found by binary search.
   */
  list(uid?: string, until = Infinity): readonly CallRecord[] {
    const index = uid === undefined ? this.ordered : this.byUser.get(uid);
    if (!index) return [];
    return until === Infinity ? index.values() : index.values().slice(0, index.search((c) => c.initiatedAt > until));
  }

  /** The calls initiated in [from, to], in initiation order. */
  initiatedBetween(from: number, to: number): readonly CallRecord[] {
    const all = this.ordered.values();
    return all.slice(this.ordered.search((c) => c.initiatedAt >= from), this.ordered.search((c) => c.initiatedAt > to));
  }
}
