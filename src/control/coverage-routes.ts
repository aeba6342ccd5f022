import { Hono } from "hono";
import type { Env } from "../http/context.js";
import { apiError } from "../http/errors.js";
import { Query } from "../http/validate.js";

/**
 * `/_emulator/coverage`: the documented operations a run called (control/coverage.ts). `app` narrows it to one
 * app; an app that neither exists nor was called is the control plane's ERR_APP_NOT_FOUND, so a typo does not
 * read as "nothing covered".
 */
export const coverageRoutes = new Hono<Env>()
  .get("/", (c) => {
    const q = new Query(c);
    const app = q.str("app")?.toLowerCase();
    q.done();
    const { store, control } = c.get("emulator");
    if (app !== undefined && !store.apps.has(app) && !control.coverage.has(app)) throw apiError("ERR_APP_NOT_FOUND", { appId: app });
    return c.json(control.coverage.report(app));
  })
  .delete("/", (c) => {
    c.get("emulator").control.coverage.clear();
    return c.json({ cleared: true });
  });
