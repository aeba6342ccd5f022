import { isIP } from "node:net";
import type { MiddlewareHandler } from "hono";
import { header, type Ctx, type Env } from "../http/context.js";
import { apiError } from "../http/errors.js";
import { INSPECTOR_PATH } from "./ui-session.js";

/**
 * What keeps web pages away from the control API and the inspector (`/_emulator/...`), token or not:
 * - DNS rebinding: a page on `evil.example` whose name now points at 127.0.0.1 is same-origin with itself, so the
 *   Host it sends must be one the emulator is really reached under: an IP literal, `localhost`, a single-label
 *   name (a CI service container such as `chat-emulator:4780`) or a name given with `--allowed-host`.
 * - Cross-site requests: a form or `fetch(..., {mode: "no-cors"})` needs no CORS preflight; it is refused when
 *   the browser says it comes from another site or origin (`Sec-Fetch-Site`, `Origin`), and a body must be JSON
 *   (a type no page can send cross-origin without a preflight that the emulator never grants).
 * Tools that send neither header (curl, test code, the vitest helper) pass.
 */

/** The host name of a Host value (`[::1]:4780` -> `::1`, `Example:80` -> `example`). */
export function hostName(host: string): string {
  const h = host.toLowerCase();
  if (h.startsWith("[")) return h.slice(1, h.indexOf("]") === -1 ? undefined : h.indexOf("]"));
  const colon = h.indexOf(":");
  return (colon === -1 ? h : h.slice(0, colon)).replace(/\.$/, "");
}

/** Whether the emulator answers control calls addressed to `host`. */
export function hostAllowed(host: string, allowed: ReadonlySet<string>): boolean {
  const name = hostName(host);
  return name === "localhost" || isIP(name) !== 0 || (name !== "" && !name.includes(".")) || allowed.has(name);
}

/** The request's own `host[:port]`, as the URL was built from the Host header (or an absolute request target). */
function ownHost(c: Ctx): string {
  const url = c.req.url;
  const start = url.indexOf("://") + 3;
  const end = url.indexOf("/", start);
  return url.slice(start, end === -1 ? undefined : end).toLowerCase();
}

/** Where a browser says the request comes from, when that is not this origin; undefined when same-origin or no browser. */
export function foreignSource(c: Ctx): string | undefined {
  const site = header(c, "sec-fetch-site");
  if (site === "cross-site" || site === "same-site") return `a ${site} page`;
  const origin = header(c, "origin");
  if (origin === undefined) return undefined;
  const start = origin.indexOf("://");
  if (start === -1 || origin.slice(start + 3).toLowerCase() !== ownHost(c)) return `the origin ${origin.slice(0, 200)}`;
  return undefined;
}

/** `application/json`, with or without parameters (`; charset=utf-8`), and nothing else. */
export function isJsonType(type: string | undefined): boolean {
  return type !== undefined && /^\s*application\/json\s*(;|$)/i.test(type);
}

function hasBody(c: Ctx): boolean {
  const length = header(c, "content-length");
  if ((length !== undefined && length !== "0") || header(c, "transfer-encoding") !== undefined) return true;
  // In-process (`app.request()`), a Fetch request need not say how long its body is.
  return !(c.env as { incoming?: unknown } | undefined)?.incoming && length === undefined && c.req.raw.body !== null;
}

/** The form the inspector's sign-in page posts (same-origin, and it only compares the token). */
const isSignInForm = (c: Ctx) =>
  c.req.path === INSPECTOR_PATH && /^\s*application\/x-www-form-urlencoded\s*(;|$)/i.test(header(c, "content-type") ?? "");

export const guardControl: MiddlewareHandler<Env> = (c, next) => {
  const host = ownHost(c);
  if (!hostAllowed(host, c.get("emulator").control.allowedHosts)) throw apiError("ERR_HOST_NOT_ALLOWED", { host: hostName(host).slice(0, 200) });
  const from = foreignSource(c);
  if (from !== undefined) throw apiError("ERR_CROSS_ORIGIN_REQUEST", { from });
  if (c.req.method !== "GET" && c.req.method !== "HEAD" && hasBody(c) && !isJsonType(header(c, "content-type")) && !isSignInForm(c))
    throw apiError("ERR_UNSUPPORTED_MEDIA_TYPE");
  return next();
};
