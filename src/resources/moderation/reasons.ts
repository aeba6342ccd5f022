import { Hono } from "hono";
import type { Ctx, Env } from "../../http/context.js";
import { apiError } from "../../http/errors.js";
import { ok } from "../../http/reply.js";
import { Query, readBody, validate } from "../../http/validate.js";
import type { ReasonRecord } from "../../store/moderation.js";
import { bareSuccess, currentList, listLimit, byPathId } from "./input.js";
import { reasonView } from "./views.js";

/** Flag reasons (`/moderation/reasons`): the platform's three defaults are there from the start. */

const ID = /^[A-Za-z0-9_-]+$/;

function pathReason(c: Ctx): ReasonRecord {
  return byPathId(c.get("app").moderation.reasons, c.req.param("id")!, "ERR_REASON_NOT_FOUND");
}

export const reasons = new Hono<Env>()
  .post("/moderation/reasons", async (c) => {
    const body = await readBody(c);
    validate(body, {
      id: { required: true, type: "string", max: 100, pattern: ID, patternMessage: "The id may only contain letters, numbers, dashes and underscores." },
      name: { required: true, type: "string", max: 100 },
      description: { type: "string", max: 1000 },
    });
    const app = c.get("app");
    const id = body.id as string;
    if (app.moderation.reasons.has(id)) throw apiError("ERR_REASON_ALREADY_EXISTS", { id });
    const now = c.get("emulator").clock.now();
    const reason: ReasonRecord = { id, name: body.name as string, createdAt: now, updatedAt: now };
    if (typeof body.description === "string") reason.description = body.description;
    app.moderation.saveReason(reason);
    return ok(c, reasonView(reason, "created"));
  })

  .get("/moderation/reasons", (c) => {
    const q = new Query(c);
    const limit = listLimit(q, 100);
    q.done();
    const all = [...c.get("app").moderation.reasons.values()].slice(0, limit);
    return currentList(c, all.map((r) => reasonView(r, "listed")), limit);
  })

  .get("/moderation/reasons/:id", (c) => ok(c, reasonView(pathReason(c))))

  .put("/moderation/reasons/:id", async (c) => {
    const reason = pathReason(c);
    const body = await readBody(c);
    validate(body, { name: { filled: true, type: "string", max: 100 }, description: { type: "string", max: 1000 } });
    if (typeof body.name === "string") reason.name = body.name;
    if (typeof body.description === "string") reason.description = body.description;
    reason.updatedAt = c.get("emulator").clock.now();
    c.get("app").moderation.saveReason(reason);
    return ok(c, reasonView(reason));
  })

  .delete("/moderation/reasons/:id", (c) => {
    const reason = pathReason(c);
    c.get("app").moderation.deleteReason(reason.id);
    return bareSuccess(c, `The reason with id ${reason.id} has been deleted successfully.`);
  });
