/**
 * What changed in a collection of records kept in groups (a user's conversation states, a message's reactions)
 * since the change log last took it (see change-tracker.ts): the records created or changed, the ones removed as
 * [group, id], and `reloaded` when all were replaced. Such collections can hold a record per user and
 * conversation, or per message: too many to compare on every write, so their classes note what changes.
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

  clear(): void {
    this.put.clear();
    this.gone = [];
    this.reloaded = false;
  }
}
