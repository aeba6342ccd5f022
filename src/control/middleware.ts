import type { Socket } from "node:net";
import type { MiddlewareHandler } from "hono";
import { header, type Ctx, type Env } from "../http/context.js";
import { ApiError, ERRORS } from "../http/errors.js";
import { JOURNAL_BODY_LIMIT, keptBody, type RawHeaders } from "./journal.js";
import { bucketOf } from "./rate-limit.js";
import { describeRequest, type ApiRequest } from "./request.js";
import { INSPECTOR_HEADER } from "./ui-session.js";

/**
 * The control plane's hold on platform requests (every request but `/_emulator/...`): `journalRequests` records
 * each one with its answer; inside it, `injectFaults` applies the rules (latency, injected errors, connection
 * resets) and the rate limits before the request reaches auth and the resources, so a failed request changes
 * nothing. With the journal off, no rules and no rate limits, both cost one check (and a timestamp).
 */

/** Thrown when a rule closes the connection: the HTTP server drops the socket; `app.request()` rejects. */
export class ConnectionReset extends Error {
  constructor(ruleId: string) {
    super(`chat-emulator: connection reset by rule ${ruleId}`);
  }
}

// Hot path: `c.get()` is a map lookup, while `c.var` copies every variable into a new object on each access.

const isControl = (c: Ctx) => c.req.path.startsWith("/_emulator");

/** The inspector browsing (GET with `x-emulator-inspector`): not the user's traffic, so left alone. */
const isInspectorRead = (c: Ctx) => c.req.method === "GET" && header(c, INSPECTOR_HEADER) !== undefined;

const apiRequest = (c: Ctx): ApiRequest => describeRequest(c.req.path, c.req.method, c.get("emulator").store);

/** Served by Node: the headers Node already parsed (building Fetch `Headers` costs a quarter of a small GET). */
const rawHeaders = (c: Ctx): RawHeaders =>
  (c.env as { incoming?: { headers: Record<string, string | string[] | undefined> } } | undefined)?.incoming?.headers ??
  c.req.raw.headers;

/**
 * The request body as the journal keeps it: what the handler read, or (small, unread bodies of answered
 * requests) read now. Synchronous null for the common body-less request.
 */
function requestText(c: Ctx, answered: boolean): null | Promise<string | null> {
  const cached = (c.req.bodyCache as { text?: Promise<string> }).text;
  if (cached) return cached.then(keptBody);
  if (!answered || c.req.method === "GET" || c.req.method === "HEAD") return null;
  const length = Number(header(c, "content-length") ?? 0);
  if (length > JOURNAL_BODY_LIMIT) return Promise.resolve(`[${length} bytes, not kept]`);
  return c.req.text().then(keptBody, () => null);
}

export const journalRequests: MiddlewareHandler<Env> = async (c, next) => {
  const emulator = c.get("emulator");
  const { control } = emulator;
  const started = performance.now();
  control.lastRequestAt = started; // background work (snapshot copies) waits for a quiet moment
  const { journal } = control;
  if (!journal.enabled || isControl(c) || isInspectorRead(c)) return next();
  const timeMs = emulator.clock.nowMs();
  const request = apiRequest(c);
  // Every answer is built with c.json: keep the text it serializes anyway, instead of reading the response back.
  let responseText: string | null = null;
  const body = c.body as (text: string, arg?: unknown, headers?: Record<string, string>) => Response;
  c.json = ((object: unknown, arg?: unknown, headers?: Record<string, string>) => {
    const text = JSON.stringify(object);
    responseText = text;
    return body(text, arg, { "Content-Type": "application/json", ...headers });
  }) as unknown as Ctx["json"];
  let status: number | null = null;
  try {
    await next();
    status = c.res.status;
  } finally {
    const durationMs = performance.now() - started;
    const body = requestText(c, status !== null);
    journal.record({
      id: journal.nextId(),
      timeMs,
      request,
      url: c.req.url,
      headers: rawHeaders(c),
      requestText: body === null ? null : await body,
      status,
      responseText: responseText === null ? null : keptBody(responseText),
      durationMs,
      rules: c.get("appliedRules") ?? NO_RULES,
    });
  }
};

const NO_RULES: string[] = [];

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

export const injectFaults: MiddlewareHandler<Env> = async (c, next) => {
  const { control, clock, store } = c.get("emulator");
  const { rules, rateLimits } = control;
  if ((rules.idle && !rateLimits.enabled) || isControl(c) || isInspectorRead(c)) return next();
  const request = apiRequest(c);

  const decision = rules.decide(request);
  if (decision) {
    c.set("appliedRules", decision.applied);
    if (decision.delayMs > 0) await sleep(decision.delayMs);
    const failure = decision.failure;
    if (failure?.effect.reset) {
      resetConnection(c);
      throw new ConnectionReset(failure.id);
    }
    if (failure) throw failure.error(clock.now());
  }

  const appId = request.appId;
  if (rateLimits.enabled && appId !== null && request.plane !== "mgmt" && store.apps.has(appId)) {
    const nowMs = clock.nowMs();
    const verdict = rateLimits.take(appId, bucketOf(request), nowMs);
    // Set before next(): headers prepared on the context go out with whatever answer follows.
    c.header("X-Rate-Limit", String(verdict.limit));
    c.header("X-Rate-Limit-Remaining", String(verdict.remaining));
    if (!verdict.allowed)
      throw tooManyRequests({ "Retry-After": String(verdict.retryAfter), "X-Rate-Limit-Reset": String(verdict.resetAt) });
  }
  await next();
};
