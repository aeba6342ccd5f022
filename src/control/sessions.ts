import { Hono } from "hono";
import type { Env } from "../http/context.js";
import { Query } from "../http/validate.js";
import type { SessionFilter } from "../realtime/realtime.js";

function filterOf(q: Query): SessionFilter {
  const filter = { appId: q.str("appId")?.toLowerCase(), uid: q.str("uid")?.toLowerCase() };
  q.done();
  return filter;
}

/**
 * The realtime layer, seen from the control plane:
 *   GET    /_emulator/sessions?appId=&uid=   live WebSocket sessions (app, uid, device, platform, since)
 *   DELETE /_emulator/sessions?appId=&uid=   closes those sockets (close code 1001), to test reconnect logic
 *   GET    /_emulator/realtime/frames?afterId=   the last 200 frames sent to and received from clients
 */
export const sessionRoutes = new Hono<Env>()
  .get("/sessions", (c) => c.json({ sessions: c.get("emulator").realtime.list(filterOf(new Query(c))) }))
  .delete("/sessions", (c) => c.json({ closed: c.get("emulator").realtime.closeSessions(filterOf(new Query(c))) }))
  .get("/realtime/frames", (c) => {
    const q = new Query(c);
    const afterId = q.int("afterId", { def: 0, min: 0 });
    q.done();
    return c.json({ frames: c.get("emulator").realtime.recentFrames(afterId) });
  });
