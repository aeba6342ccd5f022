import type { IncomingMessage } from "node:http";
import { ApiError, badRequest, keyedMap, type Details } from "./errors.js";
import { checkFields } from "./body-check.js";
import type { Schema } from "./schema.js";
import { header, type Ctx } from "./context.js";
import { queryParams } from "./advice.js";
import { readParam, type QueryParam } from "./query-spec.js";

/**
 * Request validation with the platform's (Laravel-style) sentences, collected per field into `details`.
 * Bodies are described by small declarative specs; query strings by the `Query` reader.
 */

export type Body = Record<string, unknown>;

export const BODY_LIMIT_BYTES = 10 * 1024;

/**
 * How deep a JSON body may nest (objects and arrays). Real payloads stay far below; a body nested thousands deep
 * (10 KB is enough) would be stored, then break every later read, export and save of the state with a stack overflow.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Reads a JSON object body: empty is `{}`; too large (counted as the bytes arrive), non-JSON content types,
 * malformed JSON and JSON nested deeper than `maxDepth` are refused before anything reads the content.
 */
export async function readBody(c: Ctx, limit = BODY_LIMIT_BYTES, maxDepth = MAX_JSON_DEPTH): Promise<Body> {
  const text = await readText(c, limit);
  if (text.length === 0) return {};
  if (!isJsonMediaType(header(c, "content-type")))
    throw new ApiError("ERR_BAD_REQUEST", 415, "The request body must be JSON. Please send it with Content-Type: application/json.");
  if (nestedDeeper(text, maxDepth))
    throw badRequest({ body: [`The request body may not be nested more than ${maxDepth} levels deep.`] });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw badRequest({ body: ["The request body must be valid JSON."] });
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw badRequest({ body: ["The request body must be a JSON object."] });
  return parsed as Body;
}

/** No content type (read as JSON, as the platform does), `application/json` or a `+json` type, with parameters. */
function isJsonMediaType(type: string | undefined): boolean {
  return type === undefined || /^\s*application\/([\w.-]+\+)?json\s*(;|$)/i.test(type);
}

/** Whether `text` opens more than `max` arrays and objects inside each other (brackets in strings do not count). */
export function nestedDeeper(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) i++; // backslash: skip the escaped character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x7b || ch === 0x5b) {
      if (++depth > max) return true;
    } else if (ch === 0x7d || ch === 0x5d) depth--;
  }
  return false;
}

/** What the request's body readers share (Hono's body cache): the one read of the body, and its text. */
type BodyCache = { bytes?: Promise<Buffer>; text?: Promise<string> };
const bodyCache = (c: Ctx) => c.req.bodyCache as BodyCache;

/**
 * The body as text, refused with 413 once more than `limit` bytes have arrived (a declared Content-Length over the
 * limit is refused before reading; a chunked body is counted as it streams in and never buffered past the limit).
 * Served by Node, it is read straight from Node's request stream (turning it into a Fetch body stream first costs
 * more than the rest of a small POST).
 */
export function readText(c: Ctx, limit: number): Promise<string> {
  const cache = bodyCache(c);
  if (cache.text) return cache.text;
  if (!cache.bytes && Number(header(c, "content-length") ?? 0) > limit) return Promise.reject(tooLarge(limit));
  return (cache.text = readBytes(c, limit).then((bytes) => bytes.toString("utf8")));
}

/**
 * The body as bytes (files), counted and refused past `limit` like `readText`. Every reader of a body goes
 * through here: the body is read once and kept for later readers (the request journal reads it after the
 * handler did), since a Node stream once read has nothing left for a second reader, nor an `end` to wait for.
 */
export function readBytes(c: Ctx, limit: number): Promise<Buffer> {
  const cache = bodyCache(c);
  if (cache.bytes) return cache.bytes;
  if (Number(header(c, "content-length") ?? 0) > limit) return Promise.reject(tooLarge(limit));
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming?.readableEnded) return (cache.bytes = Promise.resolve(Buffer.alloc(0))); // drained: nothing left
  return (cache.bytes = incoming ? readIncoming(incoming, limit) : readStream(c.req.raw.body, limit));
}

/** The body's text if a reader has read it (or is reading it), else undefined. */
export function bodyTextRead(c: Ctx): Promise<string> | undefined {
  const cache = bodyCache(c);
  return cache.text ?? (cache.bytes && readText(c, Infinity));
}

async function readIncoming(incoming: IncomingMessage, limit: number): Promise<Buffer> {
  // A small request arrives in one piece, but Node's parser hands it over in steps (headers, body, end), each
  // followed by the microtasks and ticks it queued: only once the parser's turn is over (setImmediate) has it
  // buffered the whole body, which one read() then takes without switching the stream to flowing mode. The answer
  // then goes out after the poll phase too, with the others that phase read (see lane.ts).
  await new Promise((resolve) => setImmediate(resolve));
  if (incoming.complete && !incoming.readableDidRead) {
    const all = incoming.read() as Buffer | null;
    if (all !== null && all.length > limit) throw tooLarge(limit);
    return all ?? Buffer.alloc(0);
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      // Stop reading: the answer closes the connection rather than take in the rest.
      incoming.off("data", onData);
      incoming.pause();
      chunks.length = 0;
      reject(tooLarge(limit));
    };
    incoming.on("data", onData);
    incoming.on("end", () => resolve(Buffer.concat(chunks)));
    incoming.on("error", reject);
  });
}

