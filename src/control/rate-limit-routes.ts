import { Hono } from "hono";
import type { Ctx, Env } from "../http/context.js";
import { apiError } from "../http/errors.js";
import { readBody } from "../http/validate.js";
import { Input } from "./input.js";

const LIMIT = { integer: true, min: 0, max: 1_000_000_000 };

function knownApp(c: Ctx): string {
  const appId = c.req.param("appId")!.toLowerCase();
  if (!c.get("emulator").store.apps.has(appId)) throw apiError("ERR_APP_NOT_FOUND", { appId });
  return appId;
}

function view(c: Ctx, appIds = [...c.get("emulator").store.apps.keys()]) {
  const { control, clock } = c.get("emulator");
  return control.rateLimits.view(appIds, clock.nowMs());
}

/** `/_emulator/rate-limits`: turn the platform's per-app limits on or off, and change them (per app). */
export const rateLimitRoutes = new Hono<Env>()
  .get("/", (c) => c.json(view(c)))

  .put("/", async (c) => {
    const input = new Input();
    const body = input.object(await readBody(c), "", ["enabled", "core", "standard"])!;
    const enabled = input.boolean(body.enabled, "enabled");
    const core = input.number(body.core, "core", LIMIT);
    const standard = input.number(body.standard, "standard", LIMIT);
    input.done();
    const { rateLimits } = c.get("emulator").control;
    if (enabled !== undefined) rateLimits.enabled = enabled;
    if (core !== undefined) rateLimits.limits.core = core;
    if (standard !== undefined) rateLimits.limits.standard = standard;
    return c.json(view(c));
  })

  .delete("/", (c) => {
    c.get("emulator").control.rateLimits.forget();
    return c.json(view(c));
  })

  .put("/:appId", async (c) => {
    const appId = knownApp(c);
    const input = new Input();
    const body = input.object(await readBody(c), "", ["core", "standard"])!;
    const limits = {
      core: body.core === null ? null : input.number(body.core, "core", LIMIT),
      standard: body.standard === null ? null : input.number(body.standard, "standard", LIMIT),
    };
    input.done();
    c.get("emulator").control.rateLimits.override(appId, limits);
    return c.json(view(c, [appId]).apps[0]);
  })

  .delete("/:appId", (c) => {
    const appId = knownApp(c);
    c.get("emulator").control.rateLimits.forget(appId);
    return c.json(view(c, [appId]).apps[0]);
  });
