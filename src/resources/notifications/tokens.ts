import type { Ctx } from "../../http/context.js";
import { apiError, badRequest } from "../../http/errors.js";
import { ok } from "../../http/reply.js";
import type { Body } from "../../http/validate.js";
import { bodySchema, type Schema } from "../../http/schema.js";
import { checkBody } from "../../http/body-check.js";
import { operation, routes } from "../../http/operation.js";
import { q } from "../../http/query-spec.js";
import type { AppState } from "../../store/app-state.js";
import type { PushTokenRecord } from "../../store/notification-state.js";
import type { AuthTokenRecord } from "../../store/types.js";
import { isTimezone } from "./preferences.js";

/**
 * Push tokens (§18.5): registered against an auth token (so per device/session), one of each kind per auth token,
 * at most 100 per user.
 */

export const TOKENS_PER_USER = 100;

const FCM_PLATFORMS = [
  "fcm_android",
  "fcm_ios",
  "fcm_web",
  "fcm_flutter_android",
  "fcm_flutter_ios",
  "fcm_react_native_android",
  "fcm_react_native_ios",
  "fcm_ionic_cordova_android",
  "fcm_ionic_cordova_ios",
];
const APNS_PLATFORMS = ["apns_ios_device", "apns_flutter_device", "apns_react_native_device", "apns_ionic_cordova_device"];
const VOIP_PLATFORMS = ["apns_ios_voip", "apns_flutter_voip", "apns_ionic_cordova_voip", "apns_react_native_voip"];
export const PLATFORMS = [...FCM_PLATFORMS, ...APNS_PLATFORMS, ...VOIP_PLATFORMS];

const TOKEN_FIELDS = ["fcmToken", "deviceToken", "voipToken"] as const;

/**
 * A registration's body: the field that holds the token depends on the platform, so the three are named here and
 * the platform's own is checked by the handler (TOKEN_FIELD, compiled once). `authToken` names the session, which
 * the client plane's requests are made in.
 */
const registration = (session: boolean): Schema => ({
  platform: { required: true, type: "string", in: PLATFORMS },
  providerId: { type: "string", max: 100 },
  authToken: { required: !session, type: "string", max: 200 },
  timezone: { type: "string", max: 100 },
  ...Object.fromEntries(TOKEN_FIELDS.map((f) => [f, { description: "The push token, in the field of its platform's kind." }])),
});
const REGISTRATION = registration(false);
/** The SDK's registration (client/push.ts): in the session of its request, so without `authToken`. */
export const SESSION_REGISTRATION = registration(true);
const TOKEN_FIELD = Object.fromEntries(TOKEN_FIELDS.map((f) => [f, bodySchema({ [f]: { required: true, type: "string", max: 4096 } })]));
const AUTH_TOKEN: Schema = { authToken: { required: true, type: "string", max: 200 } };

/** Which body field holds the token for a platform. */
function tokenField(platform: string): "fcmToken" | "deviceToken" | "voipToken" {
  return FCM_PLATFORMS.includes(platform) ? "fcmToken" : APNS_PLATFORMS.includes(platform) ? "deviceToken" : "voipToken";
}

export function tokenView(t: PushTokenRecord): Record<string, unknown> {
  return {
    authToken: t.authToken,
    pushTokenType: t.pushTokenType,
    createdAt: new Date(t.createdAt).toISOString(),
    platform: t.platform,
    providerId: t.providerId ?? null,
    pushToken: t.pushToken,
    uid: t.uid,
    updatedAt: new Date(t.updatedAt).toISOString(),
  };
}

/** The auth token a request names (body or query): it must exist. */
function authTokenOf(app: AppState, value: unknown): AuthTokenRecord {
  const token = typeof value === "string" ? app.tokens.get(value) : undefined;
  if (!token || !app.activeUser(token.uid)) throw badRequest({ authToken: ["The selected authToken is invalid."] });
  return token;
}

function remaining(app: AppState, uid: string) {
  return { pushTokens: app.notifications.tokensOf(uid).map(tokenView) };
}

/**
 * Registers the push token a (checked) body names for a session: the body's `authToken`, or on the client plane
 * the session's own (the SDK's `registerPushToken` sends none).
 */