/** In-process (`app.request()`): the Fetch body, counted the same way. */
async function readStream(body: ReadableStream<Uint8Array> | null, limit: number): Promise<Buffer> {
  if (body === null) return Buffer.alloc(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/**
 * The body as a stream of byte chunks, for a JSON body too large to hold as text (a whole state, which
 * store/state-reader.ts reads a part at a time): a declared Content-Length over `limit` and a non-JSON type are
 * refused at once; the reader counts the bytes as they arrive and throws `tooLarge(limit)` past the limit.
 */
export function jsonBodyChunks(c: Ctx, limit: number): AsyncIterable<Uint8Array> {
  if (Number(header(c, "content-length") ?? 0) > limit) throw tooLarge(limit);
  const type = header(c, "content-type");
  if (type !== undefined && !isJsonMediaType(type))
    throw new ApiError("ERR_BAD_REQUEST", 415, "The request body must be JSON. Please send it with Content-Type: application/json.");
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  // Not destroyed when the reader stops early: the 413 still goes out (and closes the connection).
  if (incoming) return incoming.iterator({ destroyOnReturn: false });
  return (c.req.raw.body ?? []) as unknown as AsyncIterable<Uint8Array>; // for await takes both
}

export function tooLarge(limit: number): ApiError {
  const size = limit >= 1024 * 1024 ? `${limit / 1024 / 1024} MB` : `${limit / 1024} KB`;
  return new ApiError("ERR_BAD_REQUEST", 413, `The request body may not be greater than ${size}.`, undefined, undefined, {
    Connection: "close",
  });
}

export type { FieldSpec, Schema } from "./schema.js";

/**
 * Validates `body` against a field map that no declaration states (a batch's items, a body chosen by another
 * field, settings whose required fields depend on what is stored): the declared operations' validator
 * (http/body-check.ts) with the same sentences, compiled once per map.
 */
export function validate(body: Body, schema: Schema): void {
  checkFields(body, schema);
}

/** An inclusive `[from]`/`[to]` range of Unix seconds. */
export const RANGE = ["from", "to"] as const;
export type Range = Partial<Record<(typeof RANGE)[number], number>>;

export function inRange(value: number | undefined, r: Range): boolean {
  return value !== undefined && (r.from === undefined || value >= r.from) && (r.to === undefined || value <= r.to);
}

/** Callbacks with basic auth on (webhooks, bots) need both credentials. */
export function requireCredentials(target: { useBasicAuth: boolean; username?: string; password?: string }): void {
  if (!target.useBasicAuth) return;
  const details: Details = {};
  for (const k of ["username", "password"] as const)
    if (!target[k]) details[k] = [`The ${k} field is required when use basic auth is true.`];
  if (Object.keys(details).length > 0) throw badRequest(details);
}

export function asBool(v: unknown): boolean {
  return v === true || v === 1 || v === "true" || v === "1";
}

/**
 * The control plane's query reader: the declared parameters' coercions (http/query-spec.ts `readParam`), read one
 * at a time; `done()` throws the problems as one ERR_BAD_REQUEST. Platform operations declare their parameters
 * instead, parsed before their handlers run.
 */
export class Query {
  private readonly details: Details = keyedMap();
  /** Every value of each parameter (none without a query string: the common request scans nothing). */
  private readonly params: Record<string, string[]> | undefined;
  private readonly alias: boolean;
  private readonly failed = (name: string, message: string) => void (this.details[name] ??= []).push(message);
  constructor(c: Ctx) {
    this.params = c.req.url.includes("?") ? queryParams(c) : undefined;
    this.alias = c.get("actor") !== undefined;
  }

  private read(name: string, p: QueryParam): unknown {
    return readParam(name, p, this.params, this.alias, this.failed);
  }

  str(name: string): string | undefined {
    return this.read(name, { kind: "string" }) as string | undefined;
  }

  int(name: string, opts: { def: number; min?: number; max?: number }): number {
    return this.read(name, { kind: "integer", ...opts }) as number;
  }

  optInt(name: string): number | undefined {
    return this.read(name, { kind: "integer" }) as number | undefined;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[]): T | undefined {
    return this.read(name, { kind: "oneOf", allowed }) as T | undefined;
  }

  fail(name: string, message: string): void {
    this.failed(name, message);
  }

  done(): void {
    if (Object.keys(this.details).length > 0) throw badRequest(this.details);
  }
}
