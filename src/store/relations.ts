import { Noting } from "./noted.js";
import type { BlockRecord, FriendRecord } from "./types.js";

/** A friendship's key, the same from both sides. */
export const friendKey = (f: FriendRecord) => (f.uid < f.friendUid ? `${f.uid}\u0000${f.friendUid}` : `${f.friendUid}\u0000${f.uid}`);
export const blockKey = (b: BlockRecord) => `${b.uid}\u0000${b.blockedUid}`;

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
  /** Every friendship and block in creation order (what `toData()` lists), by key. */
  private friends = new Map<string, FriendRecord>();
  private blocks = new Map<string, BlockRecord>();
  /** The friendships and blocks made or ended since the change log last looked (see noted.ts). */
  readonly friendNotes = new Noting<FriendRecord>();
  readonly blockNotes = new Noting<BlockRecord>();

  load(friends: FriendRecord[], blocks: BlockRecord[]): void {
    this.friendships = new Edges();
    this.blocking = new Edges();
    this.blockedBy = new Edges();
    this.friends = new Map();
    this.blocks = new Map();
    for (const f of friends) this.befriend({ ...f });
    for (const b of blocks) this.block({ ...b });
    this.friendNotes.reload();
    this.blockNotes.reload();
  }

  toData(): { friends: FriendRecord[]; blocks: BlockRecord[] } {
    return { friends: [...this.friends.values()], blocks: [...this.blocks.values()] };
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
    this.friends.set(friendKey(f), f);
    this.friendNotes.put(f);
  }
  unfriend(a: string, b: string): void {
    const f = this.friendships.get(a, b);
    this.friendships.delete(a, b);
    this.friendships.delete(b, a);
    if (!f) return;
    this.friends.delete(friendKey(f));
    this.friendNotes.remove(f, 0, friendKey(f));
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
    this.blocks.set(blockKey(b), b);
    this.blockNotes.put(b);
  }
  unblock(uid: string, blocked: string): void {
    const b = this.blocking.get(uid, blocked);
    this.blocking.delete(uid, blocked);
    this.blockedBy.delete(blocked, uid);
    if (!b) return;
    this.blocks.delete(blockKey(b));
    this.blockNotes.remove(b, 0, blockKey(b));
  }

  forgetUser(uid: string): void {
    for (const other of [...this.friendsOf(uid).keys()]) this.unfriend(uid, other);
    for (const other of [...this.blockedByUser(uid).keys()]) this.unblock(uid, other);
    for (const other of [...this.blockersOf(uid).keys()]) this.unblock(other, uid);
  }
}
