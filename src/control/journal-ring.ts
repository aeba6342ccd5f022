import { apiPath, internalPath } from "../http/addressing.js";
import type { Plane } from "./request.js";

/**
 * The journal's storage: a ring of entries whose text (URL, headers, bodies) lives off the JS heap, in byte
 * chunks allocated as the ring fills. Keeping each request's strings and objects on the heap for the next
 * thousand requests measured at about 3 µs per request of garbage-collector work (the young generation grows and
 * every scavenge copies the kept entries), a tenth of a small GET; copying the text into bytes costs a fraction
 * of that. Numbers go to typed arrays; method, plane, app id and rule ids are references to long-lived strings.
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
const ON_HEAP = -2;

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
  /** Per slot and part: byte length, NULL, or ON_HEAP (too large for the slot: kept in `onHeap`). */
  private readonly lengths: Int32Array;
  private readonly methods: string[];
  private readonly planes: (Plane | null)[];
  private readonly appIds: (string | null)[];
  private readonly rules: string[][];
  private readonly onHeap = new Map<number, (string | null)[]>();

  constructor(readonly capacity: number) {
    this.numbers = new Float64Array(capacity * 4);
    this.lengths = new Int32Array(capacity * PARTS);
    this.methods = new Array<string>(capacity).fill("");
    this.planes = new Array<Plane | null>(capacity).fill(null);
    this.appIds = new Array<string | null>(capacity).fill(null);
    this.rules = new Array<string[]>(capacity).fill([]);
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
    this.onHeap.delete(slot);
    const bytes = this.chunk(slot);
    let at = (slot % SLOTS_PER_CHUNK) * SLOT_BYTES;
    const end = at + SLOT_BYTES;
    const parts = [r.url, headerText(r.headers), r.requestText, r.responseText];
    for (let p = 0; p < PARTS; p++) {
      const text = parts[p];
      const i = slot * PARTS + p;
      if (text === null) {
        this.lengths[i] = NULL;
        continue;
      }
      const room = end - at;
      // UTF-16 units times 3 bound the UTF-8 length: only long or non-ASCII-heavy text needs measuring.
      if (text.length * 3 <= room || Buffer.byteLength(text) <= room) {
        const written = bytes.write(text, at, room, "utf8");
        this.lengths[i] = written;
        at += written;
      } else {
        this.lengths[i] = ON_HEAP;
        let kept = this.onHeap.get(slot);
        if (!kept) this.onHeap.set(slot, (kept = [null, null, null, null]));
        kept[p] = text;
      }
    }
  }

  read(slot: number): Stored {
    const n = slot * 4;
    const bytes = this.chunk(slot);
    let at = (slot % SLOTS_PER_CHUNK) * SLOT_BYTES;
    const parts: (string | null)[] = [];
    for (let p = 0; p < PARTS; p++) {
      const length = this.lengths[slot * PARTS + p];
      if (length === NULL) parts.push(null);
      else if (length === ON_HEAP) parts.push(this.onHeap.get(slot)![p]);
      else {
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

  /** Lets go of everything kept on the heap. */
  clear(): void {
    this.onHeap.clear();
    this.rules.fill([]);
  }
}
