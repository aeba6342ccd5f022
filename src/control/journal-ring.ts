import { apiPath, internalPath } from "../http/addressing.js";
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
const SLOTS_PER_CHUNK = 64;
const PARTS = 4; // url, headers, request text, response text
const NULL = -1;
/** Lengths at or below this mark a part in the overflow buffer: OVERFLOW - length. */
const OVERFLOW = -2;

function headerText(h: RawHeaders): string {
  if (!(h instanceof Headers)) return h.join("\n");
  const out: string[] = [];
  h.forEach((v, k) => out.push(k, v));
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

  constructor(readonly capacity: number) {
    this.numbers = new Float64Array(capacity * 4);
    this.lengths = new Int32Array(capacity * PARTS);
    this.methods = new Array<string>(capacity).fill("");
    this.planes = new Array<Plane | null>(capacity).fill(null);
    this.appIds = new Array<string | null>(capacity).fill(null);
    this.rules = new Array<string[]>(capacity).fill([]);
    this.overflow = new Array<Buffer | undefined>(capacity).fill(undefined);
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
        const buffer = this.overflowFor(slot, over + size, over);
        buffer.write(text, over, size, "utf8");
        this.lengths[i] = OVERFLOW - size;
        over += size;
      }
    }
  }

  /** The slot's overflow buffer with room for `size` bytes, keeping its first `keep` bytes when it must grow. */
  private overflowFor(slot: number, size: number, keep: number): Buffer {
    const current = this.overflow[slot];
    if (current && current.length >= size) return current;
    const grown = Buffer.allocUnsafeSlow(Math.max(size, 2 * (current?.length ?? 0)));
    current?.copy(grown, 0, 0, keep);
    return (this.overflow[slot] = grown);
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
        parts.push(this.overflow[slot]!.toString("utf8", over, over + size));
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
      path: apiPath(internalPath(url)),
      headerText: parts[1] ?? "",
      requestText: parts[2],
      responseText: parts[3],
    };
  }

  /** Lets go of the overflow buffers and the rule lists. */
  clear(): void {
    this.overflow.fill(undefined);
    this.rules.fill([]);
  }
}
