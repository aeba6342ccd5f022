import { Hono } from "hono";
import type { Env } from "../http/context.js";
import { Query } from "../http/validate.js";
import type { DeliveryFilter } from "../webhooks/dispatcher.js";

/** The delivery filters from the query string. */
export function deliveryFilter(q: Query): DeliveryFilter {
  return {
    appId: q.str("appId")?.toLowerCase(),
    webhook: q.str("webhook"),
    trigger: q.str("trigger"),
    status: q.oneOf("status", ["pending", "retrying", "delivered", "failed"] as const),
  };
}

/** `GET /_emulator/webhooks/deliveries` (filters; `wait` long-polls for a first match) and `DELETE` to clear. */
export const deliveries = new Hono<Env>()
  .get("/webhooks/deliveries", async (c) => {
    const q = new Query(c);
    const filter = deliveryFilter(q);
    const wait = q.int("wait", { def: 0, min: 0, max: 60_000 });
    q.done();
    return c.json({ deliveries: await c.get("emulator").webhooks.waitFor(filter, wait) });
  })
  .delete("/webhooks/deliveries", (c) => {
    c.get("emulator").webhooks.clear();
    return c.json({ cleared: true });
  });
