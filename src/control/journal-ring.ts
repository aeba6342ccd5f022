import { callerPath } from "../http/addressing.js";
import type { Plane } from "./request.js";
import { NO_ADVICE, type Advice } from "../http/advice.js";

/**
 * The journal's storage: a ring of entries whose text (URL, headers, bodies) lives off the JS heap, in byte
 * chunks allocated as the ring fills. Keeping each request's strings and objects on the heap for the next
 * thousand requests measured at about 3 µs per request of garbage-collector work (the young generation grows and
 * every scavenge copies the kept entries), a tenth of a small GET; copying the text into bytes costs a fraction
 * of that. Text too long for its slot (a page of 100 messages is ~64 KB) goes to the overflow log: one circular
 * run of bytes, written in order and allocated in chunks as it first fills, so the newest entries' long text
 * overwrites the oldest's. Kept on the heap, the last thousand pages were promoted and collected over and over;
 * in a buffer per entry, allocated as older ones were let go, 50-80 MB a second of buffers came and went under a
 * stream of pages and kept the collector marking the whole heap (a full mark every second with a million stored
 * messages): that made the 99th percentile of such lists. Numbers go to typed arrays; method, plane, app id and
 * rule ids are references to long-lived strings.
 *
 * Memory is bounded: SLOT_BYTES per entry, plus the overflow log, OVERFLOW_PER_ENTRY per entry (at least
 * MIN_OVERFLOW_BUDGET) in whole chunks. Once written over, the long text of the oldest entries is gone (they show
 * its size instead), so any traffic costs at most about 20 KiB per entry of the journal's size.
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
  /** Request advice (http/advice.ts): what the platform would have ignored. */
  advice: readonly Advice[];
}

/** An entry read back: the recorded facts, headers as `name\nvalue\n...` text, and the API path. */
export interface Stored extends Omit<Recorded, "headers"> {
  path: string;
  headerText: string;
}

const SLOT_BYTES = 4096;
/** The overflow budget per entry of capacity (the whole journal's overflow may sit in a few entries). */
export const OVERFLOW_PER_ENTRY = 16 * 1024;
/** The overflow log comes in chunks of this size; an entry's long text lies within one chunk. */
const LOG_CHUNK = 1024 * 1024;
/** Enough for any one entry (URL and headers within Node's 16 KB, bodies kept up to 64 K characters each). */
const MIN_OVERFLOW_BUDGET = LOG_CHUNK;
/** Slots come in chunks of this many (a smaller journal's in one chunk of its size). */
const SLOTS_PER_CHUNK = 64;
const PARTS = 4; // url, headers, request text, response text
const NULL = -1;
/** Lengths at or below this mark a part in the overflow log: OVERFLOW - length. */
const OVERFLOW = -2;
/** No long text kept for the slot. */
const GONE = -1;

function headerText(h: RawHeaders): string {
  if (Array.isArray(h)) return (h as readonly string[]).join("\n"); // Node's raw headers (instanceof costs more)
  const out: string[] = [];
  (h as Headers).forEach((v, k) => out.push(k, v));
  return out.join("\n");
}

export class Ring {
  private readonly chunks: Buffer[] = [];
  private readonly slotsPerChunk: number;
  /** Per slot: id, time, duration, status (-1: none). */
  private readonly numbers: Float64Array;
  /** Per slot and part: byte length in the slot, NULL, or OVERFLOW - byte length in the overflow log. */
  private readonly lengths: Int32Array;
  private readonly methods: string[];
  private readonly planes: (Plane | null)[];
  private readonly appIds: (string | null)[];
  private readonly rules: string[][];
  private readonly advice: (readonly Advice[])[];
  /** The overflow log's chunks, allocated as the log first reaches them. */
  private readonly log: Buffer[] = [];
  /** The log's size: whole chunks. */
  private readonly logBytes: number;
  /** Bytes ever written to the log (a position in it is `head % logBytes`). */
  private head = 0;
  /** Per slot: where its long text starts, as a count of bytes ever written (GONE: none kept). */
  private readonly logStart: Float64Array;

