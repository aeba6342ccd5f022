import { keyedMap, maskKey } from "../http/errors.js";
import { MAX_JSON_DEPTH, nestedDeeper } from "../http/validate.js";
import { compileGlob } from "./glob.js";
import { Ring, type Recorded, type Stored } from "./journal-ring.js";
import type { Plane } from "./request.js";
import type { Advice } from "../http/advice.js";

export type { Recorded, RawHeaders } from "./journal-ring.js";

/**
 * The request journal: a ring buffer of the last N platform requests (control calls are not journaled), stored
 * off the JS heap (see journal-ring.ts); the readable form of an entry (query object, masked headers, parsed
 * bodies) is built only when someone reads it.
 */

export const DEFAULT_JOURNAL_SIZE = 1000;
/** Each entry of the journal's size may cost up to about 20 KiB (see journal-ring.ts): 400 MiB at most. */
export const MAX_JOURNAL_SIZE = 20_000;
/** Bodies larger than this are not kept (the entry says how large they were). */
export const JOURNAL_BODY_LIMIT = 64 * 1024;

const MASKED = new Set(["apikey", "authtoken", "key", "secret", "authorization", "x-emulator-token"]);

/** One journal entry as the control API and the programmatic API show it. */
export interface JournalEntry {
  id: number;
  /** ISO time from the emulator clock when the request arrived. */
  time: string;
  timeMs: number;
  appId: string | null;
  plane: Plane | null;
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  requestHeaders: Record<string, string>;
  requestBody: unknown;
  status: number | null;
  responseBody: unknown;
  durationMs: number;
  /** Ids of the rules that touched the request. */
  rules: string[];
  /** What the request sent that the platform would have ignored, with the names it probably meant (docs/insight.md). */
  advice: readonly Advice[];
}

export interface JournalFilter {
  appId?: string;
  method?: string;
  /** Glob over the API path, e.g. "/v3/users/*". */
  path?: string;
  /** An exact status (404) or a class ("4xx"). */
  status?: number | string;
  /** Only requests at or after this time (Unix ms or an ISO date), on the emulator clock. */
  since?: number | string;
  /** Only requests with a larger id (a cursor: the id of the last entry seen). */
  afterId?: number;
  /** At most this many (the newest). */
  limit?: number;
}

