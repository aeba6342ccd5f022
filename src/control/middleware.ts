import type { Socket } from "node:net";
import { header, type Ctx } from "../http/context.js";
import { ERROR_CODE, renderError, settle, type Handler, type Out, type Stage } from "../http/pipeline.js";
import { ADVICE_HEADER, ADVISED, adviceFor, adviceHeaderValue, isAdvised, NO_ADVICE, rawHeaders, refusedAdvice, strictRefusal, type Advice } from "../http/advice.js";
import { ApiError, ERRORS } from "../http/errors.js";
import { bodyTextRead, readText } from "../http/validate.js";
import { ANSWER_TEXT, answerJson } from "../http/reply.js";
import { JOURNAL_BODY_LIMIT, keptBody } from "./journal.js";
import { bucketOf } from "./rate-limit.js";
import { describeRequest, type ApiRequest } from "./request.js";
import type { Rule } from "./rules.js";
import { INSPECTOR_HEADER } from "./ui-session.js";

/**
 * The control plane's hold on platform requests (every request but `/_emulator/...`), as stages of the request
 * pipeline (http/pipeline.ts): `journalStage` records each one with its answer; inside it, `faultsStage` applies
 * the rules (latency, injected errors, connection resets) and the rate limits before the request reaches auth and
 * the resources, so a failed request changes nothing. With the journal off, no rules and no rate limits, both
 * cost one check (and a timestamp).
 */

/** Thrown when a rule closes the connection: the HTTP server drops the socket; `app.request()` rejects. */
export class ConnectionReset extends Error {
  constructor(ruleId: string) {
    super(`chat-emulator: connection reset by rule ${ruleId}`);
  }
}

// Hot path: `c.get()` is a map lookup, while `c.var` copies every variable into a new object on each access.

/** The inspector browsing (GET with `x-emulator-inspector`): not the user's traffic, so left alone. */
const isInspectorRead = (c: Ctx) => c.req.method === "GET" && header(c, INSPECTOR_HEADER) !== undefined;

const API_REQUEST = Symbol("apiRequest");

/** The request's plane, app and API path, read once per request (kept on the context, not in `c.set`). */
export function apiRequest(c: Ctx): ApiRequest {
  const holder = c as Ctx & { [API_REQUEST]?: ApiRequest };
  return (holder[API_REQUEST] ??= describeRequest(c.req.path, c.req.method, c.get("emulator").store, c.req.url));
}

/** Served by Node: Node's raw header list (building Fetch `Headers` costs a quarter of a small GET). */

/**
 * The request body as the journal keeps it: what the handler read, or (small, unread bodies of answered
 * requests) read now. Synchronous null for the common body-less request.
 */
function requestText(c: Ctx, answered: boolean): null | Promise<string | null> {
  const cached = bodyTextRead(c);
  if (cached) return cached.then(keptBody, () => null); // refused while reading (too large): nothing to keep
  if (!answered || c.req.method === "GET" || c.req.method === "HEAD") return null;
  const length = Number(header(c, "content-length") ?? 0);
  if (length > JOURNAL_BODY_LIMIT) return Promise.resolve(`[${length} bytes, not kept]`);
  return readText(c, JOURNAL_BODY_LIMIT).then(keptBody, () => `[more than ${JOURNAL_BODY_LIMIT} bytes, not kept]`);
}

/**
 * Journal stage: records the request with its answer (or with no status when the connection was reset). The
 * journal keeps what `c.json` serialized anyway (see capturingJson), so it never reads a response back.
 */
export const journalStage: Stage = (c, next) => {
  const { control, clock } = c.get("emulator");
  const started = performance.now();
  control.lastRequestAt = started; // background work (snapshot copies) waits for a quiet moment
  if (!control.journal.enabled || isInspectorRead(c)) return next(c);
  const journaled = c as Journaled;
  journaled[STARTED] = started;
  journaled[TIME] = clock.nowMs();
  journaled.json = capturingJson as unknown as Ctx["json"];
  return settle(c, next, answered, unanswered);
};

// When the request came in (performance.now() and the emulator clock), kept on the context for the entry.
const STARTED = Symbol("started");
const TIME = Symbol("time");
type Journaled = Ctx & { [STARTED]: number; [TIME]: number };

const answered = (c: Ctx, res: Response): Out => record(c, res);
const unanswered = (c: Ctx, e: unknown): never => {
  record(c, null);
  throw e;
};

/** Journals the request once its body (when it has to be read) is in; answers `res` then. */
function record(c: Ctx, res: Response): Out;
function record(c: Ctx, res: null): void;
function record(c: Ctx, res: Response | null): Out | void {
  const durationMs = performance.now() - (c as Journaled)[STARTED];
  const body = requestText(c, res !== null);
  if (body === null) return write(c, durationMs, null, res);
  return body.then((text) => write(c, durationMs, text, res)) as Out;
}

function write(c: Ctx, durationMs: number, requestText: string | null, res: Response | null): Response {
  const { journal } = c.get("emulator").control;
  const request = apiRequest(c);
  journal.record({
    id: journal.nextId(),
    timeMs: (c as Journaled)[TIME],
    method: request.method,
    plane: request.plane,
    appId: request.appId,
    url: c.req.url,
    headers: rawHeaders(c),
    requestText,
    status: res === null ? null : res.status,
    responseText: keptText(c),
    durationMs,
    rules: c.get("appliedRules") ?? NO_RULES,
    advice: (c as Advised)[ADVICE] ?? NO_ADVICE,
  });
  return res!;
}

const NO_RULES: string[] = [];

