/**
 * What changed in a collection of records kept in groups (a user's conversation states, a message's reactions;
 * users, groups, calls, ... in one group each) since the change log last took it (see change-tracker.ts): the
 * records created or changed, the ones removed as [group, id], and `reloaded` when all were replaced. Such
 * collections grow with use: too many records to compare on every write, so their classes note what changes.
 */
export class GroupedNotes<R> {
  readonly put = new Set<R>();
  gone: [string | number, string | number][] = [];
  reloaded = false;

  /** A record removed (after it may have been noted as put). */
  remove(record: R, group: string | number, id: string | number): void {
    this.put.delete(record);
    this.gone.push([group, id]);
  }

  /** All records were replaced (loaded): the whole part is logged. */
  reload(): void {
    this.clear();
    this.reloaded = true;
  }

  clear(): void {
    this.put.clear();
    this.gone = [];
    this.reloaded = false;
  }
}

/** Where a class keeps the notes of one of its collections: set by the change tracker, absent when none tracks it. */
export class Noting<R> {
  noted: GroupedNotes<R> | undefined;

  /** A record created or changed in place. */
  put(record: R): void {
    this.noted?.put.add(record);
  }

  remove(record: R, group: string | number, id: string | number): void {
    this.noted?.remove(record, group, id);
  }

  reload(): void {
    this.noted?.reload();
  }
}

/**
 * A change of a list of records kept in order, as the change log takes it: [key, record] added at the end or
 * changed where it stands, [key, null] removed (a group's members and bans, a moderation queue's entries).
 * A record removed and added again goes to the end, as in a Map.
 */
export type ListChange<K, R> = [K, R | null];

/** Applies list changes, in order, to records in file form (in their order); returns the list as changed. */
export function applyListChanges<K, R>(list: R[], changes: ListChange<K, R>[], keyOf: (record: R) => K): R[] {
  const byKey = new Map(list.map((r) => [keyOf(r), r]));
  for (const [key, record] of changes) {
    if (record === null) byKey.delete(key);
    else byKey.set(key, record);
  }
  return [...byKey.values()];
}
