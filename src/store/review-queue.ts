import type { ListChange } from "./noted.js";
import { SortedIndex } from "./sorted-index.js";

/**
 * A moderation queue (blocked or flagged messages): entries by message id, in the order they entered the queue,
 * and one index per bucket (a status) in that same order, so a list of the newest entries of one status reads
 * only the entries it returns. A review changes an entry's bucket, not its place in the queue.
 */
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
    private readonly changed: (change: ListChange<number, E>) => void = () => {},
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
    this.changed([this.idOf(entry), entry]);
    this.place.set(entry, this.next++);
    this.byId.set(this.idOf(entry), entry);
    this.all.insert(entry);
    this.bucket(this.bucketOf(entry)).insert(entry);
  }

  delete(id: number): void {
    const entry = this.byId.get(id);
    if (!entry) return;
    this.changed([id, null]);
    this.byId.delete(id);
    this.all.remove(entry);
    this.bucket(this.bucketOf(entry)).remove(entry);
  }

  /** Changes an entry (its status) where it stands in the queue. */
  update(entry: E, change: (entry: E) => void): void {
    this.bucket(this.bucketOf(entry)).remove(entry);
    change(entry);
    this.changed([this.idOf(entry), entry]);
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
