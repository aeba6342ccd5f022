import { Hono } from "hono";
import type { Env } from "../http/context.js";
import { Query } from "../http/validate.js";

/** `GET /_emulator/extensions/calls` (filters appId, extension, messageId) and `DELETE` to clear. */
export const extensionCallRoutes = new Hono<Env>()
  .get("/extensions/calls", (c) => {
    const q = new Query(c);
    const filter = { appId: q.str("appId")?.toLowerCase(), extension: q.str("extension"), messageId: q.str("messageId") };
    q.done();
    return c.json({ calls: c.get("emulator").control.extensionCalls.list(filter) });
  })
  .delete("/extensions/calls", (c) => {
    c.get("emulator").control.extensionCalls.clear();
    return c.json({ cleared: true });
  });
