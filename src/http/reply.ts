import type { Ctx } from "./context.js";
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
