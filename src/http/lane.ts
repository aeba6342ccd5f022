import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { Context, type Hono } from "hono";
import type { Env } from "./context.js";
import { requestPath } from "./addressing.js";
import { copyHeaders, CorsResponse } from "./cors.js";
import type { Handler } from "./pipeline.js";

/**
 * The platform planes' lane on Node. A request whose internal path (addressing.ts) matches exactly one platform
 * route runs that route's handler — its plane's stages and the resource's handler, composed at mount (pipeline.ts) —
 * with a Hono Context made here, and the Response it answers is written straight to Node's response. Everything
 * else goes to the Node adapter and Hono's dispatch as before: the control plane and the inspector, paths that
 * match no route or more than one, HEAD and OPTIONS, and URLs the adapter would normalise (dot segments, escapes,
 * unusual hosts), so both ways read the same URL. What the lane saves on every request is the adapter's Request and
 * URL building, its generic (async) answer writing and its close handler, and Hono's dispatch.
 *
 * Hono builds the answer (`c.json`, `c.body`, prepared headers) exactly as in-process; the lane reads it where the
 * Node adapter's lightweight Response keeps its status, body and headers. That place is found once, by its shape;
 * should an adapter version keep them elsewhere, `laneFor` answers undefined and every request takes the adapter.
 */

