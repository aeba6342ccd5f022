import type { MessageRecord } from "./types.js";
import { firstWhere } from "../util/search.js";
import { addTo, removeFrom } from "./multimap.js";

/** Position of the first message with an id not below `id` in an id-ascending array. */
export function lowerBoundId(list: readonly MessageRecord[], id: number): number {
  return firstWhere(list, (m) => m.id >= id);
}

function removeById(list: MessageRecord[], id: number): void {
  const at = lowerBoundId(list, id);
  if (list[at]?.id === id) list.splice(at, 1);
}

function insertById(list: MessageRecord[], m: MessageRecord): void {
  list.splice(lowerBoundId(list, m.id), 0, m);
}

/** Where a message stands in a conversation: its time, then its id. */
export interface MessageKey {
  sentAt: number;
  id: number;
}

/**
 * The order of conversation and thread lists: by `sentAt`, then id. Live messages arrive in that order (ids and
 * times grow together); imported history is slotted in by its time.
 */
export function compareMessages(a: MessageKey, b: MessageKey): number {
  return a.sentAt - b.sentAt || a.id - b.id;
}

/** Position of the first message at or after `key` in a time-ordered list. */
export function lowerBoundKey(list: readonly MessageRecord[], key: MessageKey): number {
  return firstWhere(list, (m) => compareMessages(m, key) >= 0);
}

/** Lists where a message was slotted in before an older id: ids do not grow along them. */
const SHUFFLED = new WeakSet<readonly MessageRecord[]>();

/**
 * Whether ids grow along a time-ordered list (nothing was slotted in), so id bounds can be binary-searched and
 * walks may stop at the first id out of range. True for every list without imported history.
 */
export function idOrdered(list: readonly MessageRecord[]): boolean {
  return !SHUFFLED.has(list);
}

/** Inserts a message in time order: at the end (live messages), or slotted in (imported history). */
function insertInOrder(list: MessageRecord[], m: MessageRecord): void {
  const last = list[list.length - 1];
  if (!last || compareMessages(last, m) <= 0) {
    list.push(m);
    return;
  }
  list.splice(lowerBoundKey(list, m), 0, m);
  SHUFFLED.add(list);
}

function removeInOrder(list: MessageRecord[], m: MessageRecord): void {
  const at = lowerBoundKey(list, m);
  if (list[at] === m) list.splice(at, 1);
}

const muidKey = (sender: string, muid: string) => `${sender}\u0000${muid}`;

/**
 * The messages of one app. Ids come from a per-app sequence: the app-wide list is in id order (a lookup by id is a
 * binary search). Each conversation and each thread is a list in time order (`compareMessages`), which for live
 * messages is id order too, kept by appending; imported history is slotted in by its `sentAt`. A page of one
 * conversation is a binary search plus a slice, whatever the app holds in total.
 */
export class Messages {
  private all: MessageRecord[] = [];
  private readonly conversations = new Map<string, MessageRecord[]>();
  private readonly threads = new Map<number, MessageRecord[]>();
  /** The parents of the threads of each conversation. */
  private readonly threadParents = new Map<string, Set<number>>();
  /** Pinned messages per conversation (the limit counts them). */
  private readonly pinned = new Map<string, number>();
  lastId = 0;
  /** The muids of imported messages (ERR_IMPORT_MUID_ALREADY_EXISTS). */
  private readonly importedMuids = new Set<string>();
  /** Per sender and client id (`muid`), the latest message: the SDK's `user/messages/{muid}`. */
  private readonly byMuid = new Map<string, MessageRecord>();
  /**
   * What changed since the change log last took it (see change-tracker.ts): messages by id, null for one deleted
   * for good; `reloaded` when the whole list was replaced. Too many to compare on every write, so they are noted,
   * from when the log starts tracking (undefined before: nothing is kept without a data file).
   */
  noted: Map<number, MessageRecord | null> | undefined;
  reloaded = false;

