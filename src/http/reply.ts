import type { Ctx } from "./context.js";
import { ApiError } from "./errors.js";
import type { Pagination } from "./pagination.js";
import type { ReadCache } from "../store/read-cache.js";
import type { UserRecord } from "../store/types.js";

/** The JSON text a context answered (kept for the request journal), set by `answerJson`. */
export const ANSWER_TEXT = Symbol("answerText");
/** Set on a context whose answer came from the read cache (`okCached`, `pageCached`): the request only read. */
const CACHED_READ = Symbol("cachedRead");
type Answering = Ctx & { [ANSWER_TEXT]?: string; [CACHED_READ]?: true };

const JSON_HEADERS: Readonly<Record<string, string>> = { "Content-Type": "application/json" };

/** An answer of JSON text already serialized, as `c.json` would send it. */
export function answerJson(c: Ctx, text: string, arg?: unknown, headers?: Record<string, string>): Response {
  (c as Answering)[ANSWER_TEXT] = text;
  const body = c.body as (text: string, arg?: unknown, headers?: Record<string, string>) => Response;
  // Neither Hono nor the Node adapter changes the headers object it is given: one shared object will do.
  return body(text, arg, headers ? { ...JSON_HEADERS, ...headers } : JSON_HEADERS);
}

/**
 * `ok(c, build())` for a read of one record whose answer depends on the record and the viewer only: the text is
 * reused from the store's read cache while nothing has changed (store/read-cache.ts).
 */
export function okCached(c: Ctx, record: object, viewer: UserRecord | undefined, build: () => unknown): Response {
  return answerJson(c, cachedReads(c).text(record, viewer, () => JSON.stringify({ data: build() })));
}

/**
 * `page(c, items.map(build), pagination, extra)` for a list whose items each answer what their record (an object
 * that stands for it while it is unchanged) and `shape` (the options that change an item's view) decide: each
 * item's text is reused from the store's read cache while nothing has changed, like `okCached`.
 */
export function pageCached<T>(
  c: Ctx,
  items: readonly T[],
  recordOf: (item: T) => object,
  shape: object,
  build: (item: T) => unknown,
  pagination: Pagination,
  extra?: Record<string, unknown>,
): Response {
  const reads = cachedReads(c);
  const textOf = (item: T) => reads.text(recordOf(item), shape, () => JSON.stringify(build(item)));
  return answerItems(c, items, textOf, { meta: { pagination }, ...extra });
}

/**
 * `c.json({ data: views, ...rest })` with each item's view already written as JSON text by `textOf`: the answer is
 * assembled around those texts, and `rest` serialized as `c.json` would.
 */
export function answerItems<T>(c: Ctx, items: readonly T[], textOf: (item: T) => string, rest: Record<string, unknown>): Response {
  let text = '{"data":[';
  for (let i = 0; i < items.length; i++) text += (i === 0 ? "" : ",") + textOf(items[i]);
  const tail = JSON.stringify(rest); // its fields follow the data's, without the opening brace
  return answerJson(c, tail === "{}" ? `${text}]}` : `${text}],${tail.slice(1)}`);
}

/** The store's read cache, for a request that only reads and answers from it (it then keeps the cache when it ends). */
function cachedReads(c: Ctx): ReadCache {
  (c as Answering)[CACHED_READ] = true;
  return c.get("emulator").store.reads;
}

/** Whether the context's answer came from `okCached` or `pageCached` (nothing else ran that could change state). */
export const wasCachedRead = (c: Ctx): boolean => (c as Answering)[CACHED_READ] === true;

/** The platform wraps every payload in `data`. */
export function ok(c: Ctx, data: unknown) {
  return c.json({ data });
}

/** `{"data": {"success": true, "message": ...}}` for operations with nothing else to return. */
export function success(c: Ctx, message: string) {
  return c.json({ data: { success: true, message } });
}

export function page(c: Ctx, data: unknown[], pagination: Pagination, extra?: Record<string, unknown>) {
  return c.json({ data, meta: { pagination }, ...extra });
}

/** One failed item of a bulk reply: the error in the envelope's shape next to `success: false` (others rethrow). */
export function bulkFailure(e: unknown): Record<string, unknown> {
  if (!(e instanceof ApiError)) throw e;
  return { success: false, message: e.message, error: e.toBody().error };
}

/** The `{updatedAt, affix: "prepend"}` cursor of page-style lists: the last item's time, or now for an empty page. */
export function prependCursor(c: Ctx, lastTime: number | undefined) {
  return { updatedAt: lastTime ?? c.get("emulator").clock.now(), affix: "prepend" };
}
