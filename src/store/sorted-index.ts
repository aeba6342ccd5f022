/**
 * An array kept in order by a comparator: O(log n) search, O(n) memmove on insert/remove (cheap for the sizes an
 * emulator holds), O(page) slicing. List endpoints page through these instead of sorting all records per request.
 */
export class SortedIndex<T> {
  private items: T[] = [];
  constructor(readonly compare: (a: T, b: T) => number) {}

  get size(): number {
    return this.items.length;
  }

  /** First position whose item is not less than `probe`. */
  lowerBound(probe: T): number {
    let lo = 0;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(this.items[mid], probe) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** First position whose item satisfies `atOrAfter` (which must be monotone over the order). */
  search(atOrAfter: (item: T) => boolean): number {
    let lo = 0;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (atOrAfter(this.items[mid])) hi = mid;
      else lo = mid + 1;
    }
    return lo;
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
    this.items.splice(this.lowerBound(item), 0, item);
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

  /** Bulk load (items need not be sorted). */
  reset(items: T[]): void {
    this.items = [...items].sort(this.compare);
  }

  values(): readonly T[] {
    return this.items;
  }
}
