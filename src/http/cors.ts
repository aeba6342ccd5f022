import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";

/**
 * CORS for the platform planes (REST, client, calls), so browser code such as the SDK can call them. It works on
 * Node's response before the app sees the request: setting a header there costs next to nothing, whereas the
 * stock middleware (headers set after the handler) measured at three times a bare route (stack-notes.md).
 * Preflights are answered here with 204 and never reach the app (no journal entry, no rules). The control plane
 * and the inspector (`/_emulator`) and the management plane stay same-origin: no CORS headers at all.
 */

const ALLOW_METHODS = "GET, POST, PUT, PATCH, DELETE";
/** What the SDK sends (`onbehalfofuser` on AI calls) and what backends send (`onbehalfof`). */
const ALLOW_HEADERS = "appid, authtoken, apikey, resource, sdk, content-type, accept, onbehalfofuser, onbehalfof";

function isPlatformPlane(req: IncomingMessage): boolean {
  const url = req.url ?? "/";
  if (url.startsWith("/_emulator") || url.startsWith("/apimgmt")) return false;
  const host = req.headers.host;
  return !(host !== undefined && /^apimgmt\./i.test(host));
}

export function withCors(listener: RequestListener): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    if (!isPlatformPlane(req)) return listener(req, res);
    res.setHeader("Access-Control-Allow-Origin", "*");
    if (req.method !== "OPTIONS" || req.headers["access-control-request-method"] === undefined) return listener(req, res);
    const headers: Record<string, string> = {
      "Access-Control-Allow-Methods": ALLOW_METHODS,
      "Access-Control-Allow-Headers": ALLOW_HEADERS,
      "Access-Control-Max-Age": "600",
    };
    // Chrome asks before a public page may call a loopback address (Private Network Access).
    if (req.headers["access-control-request-private-network"] === "true") headers["Access-Control-Allow-Private-Network"] = "true";
    res.writeHead(204, headers).end();
  };
}
