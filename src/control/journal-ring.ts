import { callerPath } from "../http/addressing.js";
import type { Plane } from "./request.js";

/**
 * The journal's storage: a ring of entries whose text (URL, headers, bodies) lives off the JS heap, in byte
 * chunks allocated as the ring fills. Keeping each request's strings and objects on the heap for the next
 * thousand requests measured at about 3 µs per request of garbage-collector work (the young generation grows and
 * every scavenge copies the kept entries), a tenth of a small GET; copying the text into bytes costs a fraction
 * of that. Text too long for its slot (a page of 100 messages is ~64 KB) goes to the slot's own overflow buffer,
 * reused by later entries: kept on the heap, the last thousand pages were promoted and collected over and over,
 * and the collector's pauses made the 99th percentile of such lists. Numbers go to typed arrays; method, plane,
 * app id and rule ids are references to long-lived strings.
 *
 * Memory is bounded: SLOT_BYTES per entry, plus overflow buffers that together stay within OVERFLOW_PER_ENTRY per
 * entry (at least MIN_OVERFLOW_BUDGET). Past the budget, the overflow text of the oldest entries is dropped (they
 * show its size instead), so any traffic costs at most about 20 KiB per entry of the journal's size.
 */

/** Headers as received: Node's flat `rawHeaders` (name, value, name, value, ...) or Fetch `Headers`. */
export type RawHeaders = readonly string[] | Headers;

/** What the middleware records for one request. */
export interface Recorded {
  id: number;
  timeMs: number;
  method: string;
  plane: Plane | null;
  appId: string | null;
  /** The URL as received (the API path and query are read from it). */
  url: string;
  headers: RawHeaders;
  requestText: string | null;
  /** null when no answer was sent (a rule reset the connection). */
  status: number | null;
  responseText: string | null;
  durationMs: number;
  rules: string[];
}

/** An entry read back: the recorded facts, headers as `name\nvalue\n...` text, and the API path. */
export interface Stored extends Omit<Recorded, "headers"> {
  path: string;
  headerText: string;
}

const SLOT_BYTES = 4096;
/** The overflow budget per entry of capacity (the whole journal's overflow may sit in a few entries). */
export const OVERFLOW_PER_ENTRY = 16 * 1024;
/** Enough for any one entry (URL and headers within Node's 16 KB, bodies kept up to 64 K characters each). */
const MIN_OVERFLOW_BUDGET = 1024 * 1024;
/** Overflow buffers are sized in pages, so that entries of similar size reuse them. */
const PAGE = 4096;
const SLOTS_PER_CHUNK = 64;
const PARTS = 4; // url, headers, request text, response text
const NULL = -1;
/** Lengths at or below this mark a part in the overflow buffer: OVERFLOW - length. */
const OVERFLOW = -2;

function headerText(h: RawHeaders): string {
  if (Array.isArray(h)) return (h as readonly string[]).join("\n"); // Node's raw headers (instanceof costs more)
  const out: string[] = [];
  (h as Headers).forEach((v, k) => out.push(k, v));
  return out.join("\n");
}

export class Ring {
  private readonly chunks: Buffer[] = [];
  /** Per slot: id, time, duration, status (-1: none). */
  private readonly numbers: Float64Array;
  /** Per slot and part: byte length in the slot, NULL, or OVERFLOW - byte length in the slot's overflow buffer. */
  private readonly lengths: Int32Array;
  private readonly methods: string[];
  private readonly planes: (Plane | null)[];
  private readonly appIds: (string | null)[];
  private readonly rules: string[][];
  private readonly overflow: (Buffer | undefined)[];
  /** Per slot: 1 when its overflow text was dropped to stay within the budget. */
  private readonly dropped: Uint8Array;
  private overflowBytes = 0;
  private readonly budget: number;
  /** Where the search for old overflow buffers to free goes on (see `release`). */
  private sweep = 0;

  constructor(readonly capacity: number) {
    this.numbers = new Float64Array(capacity * 4);
    this.lengths = new Int32Array(capacity * PARTS);
    this.methods = new Array<string>(capacity).fill("");
    this.planes = new Array<Plane | null>(capacity).fill(null);
    this.appIds = new Array<string | null>(capacity).fill(null);
    this.rules = new Array<string[]>(capacity).fill([]);
    this.overflow = new Array<Buffer | undefined>(capacity).fill(undefined);
    this.dropped = new Uint8Array(capacity);
    this.budget = Math.max(MIN_OVERFLOW_BUDGET, capacity * OVERFLOW_PER_ENTRY);
  }

  /** Bytes held off the heap: the slots allocated so far and the overflow buffers. */
  get bytes(): number {
    return this.chunks.length * SLOTS_PER_CHUNK * SLOT_BYTES + this.overflowBytes;
  }

  private chunk(slot: number): Buffer {
    const n = Math.floor(slot / SLOTS_PER_CHUNK);
    while (this.chunks.length <= n) this.chunks.push(Buffer.allocUnsafeSlow(SLOTS_PER_CHUNK * SLOT_BYTES));
    return this.chunks[n];
  }