export async function registerFor(c: Ctx, body: Body): Promise<void> {
  const session = c.get("authToken");
  const field = tokenField(body.platform as string);
  await checkBody(body, TOKEN_FIELD[field]);
  if (body.timezone !== undefined && body.timezone !== null && !isTimezone(body.timezone))
    throw badRequest({ timezone: ["The timezone must be a valid IANA time zone."] });
  const app = c.get("app");
  const auth = session ?? authTokenOf(app, body.authToken);
  register(app, auth, body, field, c.get("emulator").clock.nowMs());
}

/** Removes a session's push tokens (`all`: every session of its user); answers the user's remaining ones. */
export function unregisterPushTokens(app: AppState, auth: AuthTokenRecord, all: boolean) {
  for (const t of app.notifications.tokensOf(auth.uid)) if (all || t.authToken === auth.authToken) app.notifications.removeToken(t.pushToken);
  return remaining(app, auth.uid);
}

export const pushTokens = routes(
  operation({
    id: "notifications-push-register-token",
    method: "POST",
    path: "/notifications/push/v1/tokens",
    plane: "rest",
    body: REGISTRATION,
    handler: async (c, { body }) => {
      await registerFor(c, body);
      return ok(c, { success: true });
    },
  }),
  operation({
    id: "notifications-push-list-tokens",
    method: "GET",
    path: "/notifications/push/v1/tokens",
    plane: "rest",
    query: { authToken: q.str({ required: true }), all: q.bool() },
    handler: (c, { query }) => {
      const app = c.get("app");
      const auth = authTokenOf(app, query.authToken);
      const list = app.notifications.tokensOf(auth.uid).filter((t) => query.all || t.authToken === auth.authToken);
      return ok(c, { pushTokens: list.map(tokenView) });
    },
  }),
  operation({
    id: "notifications-push-unregister-tokens",
    method: "DELETE",
    path: "/notifications/push/v1/tokens",
    plane: "rest",
    query: { all: q.bool() },
    body: AUTH_TOKEN,
    handler: (c, { body, query }) => {
      const app = c.get("app");
      return ok(c, unregisterPushTokens(app, authTokenOf(app, body.authToken), query.all));
    },
  }),
  operation({
    id: "notifications-push-delete-token",
    method: "DELETE",
    path: "/notifications/push/v1/tokens/:pushToken",
    plane: "rest",
    body: AUTH_TOKEN,
    handler: (c, { body }) => {
      const app = c.get("app");
      const auth = authTokenOf(app, body.authToken);
      const pushToken = c.req.param("pushToken")!;
      const t = app.notifications.tokens.get(pushToken);
      if (!t || t.uid !== auth.uid) throw apiError("ERR_TOKEN_NOT_FOUND", { pushToken });
      app.notifications.removeToken(pushToken);
      return ok(c, remaining(app, auth.uid));
    },
  }),
);

/**
 * Registers (or moves) a token, replacing the session's previous one of its kind; the user's timezone follows the
 * device's; beyond 100 the oldest goes.
 */
function register(app: AppState, auth: AuthTokenRecord, body: Body, field: string, now: number): void {
  const pushToken = body[field] as string;
  const existing = app.notifications.tokens.get(pushToken);
  const t: PushTokenRecord = {
    pushToken,
    uid: auth.uid,
    authToken: auth.authToken,
    platform: body.platform as string,
    pushTokenType: field === "voipToken" ? "voip" : "chat",
    createdAt: existing?.uid === auth.uid ? existing.createdAt : now,
    updatedAt: now,
  };
  if (typeof body.providerId === "string" && body.providerId !== "") t.providerId = body.providerId;
  if (typeof body.timezone === "string") {
    t.timezone = body.timezone;
    app.notifications.ensureUser(auth.uid).timezone = body.timezone;
  }
  // "Maximum Push tokens by an auth token: 1" (notifications/constraints-and-limits.mdx): a session's new token
  // replaces its previous one of the same kind; the iOS guides register an APNs token and a VoIP token on one login,
  // so the two kinds are kept apart (docs/coverage.md, "Where the docs disagree").
  for (const other of app.notifications.tokensOf(auth.uid))
    if (other.authToken === auth.authToken && other.pushTokenType === t.pushTokenType && other.pushToken !== pushToken)
      app.notifications.removeToken(other.pushToken);
  app.notifications.addToken(t);
  const mine = app.notifications.tokensOf(auth.uid).sort((a, b) => a.createdAt - b.createdAt);
  for (const old of mine.slice(0, Math.max(0, mine.length - TOKENS_PER_USER))) app.notifications.removeToken(old.pushToken);
}