// Every answer is built with c.json (or answerJson): while journaling, c.json also goes through answerJson, which
// keeps the text it serializes anyway on the context, instead of the journal reading the response back. One shared
// function on purpose: a closure made per request (capturing the middleware's frame) measured at about 3 µs of
// extra GC per request.
function capturingJson(this: Ctx, object: unknown, arg?: unknown, headers?: Record<string, string>): Response {
  return answerJson(this, JSON.stringify(object), arg, headers);
}

function keptText(c: Ctx): string | null {
  const text = (c as Ctx & { [ANSWER_TEXT]?: string })[ANSWER_TEXT];
  return text === undefined ? null : keptBody(text);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Drops the client's connection (a TCP reset where the platform allows it). */
function resetConnection(c: Ctx): void {
  const socket = (c.env as { incoming?: { socket?: Socket } } | undefined)?.incoming?.socket;
  if (!socket) return;
  if (typeof socket.resetAndDestroy === "function") socket.resetAndDestroy();
  else socket.destroy();
}

function tooManyRequests(headers: Record<string, string>): ApiError {
  const { status, message } = ERRORS.ERR_TOO_MANY_REQUESTS;
  return new ApiError("ERR_TOO_MANY_REQUESTS", status, message, message, undefined, headers);
}

// The request's advice, for the journal entry (set by adviceStage).
const ADVICE = Symbol("advice");
type Advised = Ctx & { [ADVICE]?: readonly Advice[] };

/**
 * Advice stage (http/advice.ts), inside the journal and outside the envelope: once a REST or management request is
 * answered with success, what it sent that the operation never read becomes advice for the journal entry and the
 * log line, the `x-chat-emulator-advice` header when asked, or a 400 ERR_EMULATOR_STRICT in strict mode.
 * The client and calls planes are the official SDKs' traffic and are not advised.
 */
export const adviceStage: Stage = (c, next) => {
  if (!isAdvised(c)) return next(c);
  return settle(c, next, advise, rethrow);
};

const rethrow = (_c: Ctx, e: unknown): never => {
  throw e;
};

function advise(c: Ctx, res: Response): Response {
  if (res.status >= 400) {
    const refused = refusedAdvice(c); // strict mode refused it before the handler ran
    if (refused) (c as Advised)[ADVICE] = refused;
    return res;
  }
  const advice = adviceFor(c, rawHeaders(c));
  if (advice.length === 0) return res;
  (c as Advised)[ADVICE] = advice;
  const outgoing = (c.env as { outgoing?: { [ADVISED]?: readonly Advice[] } } | undefined)?.outgoing;
  if (outgoing) outgoing[ADVISED] = advice;
  const settings = c.get("emulator").control.advice;
  if (settings.strict) return renderError(c, strictRefusal(advice));
  if (settings.header) res.headers.set(ADVICE_HEADER, adviceHeaderValue(advice));
  return res;
}

/** Rules stage: latency, injected errors and connection resets, then the rate limits, before auth and the resources. */
export const faultsStage: Stage = (c, next) => {
  const { rules, rateLimits } = c.get("emulator").control;
  if ((rules.idle && !rateLimits.enabled) || isInspectorRead(c)) return next(c);
  const decision = rules.decide(apiRequest(c));
  if (!decision) return proceed(c, next, undefined);
  c.set("appliedRules", decision.applied);
  if (decision.delayMs > 0) return sleep(decision.delayMs).then(() => proceed(c, next, decision.failure));
  return proceed(c, next, decision.failure);
};

/** After any delay: the winning error rule, else the rate limits, else on to auth and the resources. */
function proceed(c: Ctx, next: Handler, failure: Rule | undefined): Out {
  const { control, clock, store } = c.get("emulator");
  if (failure?.effect.reset) {
    resetConnection(c);
    throw new ConnectionReset(failure.id);
  }
  if (failure) throw failure.error(clock.now());
  const request = apiRequest(c);
  const appId = request.appId;
  const { rateLimits } = control;
  if (rateLimits.enabled && appId !== null && request.plane !== "mgmt" && store.apps.has(appId)) {
    const verdict = rateLimits.take(appId, bucketOf(request), clock.nowMs());
    // Set before next(): headers prepared on the context go out with whatever answer follows.
    c.header("X-Rate-Limit", String(verdict.limit));
    c.header("X-Rate-Limit-Remaining", String(verdict.remaining));
    if (!verdict.allowed)
      throw tooManyRequests({ "Retry-After": String(verdict.retryAfter), "X-Rate-Limit-Reset": String(verdict.resetAt) });
  }
  return next(c);
}

/**
 * Wraps the handler of a route that serves documented operations `ops` (matched once, at mount: see
 * control/coverage.ts) so that each answer is counted: its app, plane, status and error code. Outside the other
 * stages, so that it sees the answer in its envelope (and the code renderError kept). The two callbacks are made
 * once per route, none per request.
 */
export function countedRoute(ops: readonly number[], handler: Handler): Handler {
  const count = (c: Ctx, status: number | null) => {
    if (isInspectorRead(c)) return;
    const request = apiRequest(c);
    const { store, control } = c.get("emulator");
    // Calls to apps that do not exist are not counted: a stray app id must not make counters of its own.
    if (request.appId === null || !store.apps.has(request.appId)) return;
    control.coverage.record(request.appId, ops, request.plane, status, (c as Ctx & { [ERROR_CODE]?: string })[ERROR_CODE]);
  };
  const done = (c: Ctx, res: Response) => (count(c, res.status), res);
  const failed = (c: Ctx, e: unknown): never => {
    count(c, null);
    throw e;
  };
  return (c) => settle(c, handler, done, failed);
}
