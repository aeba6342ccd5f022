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

/**
 * The messages of one app. Ids come from a per-app sequence, so every list is kept in id order by appending:
 * the app-wide list, one list per conversation and one per thread. A lookup by id is a binary search; a page of
 * one conversation is a binary search plus a slice, whatever the app holds in total.
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

  load(messages: MessageRecord[], lastId: number): void {
    this.all = messages.map((m) => ({ ...m }));
    if (!this.all.every((m, i) => i === 0 || this.all[i - 1].id < m.id)) this.all.sort((a, b) => a.id - b.id);
    this.conversations.clear();
    this.threads.clear();
    this.threadParents.clear();
    this.pinned.clear();
    for (const m of this.all) this.index(m);
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
    this.all.push(m);
    this.index(m);
    return m;
  }

  /** Hands out the next id without storing anything (a message held back by moderation keeps its id). */
  reserveId(): number {
    return ++this.lastId;
  }

  /** Stores a message whose id was reserved earlier, at its place in id order. */
  insert(m: MessageRecord): void {
    if (this.all.length === 0 || this.all[this.all.length - 1].id < m.id) {
      this.all.push(m);
      this.index(m);
      return;
    }
    insertById(this.all, m);
    let conversation = this.conversations.get(m.conversationId);
    if (!conversation) this.conversations.set(m.conversationId, (conversation = []));
    insertById(conversation, m);
    if (m.parentId !== undefined) {
      let thread = this.threads.get(m.parentId);
      if (!thread) this.threads.set(m.parentId, (thread = []));
      insertById(thread, m);
    }
  }

  pinnedIn(conversationId: string): number {
    return this.pinned.get(conversationId) ?? 0;
  }

  pin(m: MessageRecord, by: string, at: number): void {
    if (m.pinnedAt === undefined) this.countPin(m.conversationId, 1);
    m.pinnedBy = by;
    m.pinnedAt = at;
  }

  unpin(m: MessageRecord): void {
    if (m.pinnedAt === undefined) return;
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
    if (m.pinnedAt !== undefined) this.countPin(m.conversationId, -1);
    removeById(this.all, m.id);
    const conversation = this.conversations.get(m.conversationId);
    if (conversation) {
      removeById(conversation, m.id);
      if (conversation.length === 0) this.conversations.delete(m.conversationId);
    }
    if (m.parentId !== undefined) {
      const thread = this.threads.get(m.parentId);
      if (thread) removeById(thread, m.id);
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

  /** One conversation's messages (thread replies included) in id order. */
  conversation(conversationId: string): readonly MessageRecord[] {
    return this.conversations.get(conversationId) ?? [];
  }

  /** The replies to one message in id order. */
  thread(parentId: number): readonly MessageRecord[] {
    return this.threads.get(parentId) ?? [];
  }

  /** Removes a whole conversation (its group was deleted). */
  dropConversation(conversationId: string): void {
    const conversation = this.conversations.get(conversationId);
    if (!conversation) return;
    const gone = new Set(conversation.map((m) => m.id));
    this.all = this.all.filter((m) => !gone.has(m.id));
    for (const m of conversation) if (m.parentId === undefined) this.threads.delete(m.id);
    this.conversations.delete(conversationId);
    this.threadParents.delete(conversationId);
    this.pinned.delete(conversationId);
  }

  private index(m: MessageRecord): void {
    if (m.pinnedAt !== undefined) this.countPin(m.conversationId, 1);
    let conversation = this.conversations.get(m.conversationId);
    if (!conversation) this.conversations.set(m.conversationId, (conversation = []));
    conversation.push(m);
    if (m.parentId !== undefined) {
      let thread = this.threads.get(m.parentId);
      if (!thread) this.threads.set(m.parentId, (thread = []));
      thread.push(m);
      addTo(this.threadParents, m.conversationId, m.parentId);
    }
  }
}
