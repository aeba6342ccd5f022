import { Hono } from "hono";
import type { Ctx, Env } from "../../http/context.js";
import { apiError, badRequest } from "../../http/errors.js";
import { ok } from "../../http/reply.js";
import { Query, readBody, validate, type Body } from "../../http/validate.js";
import type { AppState } from "../../store/app-state.js";
import type { PushTokenRecord } from "../../store/notification-state.js";
import type { AuthTokenRecord } from "../../store/types.js";
import { isTimezone } from "./preferences.js";

/** Push tokens (§18.5): registered against an auth token (so per device/session), at most 100 per user. */

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

function allFlag(c: Ctx): boolean {
  const q = new Query(c);
  const all = q.bool("all");
  q.done();
  return all;
}

/**
 * Registers the push token a body names for a session: the body's `authToken`, or on the client plane the
 * session's own (the SDK's `registerPushToken` sends none).
 */
export async function registerPushToken(c: Ctx): Promise<void> {
  const session = c.get("authToken");
  const body = await readBody(c);
  validate(body, {
    platform: { required: true, type: "string", in: PLATFORMS },
    providerId: { type: "string", max: 100 },
    authToken: { required: !session, type: "string", max: 200 },
    timezone: { type: "string", max: 100 },
  });
  const field = tokenField(body.platform as string);
  validate(body, { [field]: { required: true, type: "string", max: 4096 } });
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

export const pushTokens = new Hono<Env>()
  .post("/notifications/push/v1/tokens", async (c) => {
    await registerPushToken(c);
    return ok(c, { success: true });
  })
  .get("/notifications/push/v1/tokens", (c) => {
    const q = new Query(c);
    const authToken = q.str("authToken");
    const all = q.bool("all");
    if (authToken === undefined) q.fail("authToken", "The authToken field is required.");
    q.done();
    const app = c.get("app");
    const auth = authTokenOf(app, authToken);
    const list = app.notifications.tokensOf(auth.uid).filter((t) => all || t.authToken === auth.authToken);
    return ok(c, { pushTokens: list.map(tokenView) });
  })
  .delete("/notifications/push/v1/tokens", async (c) => {
    const all = allFlag(c);
    const body = await readBody(c);
    validate(body, { authToken: { required: true, type: "string", max: 200 } });
    const app = c.get("app");
    return ok(c, unregisterPushTokens(app, authTokenOf(app, body.authToken), all));
  })
  .delete("/notifications/push/v1/tokens/:pushToken", async (c) => {
    const body = await readBody(c);
    validate(body, { authToken: { required: true, type: "string", max: 200 } });
    const app = c.get("app");
    const auth = authTokenOf(app, body.authToken);
    const pushToken = c.req.param("pushToken");
    const t = app.notifications.tokens.get(pushToken);
    if (!t || t.uid !== auth.uid) throw apiError("ERR_TOKEN_NOT_FOUND", { pushToken });
    app.notifications.removeToken(pushToken);
    return ok(c, remaining(app, auth.uid));
  });

/** Registers (or moves) a token; the user's timezone follows the device's; beyond 100 the oldest goes. */
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
  app.notifications.addToken(t);
  const mine = app.notifications.tokensOf(auth.uid).sort((a, b) => a.createdAt - b.createdAt);
  for (const old of mine.slice(0, Math.max(0, mine.length - TOKENS_PER_USER))) app.notifications.removeToken(old.pushToken);
}
