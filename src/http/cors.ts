import { ServerResponse, type IncomingMessage, type OutgoingHttpHeaders, type RequestListener } from "node:http";
import { internalPath, requestPath } from "./addressing.js";

/**
 * CORS for the platform planes (REST, client, calls), so browser code such as the SDK can call them. It works on
 * Node's response before the app sees the request, whereas the stock middleware (headers set after the handler)
 * measured at three times a bare route (stack-notes.md). The header travels in the one `writeHead` call that sends
 * the answer (see `CorsResponse`): a `setHeader` beforehand would put every header of the answer through Node's
 * progressive path (each name and value validated and stored again), a sixth of a small GET's instructions.
 * Preflights are answered here with 204 and never reach the app (no journal entry, no rules). The control plane
 * and the inspector (`/_emulator`) and the management plane stay same-origin: no CORS headers at all.
 */

const ALLOW_METHODS = "GET, POST, PUT, PATCH, DELETE";
/** What the SDK sends (`onbehalfofuser` on AI calls, `calltoken` from the calls SDK) and what backends send (`onbehalfof`). */
const ALLOW_HEADERS = "appid, authtoken, apikey, resource, sdk, content-type, accept, onbehalfofuser, onbehalfof, calltoken";
const ALLOW_ORIGIN = "Access-Control-Allow-Origin";

const CORS = Symbol("cors");

/** Node's response with the CORS header added to whatever answer a platform request gets. */
export class CorsResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  [CORS] = false;

  /** Adds the CORS header to `headers`, a record the caller owns and passes to writeHead next (which then copies nothing). */
  corsInto(headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
    if (this[CORS]) {
      headers[ALLOW_ORIGIN] = "*";
      this[CORS] = false;
    }
    return headers;
  }

  // One signature for Node's three (status; status, headers; status, reason, headers).
  override writeHead(statusCode: number, reason?: unknown, headers?: unknown): this {
    if (!this[CORS]) return super.writeHead(statusCode, reason as string, headers as OutgoingHttpHeaders);
    if (typeof reason !== "string") [reason, headers] = [undefined, reason];
    const withOrigin = Array.isArray(headers) ? [...(headers as string[]), ALLOW_ORIGIN, "*"] : this.corsInto(copyHeaders(headers as OutgoingHttpHeaders));
    return super.writeHead(statusCode, reason as string, withOrigin as OutgoingHttpHeaders);
  }
}

/** A header record's own copy, by a loop: on Node 20 a spread followed by a property costs ~1 µs. */
export function copyHeaders(headers: OutgoingHttpHeaders | undefined): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const k in headers) out[k] = headers[k];
  return out;
}

/**
 * Whether the request is for a platform plane, decided on the path the router matches (addressing.ts), not the
 * raw target: `/v3/../apimgmt/apps` is routed to the management plane and must not be answered with CORS. A
 * target the adapter normalises (dot segments, escapes, backslashes) is normalised here the same way, through
 * the URL it builds.
 */
function isPlatformPlane(req: IncomingMessage): boolean {
  const target = req.url ?? "/";
  const host = req.headers.host ?? "";
  let path: string;
  if (!target.includes("/.") && !target.includes("%") && !target.includes("\\")) path = requestPath(req);
  else
    try {
      path = internalPath(new URL(`http://${host}${target}`).href);
    } catch {
      return false; // the adapter refuses it too
    }
  return !path.startsWith("/_emulator") && !path.startsWith("/@mgmt");
}

/** The listener of a server made with `{ ServerResponse: CorsResponse }`. */
export function withCors(listener: RequestListener): (req: IncomingMessage, res: CorsResponse) => void {
  return (req, res) => {
    if (!isPlatformPlane(req)) return listener(req, res);
    if (req.method !== "OPTIONS" || req.headers["access-control-request-method"] === undefined) {
      res[CORS] = true;
      return listener(req, res);
    }
    const headers: Record<string, string> = {
      [ALLOW_ORIGIN]: "*",
      "Access-Control-Allow-Methods": ALLOW_METHODS,
      "Access-Control-Allow-Headers": ALLOW_HEADERS,
      "Access-Control-Max-Age": "600",
    };
    // Chrome asks before a public page may call a loopback address (Private Network Access).
    if (req.headers["access-control-request-private-network"] === "true") headers["Access-Control-Allow-Private-Network"] = "true";
    res.writeHead(204, headers).end();
  };
}