  load(messages: MessageRecord[], lastId: number): void {
    this.all = messages.map((m) => ({ ...m }));
    this.noted?.clear();
    this.reloaded = true;
    if (!this.all.every((m, i) => i === 0 || this.all[i - 1].id < m.id)) this.all.sort((a, b) => a.id - b.id);
    this.conversations.clear();
    this.threads.clear();
    this.threadParents.clear();
    this.pinned.clear();
    this.importedMuids.clear();
    this.byMuid.clear();
    for (const m of this.all) this.index(m, false);
    // Saved state holds imported history in id order: put every list back in time order (one sort, not n splices).
    for (const list of [...this.conversations.values(), ...this.threads.values()])
      if (!list.every((m, i) => i === 0 || compareMessages(list[i - 1], m) <= 0)) {
        list.sort(compareMessages);
        SHUFFLED.add(list);
      }
    this.lastId = Math.max(lastId, this.all.at(-1)?.id ?? 0);
  }

  /** Live references: serialize or clone, never mutate. */
  toData(): MessageRecord[] {
    return this.all;
  }

  get size(): number {
    return this.all.length;
  }

  /** Every message in id order. */
  list(): readonly MessageRecord[] {
    return this.all;
  }

  get(id: number): MessageRecord | undefined {
    const m = this.all[lowerBoundId(this.all, id)];
    return m?.id === id ? m : undefined;
  }

  /** Stores a new message under the next id. */
  add(message: Omit<MessageRecord, "id">): MessageRecord {
    const m: MessageRecord = { id: ++this.lastId, ...message };
    this.noted?.set(m.id, m);
    this.all.push(m);
    this.index(m, true);
    return m;
  }

  /** The latest message `sender` sent with the client id `muid`. */
  withMuid(sender: string, muid: string): MessageRecord | undefined {
    return this.byMuid.get(muidKey(sender, muid));
  }

  private forgetMuid(m: MessageRecord): void {
    if (m.muid !== undefined && this.byMuid.get(muidKey(m.sender, m.muid)) === m) this.byMuid.delete(muidKey(m.sender, m.muid));
  }

  /** Whether `m` is at or before the message `markId` (a read or delivered marker) in time order. */
  upTo(m: MessageRecord, markId: number | undefined): boolean {
    return markId !== undefined && compareMessages(m, this.keyOf(markId)) <= 0;
  }

  /** Of two marker ids, the one later in time order. */
  later(a: number | undefined, b: number): number {
    return a === undefined || compareMessages(this.keyOf(a), this.keyOf(b)) < 0 ? b : a;
  }

  /** Whether a message with this muid was imported. */
  imported(muid: string): boolean {
    return this.importedMuids.has(muid);
  }

  /**
   * Where message `id` stands in time order, for pointers kept as ids (read and delivered markers). A message
   * deleted for good stands where the message before it in id order stood.
   */
  keyOf(id: number): MessageKey {
    const at = lowerBoundId(this.all, id);
    const m = this.all[at];
    if (m?.id === id) return m;
    return { sentAt: this.all[at - 1]?.sentAt ?? 0, id };
  }

  /** Hands out the next id without storing anything (a message held back by moderation keeps its id). */
  reserveId(): number {
    return ++this.lastId;
  }

  /** Stores a message whose id was reserved earlier, at its place in id order. */
  insert(m: MessageRecord): void {
    this.noted?.set(m.id, m);
    if (this.all.length === 0 || this.all[this.all.length - 1].id < m.id) {
      this.all.push(m);
      this.index(m, true);
      return;
    }
    insertById(this.all, m);
    // Its conversation and thread lists are in time order: it goes where its time puts it.
    this.index(m, true);
  }

  pinnedIn(conversationId: string): number {
    return this.pinned.get(conversationId) ?? 0;
  }

  /** Notes a stored message changed in place (edited, deleted, replied to), for the change log. */
  touch(m: MessageRecord): void {
    this.noted?.set(m.id, m);
  }

