import { SortedIndex } from "./sorted-index.js";

/**
 * A moderation queue (blocked or flagged messages): entries by message id, in the order they entered the queue,
 * and one index per bucket (a status) in that same order, so a list of the newest entries of one status reads
 * only the entries it returns. A review changes an entry's bucket, not its place in the queue.
 */
/**
 * A change of a queue, in order: an entry added at the end (in place of the one of the same message, if any), an
 * entry changed where it stands, or the entry of a message removed.
 */
export type QueueOp<E> = ["put", E] | ["update", E] | ["delete", number];

/** Applies queue changes to a queue's entries in file form (oldest first); `idOf` names an entry's message. */
export function applyQueueOps<E>(entries: E[], ops: QueueOp<E>[], idOf: (entry: E) => number): void {
  const at = (id: number) => entries.findIndex((e) => idOf(e) === id);
  for (const op of ops) {
    const i = at(op[0] === "delete" ? op[1] : idOf(op[1]));
    if (op[0] === "update") {
      if (i !== -1) entries[i] = op[1];
      continue;
    }
    if (i !== -1) entries.splice(i, 1);
    if (op[0] === "put") entries.push(op[1]);
  }
}

export class ReviewQueue<E extends object> {
  private readonly byId = new Map<number, E>();
  private readonly place = new WeakMap<E, number>();
  private next = 0;
  private readonly compare = (a: E, b: E) => this.place.get(a)! - this.place.get(b)!;
  private readonly all = new SortedIndex<E>(this.compare);
  private readonly buckets = new Map<string, SortedIndex<E>>();

  constructor(
    private readonly idOf: (entry: E) => number,
    private readonly bucketOf: (entry: E) => string,
    /** Told of every change of the queue or of an entry, as the change log takes it (see Moderation.queued). */
    private readonly changed: (op: QueueOp<E>) => void = () => {},
  ) {}

  get(id: number): E | undefined {
    return this.byId.get(id);
  }

  /** Every entry, oldest first. */
  values(): readonly E[] {
    return this.all.values();
  }

  /** Adds an entry at the end of the queue, in place of the entry of the same message (if any). */
  put(entry: E): void {
    this.delete(this.idOf(entry));
    this.changed(["put", entry]);
    this.place.set(entry, this.next++);
    this.byId.set(this.idOf(entry), entry);
    this.all.insert(entry);
    this.bucket(this.bucketOf(entry)).insert(entry);
  }

  delete(id: number): void {
    const entry = this.byId.get(id);
    if (!entry) return;
    this.changed(["delete", id]);
    this.byId.delete(id);
    this.all.remove(entry);
    this.bucket(this.bucketOf(entry)).remove(entry);
  }

  /** Changes an entry (its status) where it stands in the queue. */
  update(entry: E, change: (entry: E) => void): void {
    this.bucket(this.bucketOf(entry)).remove(entry);
    change(entry);
    this.changed(["update", entry]);
    this.bucket(this.bucketOf(entry)).insert(entry);
  }

  /** The entries of one bucket (or all), newest first. */
  *newest(bucket?: string): Generator<E> {
    const items = bucket === undefined ? this.all.values() : (this.buckets.get(bucket)?.values() ?? []);
    for (let i = items.length - 1; i >= 0; i--) yield items[i];
  }

  /** Empties the queue (a load: its owner counts that change itself). */
  clear(): void {
    this.byId.clear();
    this.all.reset([]);
    this.buckets.clear();
  }

  private bucket(name: string): SortedIndex<E> {
    let index = this.buckets.get(name);
    if (!index) this.buckets.set(name, (index = new SortedIndex<E>(this.compare)));
    return index;
  }
}
