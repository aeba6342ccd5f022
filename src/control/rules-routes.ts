import { Hono } from "hono";
import type { Env } from "../http/context.js";
import { apiError } from "../http/errors.js";
import { readBody } from "../http/validate.js";

/** `/_emulator/rules`: the ordered fault and latency rules. */
export const rulesRoutes = new Hono<Env>()
  .get("/", (c) => c.json({ rules: c.get("emulator").control.rules.list() }))

  .post("/", async (c) => {
    const body = await readBody(c);
    return c.json(c.get("emulator").control.rules.add(body), 201);
  })

  .delete("/", (c) => {
    const { rules } = c.get("emulator").control;
    const deleted = rules.list().map((r) => r.id);
    rules.clear();
    return c.json({ deleted });
  })

  .get("/:id", (c) => {
    const id = c.req.param("id");
    const rule = c.get("emulator").control.rules.get(id);
    if (!rule) throw apiError("ERR_RULE_NOT_FOUND", { id });
    return c.json(rule);
  })

  .delete("/:id", (c) => {
    const id = c.req.param("id");
    if (!c.get("emulator").control.rules.remove(id)) throw apiError("ERR_RULE_NOT_FOUND", { id });
    return c.json({ deleted: [id] });
  });
