/**
 * Serialized answers of reads by id (one user, group or message as one viewer sees it) and of the items of a
 * page (conversations, users), reused while the state cannot have changed: building and stringifying the view is a
 * sixth of a message read's instructions, and stringifying a page of 100 conversations more than half of that read's.
 *
 * A text is valid from when it is built until anything may have changed state. The store drops every text on each
 * committed change it hears of (`Store.changed`, every domain event); and every request that is not such a read
 * (any method, any plane, the control plane's writes) drops them when it ends, whatever it did. While any other
 * request is in flight (a write waiting for its body, a delayed rule), nothing is kept or reused: it may be between
 * changing state and ending. So a text is only ever served to a read that runs alone, after the last change.
 */
export class ReadCache {
  /** By record, then by variant (NO_VARIANT for none): identity keys, hashed once per object. */
  private readonly texts = new Map<object, Map<object, string>>();
  /** Requests begun and not yet ended. */
  private inFlight = 0;

  /** A request starts (platform planes and control-plane writes). */
  begin(): void {
    this.inFlight++;
  }

  /** A request ended; unless it was a cached read, whatever it may have changed invalidates every text. */
  end(read: boolean): void {
    this.inFlight--;
    if (!read) this.invalidate();
  }

  /** Something changed: no text kept so far is valid. */
  invalidate(): void {
    if (this.texts.size > 0) this.texts.clear();
  }

  /**
   * The text of `record` in one `variant` (what else its view depends on), built by `build` unless a valid one is
   * kept. Who answers through here: the reads of a user, a group and a message by id (with the viewer as the
   * variant), a conversation of a page by its place in its owner's activity index (with the page's view options),
   * and a user of a page the app reads itself by its record (with withTags: a variant of its own, apart from the
   * single read's).
   */
  text(record: object, variant: object | undefined, build: () => string): string {
    if (this.inFlight !== 1) return build();
    let byVariant = this.texts.get(record);
    if (byVariant === undefined) {
      // Bounded: the oldest record goes first (reading a million messages once each keeps no more than this).
      if (this.texts.size >= MAX_RECORDS) this.texts.delete(this.texts.keys().next().value!);
      this.texts.set(record, (byVariant = new Map()));
    }
    let text = byVariant.get(variant ?? NO_VARIANT);
    if (text === undefined) byVariant.set(variant ?? NO_VARIANT, (text = build()));
    return text;
  }

  /** How many records have texts kept (tests). */
  get size(): number {
    return this.texts.size;
  }
}

const MAX_RECORDS = 1024;
const NO_VARIANT = {};
