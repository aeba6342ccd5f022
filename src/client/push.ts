import { Hono } from "hono";
import type { Env } from "../http/context.js";
import { ok } from "../http/reply.js";
import { userPreferences } from "../resources/notifications/preferences.js";
import { registerPushToken, unregisterPushTokens } from "../resources/notifications/tokens.js";

/**
 * The SDK's push-notification calls (`CometChatNotifications`), for the token's owner and session: the REST
 * plane's preference, mute, timezone and push-token operations at the SDK's paths. The SDK reads preferences in
 * their update shape and a `success` flag on every write (without it, it resolves with its own failure text).
 */
const SUCCESS = { success: true };

export const clientPush = new Hono<Env>()
  .get("/notifications/push/v1/preferences", (c) => ok(c, userPreferences.effective(c)))
  .patch("/notifications/push/v1/preferences", async (c) => (await userPreferences.update(c), ok(c, userPreferences.effective(c))))
  .delete("/notifications/push/v1/preferences", (c) => ok(c, userPreferences.reset(c)))
  .get("/notifications/push/v1/preferences/mute", (c) => ok(c, userPreferences.muted(c)))
  .put("/notifications/push/v1/preferences/mute", async (c) => (await userPreferences.mute(c), ok(c, SUCCESS)))
  .delete("/notifications/push/v1/preferences/mute", async (c) => (await userPreferences.unmute(c), ok(c, SUCCESS)))
  .get("/notifications/v1/preferences/timezone", (c) => ok(c, { ...userPreferences.timezone(c), ...SUCCESS }))
  .patch("/notifications/v1/preferences/timezone", async (c) => ok(c, { ...(await userPreferences.setTimezone(c)), ...SUCCESS }))
  .post("/notifications/push/v1/tokens", async (c) => (await registerPushToken(c), ok(c, SUCCESS)))
  // The SDK's unregisterPushToken: this session's tokens.
  .delete("/notifications/push/v1/tokens", (c) => ok(c, { ...unregisterPushTokens(c.get("app"), c.get("authToken"), false), ...SUCCESS }));
