import type { BlockRecord, FriendRecord } from "./types.js";

/** A relation from one user to others: uid -> (other uid -> record). */
class Edges<R> {
  readonly from = new Map<string, Map<string, R>>();

  get(uid: string, other: string): R | undefined {
    return this.from.get(uid)?.get(other);
  }
  of(uid: string): ReadonlyMap<string, R> {
    return this.from.get(uid) ?? new Map();
  }
  set(uid: string, other: string, r: R): void {
    let mine = this.from.get(uid);
    if (!mine) this.from.set(uid, (mine = new Map()));
    mine.set(other, r);
  }
  delete(uid: string, other: string): void {
    const mine = this.from.get(uid);
    mine?.delete(other);
    if (mine?.size === 0) this.from.delete(uid);
  }
}

/**
 * Friendships (two-way: one record, indexed from both sides) and blocks (one-way, indexed from the blocker and
 * from the blocked user), so every question a request asks is a map lookup.
 */
export class Relations {
  private friendships = new Edges<FriendRecord>();
  private blocking = new Edges<BlockRecord>();
  private blockedBy = new Edges<BlockRecord>();

  load(friends: FriendRecord[], blocks: BlockRecord[]): void {
    this.friendships = new Edges();
    this.blocking = new Edges();
    this.blockedBy = new Edges();
    for (const f of friends) this.befriend({ ...f });
    for (const b of blocks) this.block({ ...b });
  }

  toData(): { friends: FriendRecord[]; blocks: BlockRecord[] } {
    const friends = new Set<FriendRecord>();
    for (const mine of this.friendships.from.values()) for (const f of mine.values()) friends.add(f);
    const blocks: BlockRecord[] = [];
    for (const mine of this.blocking.from.values()) for (const b of mine.values()) blocks.push(b);
    return { friends: [...friends], blocks };
  }

  friendship(a: string, b: string): FriendRecord | undefined {
    return this.friendships.get(a, b);
  }
  friendsOf(uid: string): ReadonlyMap<string, FriendRecord> {
    return this.friendships.of(uid);
  }
  befriend(f: FriendRecord): void {
    this.friendships.set(f.uid, f.friendUid, f);
    this.friendships.set(f.friendUid, f.uid, f);
  }
  unfriend(a: string, b: string): void {
    this.friendships.delete(a, b);
    this.friendships.delete(b, a);
  }

  /** The block of `blocked` by `uid`, if any. */
  blockOf(uid: string, blocked: string): BlockRecord | undefined {
    return this.blocking.get(uid, blocked);
  }
  blockedByUser(uid: string): ReadonlyMap<string, BlockRecord> {
    return this.blocking.of(uid);
  }
  blockersOf(uid: string): ReadonlyMap<string, BlockRecord> {
    return this.blockedBy.of(uid);
  }
  block(b: BlockRecord): void {
    this.blocking.set(b.uid, b.blockedUid, b);
    this.blockedBy.set(b.blockedUid, b.uid, b);
  }
  unblock(uid: string, blocked: string): void {
    this.blocking.delete(uid, blocked);
    this.blockedBy.delete(blocked, uid);
  }

  forgetUser(uid: string): void {
    for (const other of [...this.friendsOf(uid).keys()]) this.unfriend(uid, other);
    for (const other of [...this.blockedByUser(uid).keys()]) this.unblock(uid, other);
    for (const other of [...this.blockersOf(uid).keys()]) this.unblock(other, uid);
  }
}
