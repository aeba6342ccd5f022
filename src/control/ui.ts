import { readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { Hono } from "hono";
import type { Ctx, Env } from "../http/context.js";
import { apiError } from "../http/errors.js";
import { readText } from "../http/validate.js";
import { PACKAGE_ROOT } from "../paths.js";
import { same, TOKEN_HEADER } from "./token.js";
import { hasSession, INSPECTOR_PATH, sessionCookie } from "./ui-session.js";

/**
 * The web inspector (`/_emulator/ui`): the page and the files that `npm run build` bundles from `ui/` into
 * `dist/ui/`, served from memory, found from the package root (paths.ts) wherever this code runs.
 * With a control token, the page signs the browser in (control/ui-session.ts) and the files need the session.
 */

const DIST_UI = fileURLToPath(new URL("dist/ui/", PACKAGE_ROOT));

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".map": "application/json",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

const SECURITY_HEADERS = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
};

/** Everything the page may load comes from this origin: nothing from the internet. */
const PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** The sign-in form holds one token. */
const SIGN_IN_LIMIT = 4 * 1024;

interface StaticFile {
  body: Uint8Array;
  type: string;
}

let files: Map<string, StaticFile> | undefined;

/** The built files by path under dist/ui ("index.html", "assets/index-1a2b3c.js"), read once. */
function builtFiles(): Map<string, StaticFile> {
  if (files) return files;
  const found = new Map<string, StaticFile>();
  let names: string[] = [];
  try {
    names = readdirSync(DIST_UI, { recursive: true }) as string[];
  } catch {
    // not built: the page says so
  }
  for (const name of names) {
    const full = join(DIST_UI, name);
    if (!statSync(full).isFile()) continue;
    found.set(name.split(sep).join("/"), {
      body: readFileSync(full),
      type: TYPES[extname(name)] ?? "application/octet-stream",
    });
  }
  // Cache only a complete build, so that building while the emulator runs is picked up.
  if (found.has("index.html")) files = found;
  return found;
}

function send(c: Ctx, file: StaticFile, cache: string, headers: Record<string, string> = {}): Response {
  return c.body(file.body as Uint8Array<ArrayBuffer>, 200, { "content-type": file.type, "cache-control": cache, ...SECURITY_HEADERS, ...headers });
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** A small self-contained page (sign-in, not built): no script, inline style only. */
function notice(c: Ctx, status: 401 | 503, title: string, body: string): Response {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${title} · chat-emulator</title><style>
body{font:15px/1.5 system-ui,sans-serif;background:#f4f5f7;color:#1d2430;display:grid;place-items:center;min-height:100vh;margin:0}
main{background:#fff;border:1px solid #dde1e7;border-radius:10px;padding:28px 32px;width:380px}
h1{font-size:18px;margin:0 0 12px}input{width:100%;box-sizing:border-box;padding:8px;margin:8px 0 12px;border:1px solid #c4cad3;border-radius:6px}
button{padding:8px 16px;border:0;border-radius:6px;background:#3559e0;color:#fff;font-weight:600}.error{color:#b42318}code{background:#eef0f4;padding:1px 4px;border-radius:4px}
</style></head><body><main><h1>${title}</h1>${body}</main></body></html>`;
  return c.html(html, status, {
    "cache-control": "no-store",
    "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
    ...SECURITY_HEADERS,
  });
}

function signInPage(c: Ctx, error?: string): Response {
  return notice(
    c,
    401,
    "Sign in to the inspector",
    `<p>This emulator was started with <code>--control-token</code>. Enter that token to open the inspector
(or open <code>${INSPECTOR_PATH}?token=…</code>).</p>${error ? `<p class="error">${escapeHtml(error)}</p>` : ""}
<form method="post" action="${INSPECTOR_PATH}"><label>Control token<input type="password" name="token" autocomplete="current-password" autofocus></label>
<button type="submit">Open the inspector</button></form>`,
  );
}

/** Trades a token for the session cookie and reloads the page without the token in its address. */
function signIn(c: Ctx, given: string | undefined): Response {
  const token = c.get("emulator").control.token;
  if (token !== undefined) {
    if (!given || !same(given, token)) return signInPage(c, "That is not the control token.");
    c.header("set-cookie", sessionCookie(c, token));
  }
  return c.redirect(INSPECTOR_PATH, 303);
}

function page(c: Ctx): Response {
  const token = c.get("emulator").control.token;
  const given = c.req.query("token");
  if (given !== undefined) return signIn(c, given);
  if (token !== undefined) {
    const header = c.req.header(TOKEN_HEADER);
    if (!(header ? same(header, token) : hasSession(c, token))) return signInPage(c);
  }
  const index = builtFiles().get("index.html");
  if (!index)
    return notice(c, 503, "The inspector is not built", "<p>Run <code>npm run build</code> in the chat-emulator folder, then reload.</p>");
  return send(c, index, "no-store", { "content-security-policy": PAGE_CSP });
}

/** `/_emulator/ui` and its files. Mounted inside the control API, behind requireControlToken. */
export const inspector = new Hono<Env>()
  .get("/ui", page)
  .post("/ui", async (c) => {
    const form = new URLSearchParams(await readText(c, SIGN_IN_LIMIT));
    return signIn(c, form.get("token") ?? undefined);
  })
  .get("/ui/*", (c) => {
    const name = c.req.path.slice(INSPECTOR_PATH.length + 1);
    const file = builtFiles().get(name);
    if (!file) throw apiError("ERR_API_NOT_FOUND");
    // Vite names bundled files by content hash: they never change under the same name.
    return send(c, file, name.startsWith("assets/") ? "public, max-age=31536000, immutable" : "no-cache");
  });
