import { Hono } from "hono";
import type { Env } from "../http/context.js";
import { apiError } from "../http/errors.js";
import { Query } from "../http/validate.js";

/**
 * `/_emulator/coverage`: the documented operations a run called (control/coverage.ts). `app` (or `appId`, as the
 * journal's filter names it) narrows it to one app; an app that neither exists nor was called is the control
 * plane's ERR_APP_NOT_FOUND and an unknown parameter a 400, so that a typo does not read as "nothing covered" or
 * as every app.
 */
const PARAMS = ["app", "appId"];
export const coverageRoutes = new Hono<Env>()
  .get("/", (c) => {
    const q = new Query(c);
    for (const name of Object.keys(c.req.queries())) if (!PARAMS.includes(name)) q.fail(name, `The ${name} parameter is unknown (coverage takes app).`);
    const app = (q.str("app") ?? q.str("appId"))?.toLowerCase();
    q.done();
    const { store, control } = c.get("emulator");
    if (app !== undefined && !store.apps.has(app) && !control.coverage.has(app)) throw apiError("ERR_APP_NOT_FOUND", { appId: app });
    return c.json(control.coverage.report(app));
  })
  .delete("/", (c) => {
    c.get("emulator").control.coverage.clear();
    return c.json({ cleared: true });
  });
