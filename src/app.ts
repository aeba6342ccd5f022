import { Hono, type Context, type MiddlewareHandler } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { internalPath } from "./http/addressing.js";
import { appAuth, clientAuth, managementAuth } from "./http/auth.js";
import { clientPlane, clientSettingsRoute } from "./client/routes.js";
import type { Emulator, Env } from "./http/context.js";
import { ApiError, apiError } from "./http/errors.js";
import { control } from "./control/routes.js";
import { ConnectionReset, injectFaults, journalRequests } from "./control/middleware.js";
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

/**
 * The whole HTTP surface on one port: addressing (getPath) -> plane -> auth -> resource routes. Errors of every
 * kind end in one handler that renders the platform's envelope.
 */
export function createApp(emulator: Emulator, log: (line: string) => void = console.error): Hono<Env> {
  const app = new Hono<Env>({ getPath: (req) => internalPath(req.url) });

  app.use("*", (c, next) => {
    c.set("emulator", emulator);
    if (c.req.method === "GET") return next();
    // Persistence observes committed writes: any successful write on a platform plane.
    return next().then(() => {
      if (c.res.status < 400 && c.req.path.startsWith("/@")) emulator.store.changed();
    });
  });

  // Journal, rules and rate limits for every request but control calls (see control/middleware.ts).
  app.use("*", journalRequests, injectFaults);
  // A browser opening the emulator's address lands in the inspector; API clients keep their JSON answers.
  const toInspector: MiddlewareHandler<Env> = async (c, next) => {
    if (c.req.header("accept")?.includes("text/html")) return c.redirect(INSPECTOR_PATH);
    await next();
  };
  app.get("/", toInspector);
  app.get("/_emulator", toInspector);
  app.route("/_emulator", control);
  // `POST /tenants` answers to HTTP Basic authentication, before the key/secret headers every other operation needs.
  app.route("/@mgmt", tenants);
  app.use("/@mgmt/*", managementAuth);
  app.route("/@mgmt", managementPlane());
  app.use("/@rest/:appId/:region/*", appAuth);
  app.route("/@rest/:appId/:region/v3", restPlane());
  app.route("/@client/:appId/:region/v3", clientSettingsRoute);
  app.use("/@client/:appId/:region/*", clientAuth);
  app.route("/@client/:appId/:region/v3", clientPlane(restPlane()));
  app.use("/@calls/:appId/:region/*", appAuth);
  app.route("/@calls/:appId/:region/v3", calls);

  const render = (c: Context<Env>, err: ApiError) => {
    if (err.headers) for (const [k, v] of Object.entries(err.headers)) c.header(k, v);
    const source = c.req.path.startsWith("/_emulator") ? "emulator" : "chat-api";
    return c.json(err.toBody(source), err.status as ContentfulStatusCode);
  };
  app.notFound((c) => render(c, apiError("ERR_API_NOT_FOUND")));
  app.onError((err, c) => {
    if (err instanceof ApiError) return render(c, err);
    if (err instanceof ConnectionReset) throw err; // no answer at all: the connection is gone
    log(`chat-emulator: unexpected error on ${c.req.method} ${c.req.url}: ${err.stack ?? String(err)}`);
    return render(c, new ApiError("ERR_EXCEPTION", 500, "Something went wrong in the emulator. This is a bug; please report it."));
  });

  return app;
}
