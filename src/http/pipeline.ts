import type { Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { mergePath } from "hono/utils/url";
import type { Ctx, Env } from "./context.js";
import { ANSWERED_ERROR, ApiError, type AnsweredError } from "./errors.js";
import { isCampaignsPath } from "./addressing.js";

/**
 * The platform planes' request pipeline. Each route gets one handler that runs its plane's stages (journal,
 * errors into the envelope, rules and rate limits, auth) and then the route's own handler, composed once when
 * the route is mounted. Hono's middleware chain would do the same work through an async function and a promise per
 * stage on every request; a single handler that stays synchronous until something really waits lets Hono and the
 * Node adapter answer in the same tick (a fifth of a small GET's cost, measured).
 */

/** What a handler or stage answers: a Response now, or later. */
export type Out = Response | Promise<Response>;
export type Handler = (c: Ctx) => Out;
/**
 * A stage wraps what follows it (`next`, called with the context), like a middleware, but may answer
 * synchronously. `next` is composed once, at mount: a request allocates no closures to go down the chain.
 */
export type Stage = (c: Ctx, next: Handler) => Out;

/** `next(c)`, then `done` with its Response or `fail` with what it threw, synchronously when `next` was. */
export function settle(c: Ctx, next: Handler, done: (c: Ctx, res: Response) => Out, fail: (c: Ctx, e: unknown) => Out): Out {
  let out: Out;
  try {
    out = next(c);
  } catch (e) {
    return fail(c, e);
  }
  return out instanceof Promise ? out.then((res) => done(c, res), (e) => fail(c, e)) : done(c, out);
}

/** The stages around `handler`, outermost first. */
export function chain(stages: readonly Stage[], handler: Handler): Handler {
  return stages.reduceRight<Handler>((next, stage) => (c) => stage(c, next), handler);
}

/** A route's handlers as Hono gives them (`.post(path, auth, handler)` is two): each may call `next` for the one after it. */
type RouteHandler = (c: Ctx, next: () => Promise<void>) => unknown;

/** One Hono route's handlers, as one handler (a handler that calls `next` past the last one gets nothing: not found). */
function joined(handlers: RouteHandler[], notFound: Handler): Handler {
  return handlers.reduceRight<Handler>(
    (next, h) => (c) => h(c, (() => next(c)) as unknown as () => Promise<void>) as Out,
    notFound,
  );
}

/**
 * Mounts `router`'s routes under `prefix` on `app`, each as one handler running `stages` and then the route.
 * `taken` holds the method and path of every route mounted so far: an earlier mount answers first on the same
 * method and path (as Hono would run the first registered handler), so a later duplicate is left out.
 * `serves` may narrow what the plane answers: the others run the stages and answer `notFound`. `around` may wrap a
 * served route's whole handler, knowing its method and path (coverage counts by route, matched here once).
 */
export function mount(
  app: Hono<Env>,
  prefix: string,
  router: Hono<Env>,
  stages: readonly Stage[],
  notFound: Handler,
  taken: Set<string>,
  serves: (method: string, path: string) => boolean = () => true,
  around: (method: string, path: string, handler: Handler) => Handler = (_m, _p, handler) => handler,
): void {
  const routes = new Map<string, { method: string; path: string; handlers: RouteHandler[] }>();
  for (const r of router.routes) {
    const path = mergePath(prefix, r.path);
    const key = `${r.method} ${path}`;
    if (taken.has(key)) continue;
    const route = routes.get(key) ?? routes.set(key, { method: r.method, path, handlers: [] }).get(key)!;
    route.handlers.push(r.handler as RouteHandler);
  }
  for (const [key, { method, path, handlers }] of routes) {
    taken.add(key);
    const served = serves(method, path.slice(prefix.length));
    const handler = chain(stages, served ? joined(handlers, notFound) : notFound);
    app.on(method, path, served ? around(method, path, handler) : handler);
  }
}

/** The code of the error a request was answered with, kept on the context for coverage (control/coverage.ts). */
export const ERROR_CODE = Symbol("errorCode");

/** Renders an ApiError in the platform's envelope (source "emulator" on the control plane, "campaigns-service" there). */
export function renderError(c: Ctx, err: ApiError): Response {
  (c as Ctx & { [ERROR_CODE]?: string })[ERROR_CODE] = err.code;
  const res = (c.env as { outgoing?: { [ANSWERED_ERROR]?: AnsweredError } } | undefined)?.outgoing;
  if (res) res[ANSWERED_ERROR] = { code: err.code, hint: err.hint };
  if (err.headers) for (const [k, v] of Object.entries(err.headers)) c.header(k, v);
  const source = c.req.path.startsWith("/_emulator") ? "emulator" : isCampaignsPath(c.req.path) ? "campaigns-service" : "chat-api";
  return c.json(err.toBody(source), err.status as ContentfulStatusCode);
}
