/**
 * How `compare` holds a recorded answer against the emulator's. It knows the platform:
 * - values the platform generates (message and other record ids, auth tokens, session ids, keys, redacted secrets)
 *   are not compared but learned: the first time a recorded one meets the emulator's, the pair is kept (IdMap), and
 *   from then on the recorded value must answer as the emulator's, wherever it appears; later requests are rewritten
 *   with it;
 * - timestamps and durations are compared by JSON type, and timestamps also by order among a list's items (a list
 *   sorted newest first must stay so), never by value; so are the addresses a login's settings give (hosts, ports);
 * - everything else (statuses, error codes, the set of keys, JSON types, list lengths and orders, and every value
 *   the request determined: names, scopes, texts, counts) is compared exactly.
 */

export interface Difference {
  /** Where: `status`, or a JSON path into the answer's body (`data.members[2].scope`). */
  path: string;
  kind: "status" | "missing" | "extra" | "type" | "value" | "length" | "order" | "id";
  /** The values (a missing or extra key's: its JSON text, cut to 200 characters). */
  recorded?: unknown;
  emulator?: unknown;
}

/** Keys whose values the platform generates. */
const GENERATED = new Set(["id", "_id", "authToken", "sessionId", "conversationId", "apiKey", "revisionId", "rid", "tid", "mid", "deviceId", "callToken", "token", "jwt", "pushToken", "requestId"]);
/** Keys whose values name a generated id elsewhere (a message's parent, a reaction's message). */
const REFERENCES = new Set(["parentId", "messageId", "quotedMessageId", "lastMessageId", "readId", "deliveredId", "lastReadMessageId", "lastDeliveredMessageId"]);
const TIMESTAMP = /(At|Time|time|Timestamp|timestamp|Date|date|_at)$|^(time|timestamp|date|expires|exp|iat|nbf|lastActive)$/;
const DURATION = /^(duration|durationMs|took|elapsed|elapsedMs|latency|latencyMs|ttl)$|Duration$/;
/** Error texts that carry generated values (ids, times) are compared by type. */
const LOOSE = new Set(["devMessage"]);
/** Where the client is to connect (the login's settings): the recording's hosts, not the emulator's, by type. */
const ADDRESS = /(HOST|PORT|_URL)$|^(host|port)$/;
const REDACTED = /^REDACTED-[0-9a-f]{16}$/;

/** Recorded value -> the emulator's, for every generated value met so far. */
export class IdMap {
  private readonly map = new Map<string, string>();

  learn(recorded: string | number, emulator: string | number): void {
    if (!this.map.has(String(recorded))) this.map.set(String(recorded), String(emulator));
  }

  get(recorded: string | number): string | undefined {
    return this.map.get(String(recorded));
  }

  /** A header value or a whole string: replaced when it is a known value. */
  rewriteText(value: string): string {
    return this.map.get(value) ?? value;
  }

  /** Path segments and query values that are known values. */
  rewritePath(path: string): string {
    const [p, q] = path.split("?", 2);
    const segments = p.split("/").map((s) => {
      const decoded = safeDecode(s);
      const mapped = this.map.get(decoded);
      return mapped === undefined ? s : encodeURIComponent(mapped);
    });
    if (q === undefined) return segments.join("/");
    const params = new URLSearchParams(q);
    for (const [k, v] of [...params]) {
      const mapped = this.map.get(v);
      if (mapped !== undefined) params.set(k, mapped);
    }
    return `${segments.join("/")}?${params.toString()}`;
  }
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** A request body with the recorded generated values replaced by the emulator's (strings anywhere, numbers under id keys). */
export function rewrite(value: unknown, ids: IdMap, key?: string): unknown {
  if (typeof value === "string") return ids.rewriteText(value);
  if (typeof value === "number" && key !== undefined && (GENERATED.has(key) || REFERENCES.has(key))) {
    const mapped = ids.get(value);
    return mapped !== undefined && /^\d+$/.test(mapped) ? Number(mapped) : value;
  }
  if (Array.isArray(value)) return value.map((v) => rewrite(v, ids, key));
  if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rewrite(v, ids, k)]));
  return value;
}

export const jsonType = (v: unknown): string => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

export function diffAnswers(recorded: { status: number; body: unknown }, emulator: { status: number; body: unknown }, ids: IdMap): Difference[] {
  const out: Difference[] = [];
  if (recorded.status === emulator.status) {
    diffValue(recorded.body, emulator.body, "", undefined, ids, out);
    return out;
  }
  // Another status is one difference: the bodies of an answer and an error have nothing to compare but the codes.
  out.push({ path: "status", kind: "status", recorded: recorded.status, emulator: emulator.status });
  const code = (body: unknown) => ((body as { error?: { code?: unknown } } | undefined)?.error?.code);
  if (code(recorded.body) !== code(emulator.body)) out.push({ path: "error.code", kind: "value", recorded: code(recorded.body), emulator: code(emulator.body) });
  return out;
}

