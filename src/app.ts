import { Hono } from "hono";
import { addressHint, internalPath, isCampaignsPath } from "./http/addressing.js";
import { NearMisses } from "./http/near-miss.js";
import { PlaneRouter } from "./http/plane-router.js";
import { appAuth, callsAuth, clientAuth, managementAuth } from "./http/auth.js";
import { clientOnly, clientSettingsRoute } from "./client/routes.js";
import { sdkServes } from "./client/endpoints.js";
import type { Emulator } from "./emulator.js";
import type { Ctx, Env } from "./http/context.js";
import { ApiError, apiError, withHint } from "./http/errors.js";
import { chain, mount, renderError, settle, type Handler, type Out, type Stage } from "./http/pipeline.js";
import { wasCachedRead } from "./http/reply.js";
import { ANSWER_HELD } from "./http/lane.js";
import { WriteRefused } from "./store/persistence.js";
import { control } from "./control/routes.js";
import { adviceStage, ConnectionReset, countedRoute, faultsStage, journalStage } from "./control/middleware.js";
import { operationsOf } from "./control/coverage.js";
import { INSPECTOR_PATH } from "./control/ui-session.js";
import { apps } from "./resources/apps/routes.js";
import { webhooks } from "./resources/webhooks/routes.js";
import { extensions } from "./resources/extensions/routes.js";
import { collaborators } from "./resources/collaborators/routes.js";
import { appSettings } from "./resources/app-settings/routes.js";
import { tenants } from "./resources/tenants/routes.js";
import { apiKeys } from "./resources/api-keys/routes.js";
import { authTokens } from "./resources/auth-tokens/routes.js";
import { users } from "./resources/users/routes.js";
import { metrics } from "./resources/metrics/routes.js";
import { calls } from "./resources/calls/routes.js";
import { callSignalling } from "./resources/calls/signalling.js";
import { fileUploads, media } from "./resources/files/routes.js";
import { groups } from "./resources/groups/routes.js";
import { members } from "./resources/members/routes.js";
import { bannedUsers } from "./resources/banned-users/routes.js";
import { messages } from "./resources/messages/routes.js";
import { messageMarks } from "./resources/messages/marks.js";
import { threads } from "./resources/messages/threads.js";
import { reactions } from "./resources/reactions/routes.js";
import { conversations } from "./resources/conversations/routes.js";
import { conversationPins } from "./resources/conversations/pins.js";
import { friends } from "./resources/friends/routes.js";
import { blockedUsers } from "./resources/blocked-users/routes.js";
import { roles } from "./resources/roles/routes.js";
import { moderation } from "./resources/moderation/routes.js";
import { bots } from "./resources/bots/routes.js";
import { aiAgents } from "./resources/ai-agents/routes.js";
import { dataImport } from "./resources/data-import/routes.js";
import { notifications } from "./resources/notifications/routes.js";
import { campaignRecords, campaignsAuth, campaignsService, csvUploads, serviceErrors, touchesCampaigns, unknownPath, uploadApp } from "./resources/campaigns/service/routes.js";

/** The management plane's routes (`/apimgmt`), behind the key and secret headers. */
function managementPlane(): Hono<Env> {
  return new Hono<Env>()
    .route("/", apps)
    .route("/", webhooks)
    .route("/", extensions)
    .route("/", collaborators)
    .route("/", appSettings);
}

/** The REST plane's routes, relative to `/v3`. */
function restPlane(): Hono<Env> {
  return new Hono<Env>()
    .route("/", users)
    .route("/", metrics)
    .route("/", authTokens)
    .route("/", apiKeys)
    .route("/", groups)
    .route("/", members)
    .route("/", bannedUsers)
    .route("/", messages)
    .route("/", messageMarks)
    .route("/", threads)
    .route("/", reactions)
    .route("/", conversationPins)
    .route("/", conversations)
    .route("/", friends)
    .route("/", blockedUsers)
    .route("/", roles)
    .route("/", moderation)
    .route("/", notifications)
    .route("/", bots)
    .route("/", aiAgents)
    .route("/", dataImport);
}

/** The methods that change nothing. */
const READS = new Set(["GET", "HEAD", "OPTIONS"]);