  pin(m: MessageRecord, by: string, at: number): void {
    this.touch(m);
    if (m.pinnedAt === undefined) this.countPin(m.conversationId, 1);
    m.pinnedBy = by;
    m.pinnedAt = at;
  }

  unpin(m: MessageRecord): void {
    if (m.pinnedAt === undefined) return;
    this.touch(m);
    this.countPin(m.conversationId, -1);
    delete m.pinnedBy;
    delete m.pinnedAt;
  }

  private countPin(conversationId: string, by: number): void {
    const n = this.pinnedIn(conversationId) + by;
    if (n > 0) this.pinned.set(conversationId, n);
    else this.pinned.delete(conversationId);
  }

  /** Permanent delete. */
  remove(m: MessageRecord): void {
    this.noted?.set(m.id, null);
    if (m.pinnedAt !== undefined) this.countPin(m.conversationId, -1);
    removeById(this.all, m.id);
    if (m.imported && m.muid !== undefined) this.importedMuids.delete(m.muid);
    this.forgetMuid(m);
    const conversation = this.conversations.get(m.conversationId);
    if (conversation) {
      removeInOrder(conversation, m);
      if (conversation.length === 0) this.conversations.delete(m.conversationId);
    }
    if (m.parentId !== undefined) {
      const thread = this.threads.get(m.parentId);
      if (thread) removeInOrder(thread, m);
      if (thread?.length === 0) {
        this.threads.delete(m.parentId);
        removeFrom(this.threadParents, m.conversationId, m.parentId);
      }
    }
  }

  /** The parent ids of a conversation's threads (messages with at least one reply). */
  threadsIn(conversationId: string): ReadonlySet<number> {
    return this.threadParents.get(conversationId) ?? new Set();
  }

  /** Every conversation that has threads. */
  conversationsWithThreads(): Iterable<string> {
    return this.threadParents.keys();
  }

  /** One conversation's messages (thread replies included) in time order. */
  conversation(conversationId: string): readonly MessageRecord[] {
    return this.conversations.get(conversationId) ?? [];
  }

  /** The replies to one message in time order. */
  thread(parentId: number): readonly MessageRecord[] {
    return this.threads.get(parentId) ?? [];
  }

  /** Removes a whole conversation (its group was deleted). */
  dropConversation(conversationId: string): void {
    const conversation = this.conversations.get(conversationId);
    if (!conversation) return;
    const gone = new Set(conversation.map((m) => m.id));
    for (const id of gone) this.noted?.set(id, null);
    for (const m of conversation) {
      if (m.imported && m.muid !== undefined) this.importedMuids.delete(m.muid);
      this.forgetMuid(m);
    }
    this.all = this.all.filter((m) => !gone.has(m.id));
    for (const m of conversation) if (m.parentId === undefined) this.threads.delete(m.id);
    this.conversations.delete(conversationId);
    this.threadParents.delete(conversationId);
    this.pinned.delete(conversationId);
  }

  /** Adds `m` to its lists: in time order, or (`ordered` false, a bulk load) at the end, sorted afterwards. */
  private index(m: MessageRecord, ordered: boolean): void {
    if (m.pinnedAt !== undefined) this.countPin(m.conversationId, 1);
    if (m.imported && m.muid !== undefined) this.importedMuids.add(m.muid);
    if (m.muid !== undefined) this.byMuid.set(muidKey(m.sender, m.muid), m);
    const put = ordered ? insertInOrder : (list: MessageRecord[], x: MessageRecord) => list.push(x);
    let conversation = this.conversations.get(m.conversationId);
    if (!conversation) this.conversations.set(m.conversationId, (conversation = []));
    put(conversation, m);
    if (m.parentId !== undefined) {
      let thread = this.threads.get(m.parentId);
      if (!thread) this.threads.set(m.parentId, (thread = []));
      put(thread, m);
      addTo(this.threadParents, m.conversationId, m.parentId);
    }
  }
}
