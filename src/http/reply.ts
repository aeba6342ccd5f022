import type { Ctx } from "./context.js";
import { ApiError } from "./errors.js";
import type { Pagination } from "./pagination.js";

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