  write(slot: number, r: Recorded): void {
    const n = slot * 4;
    this.numbers[n] = r.id;
    this.numbers[n + 1] = r.timeMs;
    this.numbers[n + 2] = r.durationMs;
    this.numbers[n + 3] = r.status ?? -1;
    this.methods[slot] = r.method;
    this.planes[slot] = r.plane;
    this.appIds[slot] = r.appId;
    this.rules[slot] = r.rules;
    const bytes = this.chunk(slot);
    let at = (slot % SLOTS_PER_CHUNK) * SLOT_BYTES;
    const end = at + SLOT_BYTES;
    const parts = [r.url, headerText(r.headers), r.requestText, r.responseText];
    let over = 0;
    let overParts: number[] | undefined;
    for (let p = 0; p < PARTS; p++) {
      const text = parts[p];
      const i = slot * PARTS + p;
      if (text === null) {
        this.lengths[i] = NULL;
        continue;
      }
      const room = end - at;
      // UTF-16 units times 3 bound the UTF-8 length: only long or non-ASCII-heavy text needs measuring.
      const size = text.length * 3 <= room ? -1 : Buffer.byteLength(text);
      if (size <= room) {
        const written = bytes.write(text, at, room, "utf8");
        this.lengths[i] = written;
        at += written;
      } else {
        this.lengths[i] = OVERFLOW - size;
        over += size;
        (overParts ??= []).push(p);
      }
    }
    this.dropped[slot] = 0;
    if (overParts === undefined) return;
    const buffer = this.overflowFor(slot, over);
    this.dropped[slot] = buffer ? 0 : 1;
    if (!buffer) return;
    let to = 0;
    for (const p of overParts) to += buffer.write(parts[p]!, to, "utf8");
  }

  /**
   * The slot's overflow buffer with room for `size` bytes: its own when near that size, else a new one, made room
   * for by freeing the oldest entries' buffers. Undefined when even that cannot make room.
   */
  private overflowFor(slot: number, size: number): Buffer | undefined {
    const current = this.overflow[slot];
    if (current && current.length >= size && current.length <= 2 * size + PAGE) return current;
    this.free(slot);
    const want = Math.ceil(size / PAGE) * PAGE;
    if (want > this.budget) return undefined;
    this.release(slot, want);
    if (this.overflowBytes + want > this.budget) return undefined;
    this.overflowBytes += want;
    return (this.overflow[slot] = Buffer.allocUnsafeSlow(want));
  }

  /** Lets go of a slot's overflow buffer; text the slot kept there is dropped. */
  private free(slot: number): void {
    const buffer = this.overflow[slot];
    if (!buffer) return;
    this.overflowBytes -= buffer.length;
    this.overflow[slot] = undefined;
    this.dropped[slot] = 1;
  }

  /**
   * Frees overflow buffers from the oldest entry on (the ring is written in order: the oldest follow `slot`) until
   * `want` more bytes fit the budget. The sweep goes on where it stopped, so each slot is looked at once per lap.
   */
  private release(slot: number, want: number): void {
    if (this.overflowBytes + want <= this.budget) return;
    const next = (slot + 1) % this.capacity;
    if (this.sweep === slot) this.sweep = next;
    while (this.overflowBytes + want > this.budget && this.sweep !== slot) {
      this.free(this.sweep);
      this.sweep = (this.sweep + 1) % this.capacity;
    }
  }

  read(slot: number): Stored {
    const n = slot * 4;
    const bytes = this.chunk(slot);
    let at = (slot % SLOTS_PER_CHUNK) * SLOT_BYTES;
    const parts: (string | null)[] = [];
    let over = 0;
    for (let p = 0; p < PARTS; p++) {
      const length = this.lengths[slot * PARTS + p];
      if (length === NULL) parts.push(null);
      else if (length <= OVERFLOW) {
        const size = OVERFLOW - length;
        if (this.dropped[slot]) parts.push(`[${size} bytes, dropped to keep the journal within its memory budget]`);
        else parts.push(this.overflow[slot]!.toString("utf8", over, over + size));
        over += size;
      } else {
        parts.push(bytes.toString("utf8", at, at + length));
        at += length;
      }
    }
    const url = parts[0] ?? "";
    const status = this.numbers[n + 3];
    return {
      id: this.numbers[n],
      timeMs: this.numbers[n + 1],
      durationMs: this.numbers[n + 2],
      status: status === -1 ? null : status,
      method: this.methods[slot],
      plane: this.planes[slot],
      appId: this.appIds[slot],
      rules: [...this.rules[slot]],
      url,
      path: callerPath(url),
      headerText: parts[1] ?? "",
      requestText: parts[2],
      responseText: parts[3],
    };
  }

  /** Lets go of the overflow buffers and the rule lists. */
  clear(): void {
    this.overflow.fill(undefined);
    this.overflowBytes = 0;
    this.dropped.fill(0);
    this.rules.fill([]);
  }
}