function join(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  return path === "" ? key : `${path}.${key}`;
}

function diffValue(rec: unknown, emu: unknown, path: string, key: string | undefined, ids: IdMap, out: Difference[]): void {
  const where = path === "" ? "(body)" : path;
  const type = jsonType(rec);
  if (type !== jsonType(emu)) {
    out.push({ path: where, kind: "type", recorded: type, emulator: jsonType(emu) });
    return;
  }
  if (type === "array") return diffArray(rec as unknown[], emu as unknown[], path, key, ids, out);
  if (type === "object") {
    const r = rec as Record<string, unknown>;
    const e = emu as Record<string, unknown>;
    for (const k of Object.keys(r)) if (!(k in e)) out.push({ path: join(path, k), kind: "missing", recorded: cut(r[k]) });
    for (const k of Object.keys(e)) if (!(k in r)) out.push({ path: join(path, k), kind: "extra", emulator: cut(e[k]) });
    for (const k of Object.keys(r)) if (k in e) diffValue(r[k], e[k], join(path, k), k, ids, out);
    return;
  }
  if (type !== "string" && type !== "number") {
    if (rec !== emu) out.push({ path: where, kind: "value", recorded: rec, emulator: emu });
    return;
  }
  const value = rec as string | number;
  if (key !== undefined && (TIMESTAMP.test(key) || DURATION.test(key) || LOOSE.has(key) || ADDRESS.test(key))) return;
  const generated = (key !== undefined && GENERATED.has(key)) || (typeof value === "string" && REDACTED.test(value));
  // A number names a generated id only under an id key; a string that is a generated value is one anywhere.
  const known = typeof value === "string" || generated || (key !== undefined && REFERENCES.has(key)) ? ids.get(value) : undefined;
  if (generated || known !== undefined) {
    if (known === undefined) {
      ids.learn(value, emu as string | number);
      return;
    }
    if (known !== String(emu)) out.push({ path: where, kind: "id", recorded: rec, emulator: emu });
    return;
  }
  // An error's message names the ids of the request: the recording's, as the emulator's.
  const expected = path === "error.message" && typeof rec === "string" ? rec.replace(/[\w.-]+/g, (w) => ids.get(w) ?? w) : rec;
  if (expected !== emu) out.push({ path: where, kind: "value", recorded: rec, emulator: emu });
}

function diffArray(rec: unknown[], emu: unknown[], path: string, key: string | undefined, ids: IdMap, out: Difference[]): void {
  const where = path === "" ? "(body)" : path;
  if (rec.length !== emu.length) out.push({ path: where, kind: "length", recorded: rec.length, emulator: emu.length });
  const n = Math.min(rec.length, emu.length);
  for (let i = 0; i < n; i++) diffValue(rec[i], emu[i], join(path, i), key, ids, out);
  // Timestamps by order: where the recording's items go up (or down) in time, the emulator's must not go the other way.
  for (let i = 0; i + 1 < n; i++) {
    const [r0, r1, e0, e1] = [rec[i], rec[i + 1], emu[i], emu[i + 1]] as Record<string, unknown>[];
    if (![r0, r1, e0, e1].every((x) => jsonType(x) === "object")) continue;
    for (const k of Object.keys(r0)) {
      if (!TIMESTAMP.test(k)) continue;
      const values = [r0[k], r1[k], e0[k], e1[k]];
      if (!values.every((v) => typeof v === "number")) continue;
      const [a, b, c, d] = values as number[];
      if (Math.sign(b - a) * Math.sign(d - c) < 0)
        out.push({ path: `${path}[${i}..${i + 1}].${k}`, kind: "order", recorded: b > a ? "ascending" : "descending", emulator: d > c ? "ascending" : "descending" });
    }
  }
}

/** A value's JSON text, cut to `max` characters for a report. */
export function cut(value: unknown, max = 200): string {
  const text = JSON.stringify(value) ?? "undefined";
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}

/** A value as a report shows it: JSON, cut; a missing or extra key's value is JSON text already. */
export function shown(d: Difference, side: "recorded" | "emulator", max: number): string {
  const v = d[side];
  if (d.kind !== "missing" && d.kind !== "extra") return cut(v, max);
  const text = String(v);
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/** A body cut to a readable size for a report: as it is when short, else its JSON text cut. */
export function trim(value: unknown, max = 200): unknown {
  const text = JSON.stringify(value);
  return text === undefined || text.length <= max ? value : cut(value, max);
}
