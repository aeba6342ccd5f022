import { firstWhere } from "../util/search.js";

/** Where a conversation lists for one user: by the time of its last activity, then the id of that activity. */
export interface ActivityKey {
  updatedAt: number;
  order: number;
}

/** One conversation in a user's activity index. */
export interface ActivityItem extends ActivityKey {
  readonly conversationId: string;
  readonly group: boolean;
}

/**
 * Latest activity first. Ties (never between two messages, whose ids are unique; a conversation opened between
 * friends stands at the newest message's id) list one-on-one conversations before groups, then by id.
 */
export function tieOrder(a: { conversationId: string; group: boolean }, b: { conversationId: string; group: boolean }): number {
  return Number(a.group) - Number(b.group) || (a.conversationId < b.conversationId ? -1 : a.conversationId > b.conversationId ? 1 : 0);
}

function listOrder(a: ActivityItem, b: ActivityItem): number {
  return b.updatedAt - a.updatedAt || b.order - a.order || tieOrder(a, b);
}

function itemOf(conversationId: string, key: ActivityKey): ActivityItem {
  return { conversationId, group: conversationId.startsWith("group_"), updatedAt: key.updatedAt, order: key.order };
}

function insertSorted(list: ActivityItem[], item: ActivityItem): void {
  const at = firstWhere(list, (x) => listOrder(x, item) >= 0);
  list.splice(at, 0, item);
}

function removeSorted(list: ActivityItem[], item: ActivityItem): void {
  const at = firstWhere(list, (x) => listOrder(x, item) >= 0);
  if (list[at] === item) list.splice(at, 1);
}

/** Position of `item` in `list` (one of the user's lists, which holds it), by binary search. */
export function positionIn(list: readonly ActivityItem[], item: ActivityItem): number {
  const at = firstWhere(list, (x) => listOrder(x, item) >= 0);
  return list[at] === item ? at : -1;
}

/** One user's conversations that list (have something to show), in list order, and by type. */
export class UserActivity {
  readonly all: ActivityItem[] = [];
  readonly users: ActivityItem[] = [];
  readonly groups: ActivityItem[] = [];
  readonly byId = new Map<string, ActivityItem>();
  /** Conversations whose place may have changed since the last read: recomputed on the next one. */
  readonly dirty = new Set<string>();

  constructor(readonly rules: string) {}

  put(conversationId: string, key: ActivityKey | undefined): void {
    const old = this.byId.get(conversationId);
    if (old) {
      if (key && old.updatedAt === key.updatedAt && old.order === key.order) return;
      removeSorted(this.all, old);
      removeSorted(old.group ? this.groups : this.users, old);
      this.byId.delete(conversationId);
    }
    if (!key) return;
    const item = itemOf(conversationId, key);
    this.byId.set(conversationId, item);
    insertSorted(this.all, item);
    insertSorted(item.group ? this.groups : this.users, item);
  }
}

/**
 * The per-user activity index of the conversation list: for each user who listed their conversations, those
 * that list, in list order, so that a page reads what it returns and the total is a size. Built on a user's first
 * read (one pass over their conversations), then kept current: every change that can move or hide a conversation
 * for a user (a message stored, delivered or deleted for good, a reset, a membership, a pair of friends opened)
 * marks it for the users concerned, and the next read recomputes only those. What changes many lists at once
 * and rarely (a load, a user deleted or re-created, the app's conversation settings: `rules`) starts them over.
 */
export class ConversationActivity {
  private readonly lists = new Map<string, UserActivity>();
  /** Per conversation, the users whose index holds it or may come to (its parties, its members). */
  private readonly watchers = new Map<string, Set<string>>();

  /** Everything is recomputed on the next read. */
  reset(): void {
    this.lists.clear();
    this.watchers.clear();
  }

  /** Something changed in a conversation for everyone who has it (a group's message). */
  touch(conversationId: string): void {
    const uids = this.watchers.get(conversationId);
    if (uids) for (const uid of uids) this.lists.get(uid)?.dirty.add(conversationId);
  }

  /** Something changed in a conversation for one user (theirs to have now, a reset, a membership). */
  touchFor(uid: string, conversationId: string): void {
    const list = this.lists.get(uid);
    if (!list) return;
    list.dirty.add(conversationId);
    this.watch(uid, conversationId);
  }

  /**
   * `uid`'s index, current: built from `candidates` (every conversation they may have) on first use or when the
   * `rules` changed, else with the conversations marked since recomputed by `keyOf` (undefined: not listed).
   */
  read(uid: string, rules: string, candidates: () => Iterable<string>, keyOf: (conversationId: string) => ActivityKey | undefined): UserActivity {
    let list = this.lists.get(uid);
    if (!list || list.rules !== rules) {
      list = new UserActivity(rules);
      this.lists.set(uid, list);
      const items: ActivityItem[] = [];
      for (const conversationId of candidates()) {
        this.watch(uid, conversationId);
        const key = keyOf(conversationId);
        if (!key) continue;
        const item = itemOf(conversationId, key);
        list.byId.set(conversationId, item);
        items.push(item);
      }
      items.sort(listOrder);
      for (const item of items) {
        list.all.push(item);
        (item.group ? list.groups : list.users).push(item);
      }
      return list;
    }
    if (list.dirty.size) {
      for (const conversationId of list.dirty) list.put(conversationId, keyOf(conversationId));
      list.dirty.clear();
    }
    return list;
  }

  private watch(uid: string, conversationId: string): void {
    let uids = this.watchers.get(conversationId);
    if (!uids) this.watchers.set(conversationId, (uids = new Set()));
    uids.add(uid);
  }
}
