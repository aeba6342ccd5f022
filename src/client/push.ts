import { ok } from "../http/reply.js";
import { operation, routes } from "../http/operation.js";
import type { Ctx } from "../http/context.js";
import { CONVERSATIONS, forUser, PREFERENCES, TIMEZONE } from "../resources/notifications/preferences.js";
import { registerFor, SESSION_REGISTRATION, unregisterPushTokens } from "../resources/notifications/tokens.js";

/**
 * The SDK's push-notification calls (`CometChatNotifications`), for the token's owner and session: the REST
 * plane's preference, mute, timezone and push-token operations (their handlers and body schemas) at the SDK's
 * paths. The SDK reads preferences in their update shape and a `success` flag on every write (without it, it
 * resolves with its own failure text). Only the SDK calls these paths: the operations have no platform id.
 */
const SUCCESS = { success: true };
const PREFS = "/notifications/push/v1/preferences";
const MUTE = "/notifications/push/v1/preferences/mute";
const TIMEZONE_PATH = "/notifications/v1/preferences/timezone";
const TOKENS = "/notifications/push/v1/tokens";
const me = (c: Ctx) => c.get("actor")!;

export const clientPush = routes(
  operation({ method: "GET", path: PREFS, plane: "client", handler: (c) => ok(c, forUser.effective(c, me(c))) }),
  operation({
    method: "PATCH",
    path: PREFS,
    plane: "client",
    body: PREFERENCES,
    handler: (c, { body }) => (forUser.update(c, me(c), body), ok(c, forUser.effective(c, me(c)))),
  }),
  operation({ method: "DELETE", path: PREFS, plane: "client", handler: (c) => ok(c, forUser.reset(c, me(c))) }),
  operation({ method: "GET", path: MUTE, plane: "client", handler: (c) => ok(c, forUser.muted(c, me(c))) }),
  operation({ method: "PUT", path: MUTE, plane: "client", body: CONVERSATIONS, handler: (c, { body }) => (forUser.mute(c, me(c), body), ok(c, SUCCESS)) }),
  operation({ method: "DELETE", path: MUTE, plane: "client", body: CONVERSATIONS, handler: (c, { body }) => (forUser.unmute(c, me(c), body), ok(c, SUCCESS)) }),
  operation({ method: "GET", path: TIMEZONE_PATH, plane: "client", handler: (c) => ok(c, { ...forUser.timezone(c, me(c)), ...SUCCESS }) }),
  operation({
    method: "PATCH",
    path: TIMEZONE_PATH,
    plane: "client",
    body: TIMEZONE,
    handler: (c, { body }) => ok(c, { ...forUser.setTimezone(c, me(c), body), ...SUCCESS }),
  }),
  operation({
    method: "POST",
    path: TOKENS,
    plane: "client",
    body: SESSION_REGISTRATION,
    handler: async (c, { body }) => (await registerFor(c, body), ok(c, SUCCESS)),
  }),
  // The SDK's unregisterPushToken: this session's tokens.
  operation({ method: "DELETE", path: TOKENS, plane: "client", handler: (c) => ok(c, { ...unregisterPushTokens(c.get("app"), c.get("authToken"), false), ...SUCCESS }) }),
);