  constructor(readonly capacity: number) {
    this.slotsPerChunk = Math.min(SLOTS_PER_CHUNK, capacity);
    this.numbers = new Float64Array(capacity * 4);
    this.lengths = new Int32Array(capacity * PARTS);
    this.methods = new Array<string>(capacity).fill("");
    this.planes = new Array<Plane | null>(capacity).fill(null);
    this.appIds = new Array<string | null>(capacity).fill(null);
    this.rules = new Array<string[]>(capacity).fill([]);
    this.advice = new Array<readonly Advice[]>(capacity).fill(NO_ADVICE);
    this.logBytes = Math.max(MIN_OVERFLOW_BUDGET, Math.floor((capacity * OVERFLOW_PER_ENTRY) / LOG_CHUNK) * LOG_CHUNK);
    this.logStart = new Float64Array(capacity).fill(GONE);
  }

  /** Bytes held off the heap: the slots and the overflow log's chunks allocated so far. */
  get bytes(): number {
    return this.chunks.length * this.slotsPerChunk * SLOT_BYTES + this.log.length * LOG_CHUNK;
  }

  private chunk(slot: number): Buffer {
    const n = Math.floor(slot / this.slotsPerChunk);
    while (this.chunks.length <= n) this.chunks.push(Buffer.allocUnsafeSlow(this.slotsPerChunk * SLOT_BYTES));
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
    this.advice[slot] = r.advice;
    const bytes = this.chunk(slot);
    let at = (slot % this.slotsPerChunk) * SLOT_BYTES;
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
    this.logStart[slot] = overParts === undefined ? GONE : this.append(parts, overParts, over);
  }

  /** Writes the long parts (`size` bytes in all) to the log, within one chunk; where they start, or GONE. */
  private append(parts: (string | null)[], overParts: number[], size: number): number {
    if (size > LOG_CHUNK) return GONE;
    let at = this.head % this.logBytes;
    // Not across the end of a chunk: on to the next one (the log's size is whole chunks, so positions stay aligned).
    if ((at % LOG_CHUNK) + size > LOG_CHUNK) {
      this.head += LOG_CHUNK - (at % LOG_CHUNK);
      at = this.head % this.logBytes;
    }
    const n = Math.floor(at / LOG_CHUNK);
    while (this.log.length <= n) this.log.push(Buffer.allocUnsafeSlow(LOG_CHUNK));
    const chunk = this.log[n];
    let to = at % LOG_CHUNK;
    for (const p of overParts) to += chunk.write(parts[p]!, to, "utf8");
    const start = this.head;
    this.head += size;
    return start;
  }

  /** The log from where the slot's long text starts, or undefined when later entries have written over it. */
  private logged(slot: number): Buffer | undefined {
    const start = this.logStart[slot];
    if (start === GONE || this.head - start > this.logBytes) return undefined;
    const at = start % this.logBytes;
    return this.log[Math.floor(at / LOG_CHUNK)].subarray(at % LOG_CHUNK);
  }

  read(slot: number): Stored {
    const n = slot * 4;
    const bytes = this.chunk(slot);
    let at = (slot % this.slotsPerChunk) * SLOT_BYTES;
    const parts: (string | null)[] = [];
    const logged = this.logged(slot);
    let over = 0;
    for (let p = 0; p < PARTS; p++) {
      const length = this.lengths[slot * PARTS + p];
      if (length === NULL) parts.push(null);
      else if (length <= OVERFLOW) {
        const size = OVERFLOW - length;
        if (!logged) parts.push(`[${size} bytes, dropped to keep the journal within its memory budget]`);
        else parts.push(logged.toString("utf8", over, over + size));
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
      advice: this.advice[slot],
      url,
      path: callerPath(url),
      headerText: parts[1] ?? "",
      requestText: parts[2],
      responseText: parts[3],
    };
  }

  /** Lets go of the overflow log and the rule lists. */
  clear(): void {
    this.log.length = 0;
    this.logStart.fill(GONE);
    this.rules.fill([]);
    this.advice.fill(NO_ADVICE);
  }
}