const LANE_METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE"]);
// The Node adapter's own tests for a URL it takes as written (anything else it normalises through `new URL`).
const PLAIN_HOST = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/;
const PLAIN_TARGET = /^\/[!#$&-;=?-\[\]_a-z~]*$/;
/** What the adapter declares for a body its answer gives no type. */
const DEFAULT_TYPE = "text/plain; charset=UTF-8";

type Route = [Handler, unknown];

/**
 * What answers wait for before they are written (persistence: committed changes in the change log). `wait`
 * answers undefined when there is nothing to wait for, else a promise; `now` makes sure of it at once.
 */
export interface AnswerHold {
  wait(): Promise<void> | undefined;
  now(): void;
}
/**
 * Set on a response whose answer may be written without waiting: the lane waited for its hold, or (a write) its own
 * changes were kept before the answer was made. The response class then checks nothing more.
 */
export const ANSWER_HELD = Symbol("answer held");
type CachedAnswer = [number, string | Uint8Array | null, OutgoingHttpHeaders | Headers | undefined];

/** What `c.req.raw` is on the lane: the method, URL and headers of Node's request (platform code reads no more). */
class NodeRequest {
  #headers: Headers | undefined;
  constructor(
    readonly incoming: IncomingMessage,
    readonly url: string,
  ) {}
  get method(): string {
    return this.incoming.method!;
  }
  get headers(): Headers {
    if (!this.#headers) {
      const raw = this.incoming.rawHeaders;
      this.#headers = new Headers();
      for (let i = 0; i + 1 < raw.length; i += 2) this.#headers.append(raw[i], raw[i + 1]);
    }
    return this.#headers;
  }
}

/** Where the adapter's Response keeps [status, body, headers], found by probing one (undefined: not found). */
function answerSlot(): symbol | undefined {
  const probe = new Response("probe", { status: 299, headers: { probe: "1" } });
  for (const key of Object.getOwnPropertySymbols(probe)) {
    const value = (probe as unknown as Record<symbol, unknown>)[key];
    if (Array.isArray(value) && value[0] === 299 && value[1] === "probe" && (value[2] as { probe?: string })?.probe === "1") return key;
  }
  return undefined;
}

/**
 * The lane for `app` (call after the Node adapter is set up: it provides the Response probed), or undefined when
 * the adapter keeps its answers elsewhere. The lane answers false for requests it leaves to the adapter.
 */
export function laneFor(app: Hono<Env>, hold?: AnswerHold): ((req: IncomingMessage, res: ServerResponse) => boolean) | undefined {
  const slot = answerSlot();
  if (!slot) return undefined;
  return (req, res) => {
    const method = req.method!;
    const target = req.url ?? "";
    const host = req.headers.host;
    // A target with "/." may hold a dot segment ("/a/../b"), which the adapter resolves: left to it.
    if (!LANE_METHODS.has(method) || host === undefined || !PLAIN_HOST.test(host) || !PLAIN_TARGET.test(target) || target.includes("/."))
      return false;
    const path = requestPath(req);
    if (!path.startsWith("/@")) return false;
    const matchResult = app.router.match(method, path);
    if (matchResult[0].length !== 1) return false;
    const url = `${(req.socket as { encrypted?: boolean }).encrypted ? "https" : "http"}://${host}${target}`;
    const c = new Context<Env>(new NodeRequest(req, url) as unknown as Request, {
      path,
      matchResult: matchResult as never,
      env: { incoming: req, outgoing: res },
    });
    const [handler] = matchResult[0][0][0] as unknown as Route;
    let out: Response | Promise<Response>;
    try {
      out = handler(c);
    } catch (e) {
      out = recover(app, c, e);
    }
    if (out instanceof Promise)
      out
        .then(undefined, (e) => recover(app, c, e))
        .then((answer) => void setImmediate(writeWhenHeld, res, answer, slot, hold))
        .catch((e) => unanswerable(res, e));
    else setImmediate(writeWhenHeld, res, out, slot, hold);
    return true;
  };
}

/**
 * A ready answer is written once the event loop's poll phase is over (setImmediate), with the answers to every
 * other request that phase read: a client waiting on several connections is then woken once for the lot, where
 * an answer written at once wakes it for each. That wake-up is most of the socket write's cost on a loopback
 * connection (bench/ab.mjs, GETs of a user and a group: +7 to +8% req/s, 7 to 9% less server CPU per request).
 * An answer that comes later (after a body was read) goes out the same way, with the others ready by the next
 * check phase (a POST of a message: 9% less server CPU per request). With `--data`, a write's answer is ready once
 * the change-log write holding its changes is made, at the start of a check phase (app.ts, persistence.ts), and
 * goes out in the next. Any other answer waits for the changes made before it, and goes out whatever became of
 * them (a write that was refused was refused to its own client).
 */
function writeWhenHeld(res: ServerResponse, answer: Response, slot: symbol, hold: AnswerHold | undefined): void {
  // A write whose own changes were kept before its answer was made (app.ts) waits for nothing more.
  const held = hold && !(res as { [ANSWER_HELD]?: boolean })[ANSWER_HELD] && heldBack(res, hold);
  if (held) held.finally(() => writeOrDrop(res, answer, slot)).catch(() => {});
  else writeOrDrop(res, answer, slot);
}

/**
 * What the answer on `res` waits for, if anything. The answers of one poll phase are written in one check phase
 * (see below): the first asks, and every answer of the phase waits for the same write of the change log.
 */
function heldBack(res: ServerResponse, hold: AnswerHold): Promise<void> | undefined {
  (res as { [ANSWER_HELD]?: boolean })[ANSWER_HELD] = true;
  return hold.wait();
}

function writeOrDrop(res: ServerResponse, answer: Response, slot: symbol): void {
  try {
    write(res, answer, slot);
  } catch (e) {
    unanswerable(res, e);
  }
}

/**
 * No answer can be written: a rule reset the connection (the error handler rethrew), or Node refused the answer
 * (as the adapter does, logged and the connection dropped). Never an exception out of the request listener.
 */
function unanswerable(res: ServerResponse, e: unknown): void {
  if (!res.socket?.destroyed) console.error(e);
  res.destroy();
}

/** The app's error handler's answer (the envelope); it rethrows only when there is nothing to answer: a rule reset the connection. */
function recover(app: Hono<Env>, c: Context<Env>, e: unknown): Response | Promise<Response> {
  try {
    // What `app.onError` set (Hono keeps it in a field its types call private).
    return (app as unknown as { errorHandler: (e: unknown, c: Context<Env>) => Response | Promise<Response> }).errorHandler(e, c);
  } catch (reset) {
    return Promise.reject(reset);
  }
}

function write(res: ServerResponse, answer: Response, slot: symbol): void {
  if (res.destroyed) return;
  const cached = (answer as unknown as Record<symbol, CachedAnswer | undefined>)[slot];
  if (!cached || !(cached[1] === null || typeof cached[1] === "string" || cached[1] instanceof Uint8Array)) {
    writeStreamed(res, answer).catch((e) => unanswerable(res, e));
    return;
  }
  const [status, body, headers] = cached;
  const out: OutgoingHttpHeaders = headers instanceof Headers ? outgoing(headers, body !== null) : copyHeaders(headers);
  if (headers === undefined && body !== null) out["Content-Type"] = DEFAULT_TYPE; // the adapter's default
  if (body !== null && out["Content-Length"] === undefined && out["content-length"] === undefined)
    out["Content-Length"] = typeof body === "string" ? Buffer.byteLength(body) : body.byteLength;
  res.writeHead(status, res instanceof CorsResponse ? res.corsInto(out) : out);
  res.end(body ?? undefined);
}

/** Fetch headers as Node's record, as the adapter converts them (cookies as a list). */
function outgoing(headers: Headers, hasBody: boolean): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  headers.forEach((v, k) => {
    if (k !== "set-cookie") out[k] = v;
  });
  const cookies = headers.getSetCookie();
  if (cookies.length > 0) out["set-cookie"] = cookies;
  if (hasBody) out["content-type"] ??= DEFAULT_TYPE;
  return out;
}

/** Resolves when `res` takes more (or is closed). */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/** Any other Response (a stream or a Blob body): through its public interface. */
async function writeStreamed(res: ServerResponse, answer: Response): Promise<void> {
  res.writeHead(answer.status, outgoing(answer.headers, answer.body !== null));
  if (answer.body)
    for await (const chunk of answer.body) {
      if (res.destroyed) break;
      // A large stream (an export) waits for the client to take what was written: it is never buffered whole.
      if (!res.write(chunk)) await drained(res);
    }
  res.end();
}