function body(text: string | null): unknown {
  if (text === null || text === "") return null;
  // A refused, deeply nested body stays text: parsed, it could not be sent back as JSON.
  if (nestedDeeper(text, MAX_JSON_DEPTH)) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A body as kept in an entry: the text, or a note when it is too large to keep. */
export function keptBody(text: string): string {
  return text.length > JOURNAL_BODY_LIMIT ? `[${Buffer.byteLength(text)} bytes, not kept]` : text;
}

export function entryView(r: Stored): JournalEntry {
  const query: Record<string, string | string[]> = keyedMap();
  const q = r.url.indexOf("?");
  if (q !== -1) {
    for (const [k, v] of new URLSearchParams(r.url.slice(q + 1))) {
      const prev = query[k];
      query[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
    }
  }
  const requestHeaders: Record<string, string> = keyedMap();
  const lines = r.headerText === "" ? [] : r.headerText.split("\n");
  for (let i = 0; i + 1 < lines.length; i += 2) {
    const k = lines[i].toLowerCase();
    const v = MASKED.has(k) ? maskKey(lines[i + 1]) : lines[i + 1];
    requestHeaders[k] = k in requestHeaders ? `${requestHeaders[k]}, ${v}` : v;
  }
  return {
    id: r.id,
    time: new Date(r.timeMs).toISOString(),
    timeMs: r.timeMs,
    appId: r.appId,
    plane: r.plane,
    method: r.method,
    path: r.path,
    query,
    requestHeaders,
    requestBody: body(r.requestText),
    status: r.status,
    responseBody: body(r.responseText),
    durationMs: Math.round(r.durationMs * 100) / 100,
    rules: r.rules,
    advice: r.advice,
  };
}

/** Compiles a filter into one predicate (the path glob once, not per entry). */
export function matcher(f: JournalFilter): (r: Stored) => boolean {
  const appId = f.appId?.toLowerCase();
  const method = f.method?.toUpperCase();
  const path = f.path === undefined ? undefined : compileGlob(f.path);
  const status = f.status === undefined ? undefined : String(f.status).toLowerCase();
  const statusClass = status?.endsWith("xx") ? Number(status[0]) : undefined;
  const since = f.since === undefined ? undefined : typeof f.since === "number" ? f.since : Date.parse(f.since);
  return (r) =>
    (appId === undefined || r.appId === appId) &&
    (method === undefined || r.method === method) &&
    (path === undefined || path(r.path)) &&
    (status === undefined ||
      (statusClass !== undefined ? r.status !== null && Math.floor(r.status / 100) === statusClass : String(r.status) === status)) &&
    (since === undefined || r.timeMs >= since) &&
    (f.afterId === undefined || r.id > f.afterId);
}

interface Waiter {
  matches: (r: Stored) => boolean;
  resolve: (r: Stored) => void;
}

export class Journal {
  private readonly ring: Ring;
  /** Where the next entry goes. */
  private head = 0;
  private count = 0;
  private seq = 0;
  private readonly waiters = new Set<Waiter>();
  private readonly listeners = new Set<(r: Stored) => void>();

  constructor(readonly capacity = DEFAULT_JOURNAL_SIZE) {
    if (!Number.isInteger(capacity) || capacity < 0 || capacity > MAX_JOURNAL_SIZE)
      throw new RangeError(`chat-emulator: journalSize must be a whole number from 0 to ${MAX_JOURNAL_SIZE}, not ${capacity}.`);
    this.ring = new Ring(capacity);
  }

  /** Bytes the journal holds off the heap (its bound: about 20 KiB per entry of capacity). */
  get bytes(): number {
    return this.ring.bytes;
  }

  get enabled(): boolean {
    return this.capacity > 0;
  }

  get size(): number {
    return this.count;
  }

  nextId(): number {
    return ++this.seq;
  }

  /** Copies `r` into the ring (`r` itself is not kept). */
  record(r: Recorded): void {
    if (!this.enabled) return;
    const slot = this.head;
    this.ring.write(slot, r);
    this.head = (this.head + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
    if (this.waiters.size === 0 && this.listeners.size === 0) return;
    const stored = this.ring.read(slot);
    for (const listener of this.listeners) listener(stored);
    for (const w of this.waiters) {
      if (w.matches(stored)) {
        this.waiters.delete(w);
        w.resolve(stored);
      }
    }
  }

  /** Calls `listener` with every entry recorded from now on (the live journal stream); returns the unsubscribe. */
  subscribe(listener: (r: Stored) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Oldest first. */
  private *entries(): Generator<Stored> {
    const start = (this.head - this.count + this.capacity) % this.capacity;
    for (let i = 0; i < this.count; i++) yield this.ring.read((start + i) % this.capacity);
  }

  /** Matching entries, oldest first; with `limit`, the newest `limit` of them. */
  list(filter: JournalFilter = {}): JournalEntry[] {
    const matches = matcher(filter);
    const out: Stored[] = [];
    for (const r of this.entries()) if (matches(r)) out.push(r);
    const kept = filter.limit !== undefined ? out.slice(Math.max(0, out.length - filter.limit)) : out;
    return kept.map(entryView);
  }

  clear(): void {
    this.ring.clear();
    this.head = 0;
    this.count = 0;
  }

  /**
   * The first entry (oldest first) matching `filter`, already journaled or the next to arrive; undefined after
   * `timeoutMs`, or when `signal` aborts. Entries are journaled once answered, so the entry has its response.
   */
  wait(filter: JournalFilter, timeoutMs: number, signal?: AbortSignal): Promise<JournalEntry | undefined> {
    const matches = matcher(filter);
    for (const r of this.entries()) if (matches(r)) return Promise.resolve(entryView(r));
    return new Promise((resolve) => {
      const done = (r: Stored | undefined) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", abort);
        this.waiters.delete(waiter);
        resolve(r && entryView(r));
      };
      const abort = () => done(undefined);
      const waiter: Waiter = { matches, resolve: done };
      const timer = setTimeout(done, timeoutMs, undefined);
      signal?.addEventListener("abort", abort);
      this.waiters.add(waiter);
    });
  }

  /** Programmatic form of `wait`: rejects when nothing matching arrives in time. */
  async waitFor(filter: JournalFilter = {}, timeoutMs = 5000): Promise<JournalEntry> {
    const entry = await this.wait(filter, timeoutMs);
    if (!entry) throw new Error(`chat-emulator: no request matching ${JSON.stringify(filter)} within ${timeoutMs} ms`);
    return entry;
  }
}
