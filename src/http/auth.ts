import { apiError, badRequest, maskKey } from "./errors.js";
import { apiPath, DEFAULT_LABEL } from "./addressing.js";
import { header, type Ctx } from "./context.js";
import type { Stage } from "./pipeline.js";
import type { AppState } from "../store/app-state.js";
import { withOriginDevice } from "./origin.js";
import type { UserRecord } from "../store/types.js";

/** What an authOnly key ("Auth Key") may do: create users and create auth tokens. */
const AUTH_ONLY_ALLOWED = /^\/v3\/users(\/[^/]+\/auth_tokens)?$/;

/** Moderation operations that (in older files) declare management credentials `key` + `secret` instead of `apikey`. */
const MANAGEMENT_CREDENTIALS = /^\/v3\/moderation\/(rules|keywords|blocked-messages)(\/|$)/;

/**
 * REST and calls planes: app id -> key present -> key known -> key scope (the platform's order of checks).
 * Leaves the addressed app and key in the context.
 */
export const appAuth: Stage = (c, next) => {
  const app = addressedApp(c);
  const key = header(c, "apikey");
  if (!key && header(c, "key") !== undefined && MANAGEMENT_CREDENTIALS.test(apiPath(c.req.path))) {
    requireManagement(c);
    c.set("app", app);
    return next(c);
  }
  if (!key) throw apiError("AUTH_ERR_EMPTY_APIKEY");
  const record = app.apiKeys.get(key);
  if (!record) throw apiError("AUTH_ERR_APIKEY_NOT_FOUND", { key: maskKey(key) });
  if (record.scope === "authOnly" && !(c.req.method === "POST" && AUTH_ONLY_ALLOWED.test(apiPath(c.req.path))))
    throw apiError("AUTH_ERR_NO_ACCESS", {
      subject: `The key ${maskKey(key)}`,
      remedy: "Please use API key with a correct scope to perform the operation.",
    });
  c.set("app", app);
  c.set("apiKey", record);
  return next(c);
};

/** App id and region from an internal plane path, `/@rest/{appId}/{region}/...` (see addressing.ts). */
function labelOf(path: string): [string, string] {
  const a = path.indexOf("/", 2) + 1;
  const b = path.indexOf("/", a);
  const end = path.indexOf("/", b + 1);
  return [path.slice(a, b), path.slice(b + 1, end === -1 ? undefined : end)];
}

/** The app named by the request's label (the default app for `/v3/...`); unknown app or wrong region is 401. */
export function addressedApp(c: Ctx): AppState {
  const { store } = c.get("emulator");
  const [appId, region] = labelOf(c.req.path);
  const app = appId === DEFAULT_LABEL ? store.defaultApp : store.apps.get(appId);
  if (!app) {
    if (appId === DEFAULT_LABEL) throw apiError("AUTH_ERR_EMPTY_APPID");
    throw apiError("AUTH_ERR_INVALID_APPID", { appId, region });
  }
  if (region !== DEFAULT_LABEL && app.meta.region !== region) throw apiError("AUTH_ERR_INVALID_APPID", { appId, region });
  return app;
}

/**
 * Client plane: app id, then the `authToken` header. The token's owner becomes the acting user of every
 * operation (see `onBehalfOf`); a token that was deleted, flushed or archived, or whose user is deactivated or
 * deleted, is not found, on which the SDK logs the user out. An `apikey` counts for nothing here.
 */
export const clientAuth: Stage = (c, next) => {
  const app = addressedApp(c);
  c.set("app", app);
  const raw = header(c, "authtoken");
  if (!raw) throw apiError("AUTH_ERR_EMPTY_AUTH_TOKEN");
  const token = app.tokens.get(raw);
  const user = token && app.activeUser(token.uid);
  if (!token || !user) throw apiError("AUTH_ERR_AUTH_TOKEN_NOT_FOUND", { authToken: maskKey(raw) });
  c.set("actor", user);
  c.set("authToken", token);
  return withOriginDevice(header(c, "resource"), () => next(c));
};

/**
 * Calls plane: the `apikey` (backends, `calls.json`), or, without one, the `authToken` of a user as the calls SDK
 * sends it (its call logs and call tokens), who then acts as with `onBehalfOf`; or, for the SDK's check of a call
 * token before its media session (`GET call_tokens`), that `callToken`, whose user then acts.
 */
export const callsAuth: Stage = (c, next) => {
  if (header(c, "apikey") !== undefined) return appAuth(c, next);
  if (header(c, "authtoken") !== undefined) return clientAuth(c, next);
  if (header(c, "calltoken") !== undefined && c.req.method === "GET" && c.req.path.endsWith("/call_tokens")) return callTokenAuth(c, next);
  return appAuth(c, next);
};

/** A call token this emulator signed for the addressed app, whose auth token and user still exist. */
const callTokenAuth: Stage = (c, next) => {
  const app = addressedApp(c);
  c.set("app", app);
  const claims = c.get("emulator").jwt.verify(header(c, "calltoken"));
  const ours = claims?.sessionId !== undefined && claims.appId === app.meta.appId;
  // A token made with an auth token lives as long as it; one a backend made (apikey, onBehalfOf) as its user.
  const token = ours && claims.authToken !== "" ? app.tokens.get(claims.authToken) : undefined;
  const user = ours && (claims.authToken === "" || token) ? app.activeUser(claims.uid) : undefined;
  if (!claims || !user) throw apiError("AUTH_ERR_INVALID_CALL_TOKEN");
  c.set("actor", user);
  if (token) c.set("authToken", token);
  c.set("callToken", { ...claims });
  return next(c);
};

/** Management plane: headers `key` and `secret` as set by --management-key / --management-secret. */
export const managementAuth: Stage = (c, next) => {
  requireManagement(c);
  return next(c);
};

function requireManagement(c: Ctx): void {
  const { management } = c.get("emulator");
  const key = header(c, "key");
  const secret = header(c, "secret");
  if (!key || !secret) throw apiError("AUTH_ERR_EMPTY_AUTH_HEADER", { missing: "key and secret headers are" });
  if (key !== management.key || secret !== management.secret)
    throw apiError("AUTH_ERR_INVALID_CREDENTIALS", { key: maskKey(key) });
}

/** uids are case-insensitive on the platform and stored lower-cased. */
export function normalizeUid(uid: string): string {
  return uid.toLowerCase();
}

/**
 * The `onBehalfOf` user of an operation. "required": missing header is 400; "optional": undefined when absent.
 * An unknown, deleted or deactivated uid is ERR_UID_NOT_FOUND either way.
 */
export function onBehalfOf(c: Ctx, mode: "required"): UserRecord;
export function onBehalfOf(c: Ctx, mode: "optional"): UserRecord | undefined;
export function onBehalfOf(c: Ctx, mode: "required" | "optional"): UserRecord | undefined {
  const actor = c.get("actor");
  if (actor) return actor;
  const raw = header(c, "onBehalfOf");
  if (raw === undefined || raw === "") {
    if (mode === "required") throw badRequest({ onBehalfOf: ["The onBehalfOf header is required."] });
    return undefined;
  }
  const uid = normalizeUid(raw);
  const user = c.get("app").activeUser(uid);
  if (!user) throw apiError("ERR_UID_NOT_FOUND", { uid });
  return user;
}
