/**
 * A bounded, observable log of records that change after they are added (deliveries, notifications): the last
 * `capacity` records in order, listeners told of every addition or change, and long-polls that resolve as soon
 * as a matching record exists (the control API's `wait=MS`).
 */
export class LiveLog<T> {
  private items: T[] = [];
  private readonly waiters = new Set<() => void>();
  private readonly listeners = new Set<(item: T) => void>();

  constructor(private readonly capacity: number) {}

  add(item: T): void {
    this.items.push(item);
    if (this.items.length > this.capacity) this.items.splice(0, this.items.length - this.capacity);
    this.changed(item);
  }

  list(pred: (item: T) => boolean = () => true): T[] {
    return this.items.filter(pred);
  }

  /** Resolves with the matching records as soon as there is one, or with none after `timeoutMs`. */
  waitFor(pred: (item: T) => boolean, timeoutMs: number): Promise<T[]> {
    const now = this.list(pred);
    if (now.length > 0 || timeoutMs <= 0) return Promise.resolve(now);
    return new Promise((resolve) => {
      const check = () => {
        const found = this.list(pred);
        if (found.length > 0) done(found);
      };
      const done = (found: T[]) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(found);
      };
      const timer = setTimeout(() => done([]), timeoutMs);
      this.waiters.add(check);
    });
  }

  /** Calls `listener` each time a record is added or changes; returns the unsubscribe. */
  subscribe(listener: (item: T) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tells listeners and waiters that `item` was added or changed. */
  changed(item: T): void {
    for (const listener of this.listeners) listener(item);
    for (const check of [...this.waiters]) check();
  }

  /** Forgets every record, or those `pred` picks. */
  clear(pred?: (item: T) => boolean): void {
    this.items = pred ? this.items.filter((item) => !pred(item)) : [];
  }
}

/**
 * What the control API reads of a live log (list, long-poll, stream, clear) through a filter type `F`: the
 * webhook dispatcher and the notification outbox are both one.
 */
export class FilteredLog<T, F> {
  protected readonly log: LiveLog<T>;

  constructor(
    capacity: number,
    private readonly matches: (item: T, filter: F) => boolean,
  ) {
    this.log = new LiveLog(capacity);
  }

  list(filter: F): T[] {
    return this.log.list((item) => this.matches(item, filter));
  }

  /** Resolves with the matching records as soon as there is one, or with none after `timeoutMs`. */
  waitFor(filter: F, timeoutMs: number): Promise<T[]> {
    return this.log.waitFor((item) => this.matches(item, filter), timeoutMs);
  }

  /** Calls `listener` each time a record is added or changes; returns the unsubscribe. */
  subscribe(listener: (item: T) => void): () => void {
    return this.log.subscribe(listener);
  }

  clear(): void {
    this.log.clear();
  }
}