/**
 * The whole HTTP surface on one port: addressing (getPath) -> plane -> auth -> resource routes. Every platform
 * route is one handler running its plane's stages (see http/pipeline.ts): journal, errors into the envelope and
 * persistence, rules and rate limits, auth. Errors of every kind end in the platform's envelope.
 */
export function createApp(emulator: Emulator, log: (line: string) => void = console.error): Hono<Env> {
  const app = new Hono<Env>({ getPath: (req) => internalPath(req.url), router: new PlaneRouter() });

  /** An error in the envelope; an unexpected one is logged and answers 500. */
  const answer = (c: Ctx, err: unknown): Response => {
    if (err instanceof ApiError) return renderError(c, err);
    if (err instanceof WriteRefused) return renderError(c, apiError("ERR_STORAGE_UNAVAILABLE", { file: err.file, cause: err.why }));
    if (err instanceof ConnectionReset) throw err; // no answer at all: the connection is gone
    log(`chat-emulator: unexpected error on ${c.req.method} ${c.req.url}: ${err instanceof Error ? err.stack : String(err)}`);
    return renderError(c, new ApiError("ERR_EXCEPTION", 500, "Something went wrong in the emulator. This is a bug; please report it."));
  };
  const { persistence } = emulator;
  /**
   * Persistence observes committed writes on the platform planes. With `--data`, a write's answer is its own once
   * its changes are kept (in the change log: see persistence.ts), and the refusal when they cannot be; the journal
   * records which.
   */
  const committed = (c: Ctx, res: Response): Out => {
    if (res.status >= 400 || c.req.method === "GET") return res;
    emulator.store.changed();
    return persistence?.hold()?.then(
      () => kept(c, res),
      (e: unknown) => answer(c, e),
    ) ?? res;
  };
  /**
   * A write's answer whose own changes are in the change log: the lane writes it without waiting for the changes
   * other requests made since (the answers of reads wait for those, so that none shows a change not yet kept).
   */
  const kept = (c: Ctx, res: Response): Response => {
    const outgoing = (c.env as { outgoing?: { [ANSWER_HELD]?: boolean } } | undefined)?.outgoing;
    if (outgoing) outgoing[ANSWER_HELD] = true;
    return res;
  };
  /** Everything thrown below it answered in the envelope (so that the journal records the answer). */
  const envelope: Stage = (c, next) => settle(c, next, committed, answer);
  /** While the data file cannot be written, an authenticated write is refused before it runs; reads go on (see persistence.ts). */
  const writable: Stage = (c, next) => {
    if (persistence!.refusing && !READS.has(c.req.method)) throw persistence!.refusing;
    return next(c);
  };
  const whileWritable = persistence ? [writable] : [];
  // Every platform request is counted in flight for the read cache; one that was not a cached read may have
  // changed state, and drops the cache when it ends (store/read-cache.ts).
  const { reads } = emulator.store;
  const ended = (c: Ctx, res: Response) => {
    reads.end(wasCachedRead(c));
    return res;
  };
  const failed = (_c: Ctx, e: unknown): never => {
    reads.end(false);
    throw e;
  };
  const withEmulator: Stage = (c, next) => {
    c.set("emulator", emulator);
    reads.begin();
    return settle(c, next, ended, failed);
  };
  const platform = [withEmulator, journalStage, adviceStage, envelope, faultsStage];
  const notFound: Handler = (c) => {
    const target = c.req.url.slice(c.req.url.indexOf("/", c.req.url.indexOf("//") + 2));
    throw withHint(apiError("ERR_API_NOT_FOUND"), addressHint(c.req.header("host") ?? "", target) ?? nearMisses.hint(c.req.method, c.req.path));
  };
  // Each plane: its internal paths (see addressing.ts), where its routes live, and how it authenticates.
  const MGMT = { prefix: "/@mgmt", at: "/@mgmt", auth: [managementAuth] };
  const REST = { prefix: "/@rest/", at: "/@rest/:appId/:region/v3", auth: [appAuth] };
  const CLIENT = { prefix: "/@client/", at: "/@client/:appId/:region/v3", auth: [clientAuth] };
  const CALLS = { prefix: "/@calls/", at: "/@calls/:appId/:region/v3", auth: [callsAuth] };
  // The campaigns service, under the REST host: its own credentials check and error envelope.
  const CAMPAIGNS = { at: `${REST.at}/campaigns`, auth: [serviceErrors, campaignsAuth] };
  const taken = new Set<string>();
  /** A route of a documented operation gets its calls counted (control/coverage.ts); the others pay nothing. */
  const counted = (method: string, path: string, handler: Handler) => {
    const ops = operationsOf(method, path);
    return ops ? countedRoute(ops, handler) : handler;
  };
  const mountOn = (plane: { at: string }, router: Hono<Env>, auth: Stage[], serves?: (method: string, path: string) => boolean) =>
    mount(app, plane.at, router, [...platform, ...auth, ...whileWritable], notFound, taken, serves, counted);

  /** A browser asking for a page (an API client asks for JSON). */
  const wantsPage = (c: Ctx) => c.req.header("accept")?.includes("text/html") === true;

  // The control plane and the inspector: same-origin, outside the journal and the rules (see control/routes.ts).
  app.use("/_emulator/*", async (c, next) => {
    c.set("emulator", emulator);
    emulator.control.lastRequestAt = performance.now();
    // Its reads (the inspector's pages and streams, which stay open) change nothing; its writes do.
    if (c.req.method === "GET") return next();
    reads.begin();
    try {
      await next();
      // Its answer waits until the change is kept (a whole state replaced: until the data file holds it).
      await emulator.persistence?.hold();
    } finally {
      reads.end(false);
    }
  });
  app.get("/_emulator", (c, next) => (wantsPage(c) ? c.redirect(INSPECTOR_PATH) : next()));
  app.route("/_emulator", control);

  mountOn(MGMT, tenants, []); // HTTP Basic authentication, before the key/secret headers of every other operation
  mountOn(MGMT, managementPlane(), MGMT.auth);
  const rest = restPlane();
  mountOn(REST, rest, REST.auth);
  mountOn(CLIENT, clientSettingsRoute, []);
  mountOn(CLIENT, media, []);
  mountOn(CLIENT, clientOnly, CLIENT.auth);
  mountOn(CLIENT, callSignalling, CLIENT.auth);
  mountOn(CLIENT, fileUploads, CLIENT.auth);
  mountOn(CLIENT, rest, CLIENT.auth, sdkServes);
  mountOn(CALLS, calls, CALLS.auth);
  mountOn(CAMPAIGNS, campaignsService, [...CAMPAIGNS.auth, touchesCampaigns]);
  mountOn(CAMPAIGNS, campaignRecords, CAMPAIGNS.auth);
  mountOn(CAMPAIGNS, csvUploads, [serviceErrors, uploadApp, touchesCampaigns]);

  // What the client plane serves: its own routes and the REST routes the SDK calls.
  const clientOwn = new Set([clientSettingsRoute, media, clientOnly, callSignalling, fileUploads].flatMap((r) => r.routes.map((x) => `${x.method} ${x.path}`)));
  const nearMisses = new NearMisses(taken, (method, internal) => {
    if (!internal.startsWith(CLIENT.at)) return true;
    const path = internal.slice(CLIENT.at.length);
    return clientOwn.has(`${method} ${path}`) || sdkServes(method, path);
  });

  // Any other path: journaled, ruled and authenticated as its plane would be, then not found.
  const unmatched = [MGMT, REST, CLIENT, CALLS].map((p) => ({ prefix: p.prefix, handler: chain([...platform, ...p.auth], notFound) }));
  const elsewhere = chain(platform, notFound);
  const campaignsUnmatched = chain([...platform, ...CAMPAIGNS.auth], (c) => {
    throw withHint(unknownPath(c), nearMisses.hint(c.req.method, c.req.path));
  });
  const notFoundAnywhere = (c: Ctx) => {
    if (c.req.path.startsWith("/_emulator")) return renderError(c, apiError("ERR_API_NOT_FOUND"));
    if (isCampaignsPath(c.req.path)) return campaignsUnmatched(c);
    return (unmatched.find((u) => c.req.path.startsWith(u.prefix))?.handler ?? elsewhere)(c);
  };
  // A browser opening the emulator's address lands in the inspector; API clients keep their JSON answers.
  app.get("/", (c) => (wantsPage(c) ? c.redirect(INSPECTOR_PATH) : notFoundAnywhere(c)));
  app.notFound(notFoundAnywhere);
  app.onError((err, c) => answer(c, err));

  return app;
}
