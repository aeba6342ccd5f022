import type { Ctx } from "../../http/context.js";
import { ok } from "../../http/reply.js";

/**
 * Extension operations answer with the extension service's reply wrapped in the management envelope:
 * `{data: {statusCode: 200, success: true, responseTime, body}}` (responseTime in milliseconds, as a float).
 */
export function serviceReply(c: Ctx, body: unknown, startedAt: number) {
  const responseTime = Math.round((performance.now() - startedAt) * 1e6) / 1e6;
  return ok(c, { statusCode: 200, success: true, responseTime, body });
}
