import { firstWhere } from "../util/search.js";

/**
 * An array kept in order by a comparator: O(log n) search, O(n) memmove on insert/remove (cheap for the sizes an
 * emulator holds), O(page) slicing. List endpoints page through these instead of sorting all records per request.
 */
export class SortedIndex<T> {
  private items: T[] = [];
  private readonly orders = new WeakMap<object, Int32Array>();
  /**
   * `key`, when given, must order items exactly as `compare` does; bulk loads then sort on precomputed keys,
   * several times faster than calling `compare` n log n times.
   */
  constructor(
    readonly compare: (a: T, b: T) => number,
    private readonly key?: (item: T) => string | number,
  ) {}

  get size(): number {
    return this.items.length;
  }

  /** First position whose item is not less than `probe`. */
  lowerBound(probe: T): number {
    return firstWhere(this.items, (item) => this.compare(item, probe) >= 0);
  }

  /** First position whose item satisfies `atOrAfter` (which must be monotone over the order). */
  search(atOrAfter: (item: T) => boolean): number {
    return firstWhere(this.items, atOrAfter);
  }

  /** The items whose `key` starts with `prefix`; the index must be ordered by `key` first. */
  withPrefix(prefix: string, key: (item: T) => string): T[] {
    const out: T[] = [];
    for (let i = this.search((item) => key(item) >= prefix); i < this.items.length; i++) {
      if (!key(this.items[i]).startsWith(prefix)) break;
      out.push(this.items[i]);
    }
    return out;
  }

  insert(item: T): void {
    const items = this.items;
    // Most inserts land at the end (times, ids): no search, no splice.
    if (items.length === 0 || this.compare(items[items.length - 1], item) <= 0) items.push(item);
    else items.splice(this.lowerBound(item), 0, item);
  }

  remove(item: T): boolean {
    for (let i = this.lowerBound(item); i < this.items.length; i++) {
      if (this.items[i] === item) {
        this.items.splice(i, 1);
        return true;
      }
      if (this.compare(this.items[i], item) > 0) break;
    }
    // The item's sort key changed since it was inserted: fall back to identity search.
    const at = this.items.indexOf(item);
    if (at === -1) return false;
    this.items.splice(at, 1);
    return true;
  }

  at(i: number): T {
    return this.items[i];
  }

  /**
   * Bulk load (items need not be sorted). `source` is the array the items were copied from, position for
   * position: the order found is remembered for it, so loading the same source again (a reset to the same seed,
   * a snapshot restored twice) rebuilds the index in O(n) without sorting.
   */
  reset(items: T[], source?: object): void {
    const cached = source ? this.orders.get(source) : undefined;
    if (cached && cached.length === items.length) {
      this.items = Array.from(cached, (i) => items[i]);
      return;
    }
    const key = this.key;
    const order = Array.from(items.keys());
    if (key) {
      const keys = items.map(key);
      order.sort((a, b) => (keys[a] < keys[b] ? -1 : keys[a] > keys[b] ? 1 : 0));
    } else {
      order.sort((a, b) => this.compare(items[a], items[b]));
    }
    this.items = order.map((i) => items[i]);
    if (source) this.orders.set(source, Int32Array.from(order));
  }

  /** Remembers the current order for `source`, a copy of `copied` position for position (a snapshot). */
  remember(source: object, copied: readonly T[]): void {
    const position = new Map<T, number>();
    copied.forEach((item, i) => position.set(item, i));
    this.orders.set(source, Int32Array.from(this.items, (item) => position.get(item)!));
  }

  values(): readonly T[] {
    return this.items;
  }
}
