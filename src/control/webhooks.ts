import { Hono } from "hono";
import type { Ctx, Env } from "../http/context.js";
import { Query } from "../http/validate.js";
import type { DeliveryFilter } from "../webhooks/dispatcher.js";

/** The delivery filters from the query string. */
export function deliveryFilter(q: Query): DeliveryFilter {
  return {
    appId: q.str("appId")?.toLowerCase(),
    kind: q.oneOf("kind", ["webhook", "bot"] as const),
    webhook: q.str("webhook"),
    bot: q.str("bot")?.toLowerCase(),
    trigger: q.str("trigger"),
    status: q.oneOf("status", ["pending", "retrying", "delivered", "failed"] as const),
  };
}

/** Lists the deliveries matching the query (`only` narrows to one kind); `wait` long-polls for a first match. */
async function listDeliveries(c: Ctx, only?: DeliveryFilter["kind"]) {
  const q = new Query(c);
  const filter = deliveryFilter(q);
  if (only) filter.kind = only;
  const wait = q.int("wait", { def: 0, min: 0, max: 60_000 });
  q.done();
  return c.json({ deliveries: await c.get("emulator").webhooks.waitFor(filter, wait) });
}

/**
 * One delivery log for webhook deliveries and bot relays: `GET /_emulator/webhooks/deliveries` shows both (filter
 * `kind`), `GET /_emulator/bots/deliveries` the bot relays only; `DELETE` clears what the path shows.
 */
export const deliveries = new Hono<Env>()
  .get("/webhooks/deliveries", (c) => listDeliveries(c))
  .delete("/webhooks/deliveries", (c) => {
    c.get("emulator").webhooks.clear();
    return c.json({ cleared: true });
  })
  .get("/bots/deliveries", (c) => listDeliveries(c, "bot"))
  .delete("/bots/deliveries", (c) => {
    c.get("emulator").webhooks.clear("bot");
    return c.json({ cleared: true });
  });
