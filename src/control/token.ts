import { timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import type { Env } from "../http/context.js";
import { apiError } from "../http/errors.js";
import { hasSession, INSPECTOR_PATH } from "./ui-session.js";

/** The header a control call carries when the emulator was started with `--control-token`. */
export const TOKEN_HEADER = "x-emulator-token";

export function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * With a control token set, every control call must carry it, except `GET /_emulator/health` (readiness probes
 * cannot send headers), the package's JSON Schemas (`GET /_emulator/schemas/...`: editors send none either, and
 * they hold nothing of the state), and `/_emulator/ui`, the inspector's page, which signs the browser in itself
 * (control/ui.ts). The inspector's cookie stands for the header (control/ui-session.ts). Runs before routing
 * inside `/_emulator`, so unknown control paths answer 401 too.
 */
export const requireControlToken: MiddlewareHandler<Env> = async (c, next) => {
  const token = c.get("emulator").control.token;
  if (token === undefined) return next();
  if ((c.req.method === "GET" || c.req.method === "HEAD") && (c.req.path === "/_emulator/health" || c.req.path.startsWith("/_emulator/schemas/"))) return next();
  if (c.req.path === INSPECTOR_PATH) return next();
  const given = c.req.header(TOKEN_HEADER);
  if (!given && hasSession(c, token)) return next();
  if (!given) throw apiError("AUTH_ERR_EMPTY_EMULATOR_TOKEN");
  if (!same(given, token)) throw apiError("AUTH_ERR_INVALID_EMULATOR_TOKEN");
  return next();
};

/** Whether binding to `host` keeps the emulator on this machine. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || h.startsWith("127.") || h === "::ffff:127.0.0.1";
}
