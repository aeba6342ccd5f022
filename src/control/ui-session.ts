import { createHmac, timingSafeEqual } from "node:crypto";
import type { Ctx } from "../http/context.js";

/**
 * The web inspector's sign-in: a browser cannot send `x-emulator-token` when it opens a page, so
 * `/_emulator/ui?token=T` (or the sign-in form) exchanges the token for an HttpOnly, SameSite=Strict cookie that
 * the control API accepts in place of the header. The cookie holds a value derived from the token, never the
 * token itself, and counts only on requests from the inspector's own origin: SameSite treats other ports of the
 * same host as the same site, so `Sec-Fetch-Site` (or, from older browsers, `Origin`) must say same-origin.
 */

export const INSPECTOR_PATH = "/_emulator/ui";

/** Sent by the inspector on its reads; see control/middleware.ts. */
export const INSPECTOR_HEADER = "x-emulator-inspector";

const COOKIE = "chat_emulator_ui";

const derived = new Map<string, Buffer>();

function sessionValue(token: string): Buffer {
  let value = derived.get(token);
  if (!value) {
    value = Buffer.from(createHmac("sha256", token).update("chat-emulator inspector session").digest("base64url"));
    derived.set(token, value);
  }
  return value;
}

/**
 * The Set-Cookie value that signs the browser in. The name carries the port, so that emulators on several ports
 * of one host (cookies ignore ports) do not sign each other out.
 */
export function sessionCookie(c: Ctx, token: string): string {
  const url = new URL(c.req.url);
  const name = url.port ? `${COOKIE}_${url.port}` : COOKIE;
  const secure = url.protocol === "https:" ? "; Secure" : "";
  return `${name}=${sessionValue(token).toString()}; Path=/_emulator; HttpOnly; SameSite=Strict${secure}`;
}

function sameOrigin(c: Ctx): boolean {
  const site = c.req.header("sec-fetch-site");
  if (site !== undefined) return site === "same-origin" || site === "none";
  const origin = c.req.header("origin");
  return origin === undefined || origin === new URL(c.req.url).origin;
}

/** Whether the request carries the inspector's cookie for `token` and comes from the inspector's own origin. */
export function hasSession(c: Ctx, token: string): boolean {
  const cookies = c.req.header("cookie");
  if (!cookies || !sameOrigin(c)) return false;
  const want = sessionValue(token);
  for (const part of cookies.split(";")) {
    const eq = part.indexOf("=");
    if (eq === -1 || !part.slice(0, eq).trim().startsWith(COOKIE)) continue;
    const got = Buffer.from(part.slice(eq + 1).trim());
    if (got.length === want.length && timingSafeEqual(got, want)) return true;
  }
  return false;
}
