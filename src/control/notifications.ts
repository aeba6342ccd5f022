import { Hono } from "hono";
import type { Env } from "../http/context.js";
import { Query } from "../http/validate.js";
import type { NotificationFilter } from "../notifications/outbox.js";

export const CHANNELS = ["push", "email", "sms"] as const;
export const PROVIDERS = ["fcm", "apns", "custom", "sendgrid", "twilio"] as const;
export const NOTIFICATION_STATUSES = ["suppressed", "scheduled", "sent", "pending", "retrying", "delivered", "failed"] as const;

/** The outbox filters from the query string. */
export function notificationFilter(q: Query): NotificationFilter {
  return {
    appId: q.str("appId")?.toLowerCase(),
    uid: q.str("uid")?.toLowerCase(),
    channel: q.oneOf("channel", CHANNELS),
    provider: q.oneOf("provider", PROVIDERS),
    conversationId: q.str("conversationId"),
    status: q.oneOf("status", NOTIFICATION_STATUSES),
    event: q.str("event"),
  };
}

/** `GET /_emulator/notifications` (filters; `wait` long-polls for a first match) and `DELETE` to clear. */
export const notificationsRoutes = new Hono<Env>()
  .get("/notifications", async (c) => {
    const q = new Query(c);
    const filter = notificationFilter(q);
    const wait = q.int("wait", { def: 0, min: 0, max: 60_000 });
    q.done();
    return c.json({ notifications: await c.get("emulator").notifications.waitFor(filter, wait) });
  })
  .delete("/notifications", (c) => {
    c.get("emulator").notifications.clear();
    return c.json({ cleared: true });
  });
