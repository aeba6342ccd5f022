import { Hono } from "hono";
import type { Env } from "../../http/context.js";
import { apiError, badRequest } from "../../http/errors.js";
import { onBehalfOf } from "../../http/auth.js";
import { success } from "../../http/reply.js";
import { Query, readBody, validate } from "../../http/validate.js";
import type { BlockedStatus, FlagEntry } from "../../store/moderation.js";
import { pathMessage } from "../../views/access.js";
import { bareSuccess, currentList, listLimit, reviewer } from "./input.js";
import { blockedEntry, reviewBlocked, reviewFlagged } from "./review.js";
import { blockedView, flagList } from "./views.js";

/** Flagging messages, and the flagged, reviewed and blocked queues with their reviews. */

export const queues = new Hono<Env>()
  .post("/messages/:id/flagged", async (c) => {
    const user = onBehalfOf(c, "required");
    const app = c.get("app");
    const m = pathMessage(app, c.req.param("id"), user);
    const body = await readBody(c);
    // The newest file names the reason `id`; older ones `reasonId` (with a `remark`): both are read.
    validate(body, { id: { type: "string", max: 100 }, reasonId: { type: "string", max: 100 }, remark: { type: "string", max: 1000 } });
    const reasonId = (body.id ?? body.reasonId) as string | undefined;
    if (!reasonId) throw badRequest({ id: ["The id field is required."] });
    if (!app.moderation.reasons.has(reasonId)) throw apiError("ERR_REASON_NOT_FOUND", { id: reasonId });
    const now = c.get("emulator").clock.now();
    let entry = app.moderation.flags.get(m.id);
    if (entry?.status === "pending" && entry.flaggedBy.some((f) => f.uid === user.uid))
      throw apiError("ERR_MESSAGE_ALREADY_FLAGGED", { uid: user.uid, id: m.id });
    if (!entry || entry.status !== "pending") {
      // A reviewed message flagged again is back in the queue, with its new flags only.
      entry = { messageId: m.id, flaggedBy: [], status: "pending", createdAt: now, updatedAt: now } satisfies FlagEntry;
      app.moderation.flags.put(entry);
    }
    const flag: FlagEntry["flaggedBy"][number] = { uid: user.uid, reasonId, flaggedAt: now };
    if (typeof body.remark === "string" && body.remark !== "") flag.remark = body.remark;
    app.moderation.flags.update(entry, (e) => {
      e.flaggedBy = [...e.flaggedBy, flag];
      e.updatedAt = now;
    });
    return bareSuccess(c, `Message ${m.id} has been flagged successfully.`);
  })

  .get("/moderation/flagged-messages", (c) => {
    const q = new Query(c);
    const limit = listLimit(q, 50);
    q.done();
    return currentList(c, flagList(c.get("app"), false, limit), limit);
  })

  .patch("/moderation/flagged-messages/:id", async (c) => {
    const app = c.get("app");
    const raw = c.req.param("id");
    const entry = /^\d{1,15}$/.test(raw) ? app.moderation.flags.get(Number(raw)) : undefined;
    const body = await readBody(c);
    validate(body, { status: { required: true, type: "string", in: ["approved", "disapproved"] } });
    if (!entry || entry.status !== "pending") throw apiError("ERR_FLAGGED_MESSAGE_NOT_FOUND", { id: raw });
    const status = body.status as "approved" | "disapproved";
    reviewFlagged(app, c.get("emulator").clock.now(), entry, status, reviewer(c));
    return bareSuccess(
      c,
      status === "approved" ? `Message with id ${entry.messageId} has been unflagged successfully.` : `Message with id ${entry.messageId} has been disapproved successfully.`,
    );
  })

  .get("/moderation/reviewed-messages", (c) => {
    const q = new Query(c);
    const limit = listLimit(q, 50);
    q.done();
    return currentList(c, flagList(c.get("app"), true, limit), limit);
  })

  .get("/moderation/blocked-messages", (c) => {
    const q = new Query(c);
    const limit = listLimit(q, 50);
    const status = q.oneOf("status", ["pending", "approved", "rejected"] as const);
    q.done();
    const app = c.get("app");
    const out: Record<string, unknown>[] = [];
    for (const entry of app.moderation.blocked.newest(status)) {
      if (out.length === limit) break;
      out.push(blockedView(app, entry));
    }
    return currentList(c, out, limit);
  })

  // One route for both documented forms: review (`status` + `reviewed`) and approve (`status` alone).
  .patch("/moderation/blocked-messages/:id", async (c) => {
    const app = c.get("app");
    const entry = blockedEntry(app, c.req.param("id"));
    const body = await readBody(c);
    validate(body, { status: { required: true, type: "string", in: ["approved", "rejected"] }, reviewed: { type: "boolean" } });
    const status = body.status as Exclude<BlockedStatus, "pending">;
    reviewBlocked(app, c.get("emulator").clock.now(), entry, status, reviewer(c));
    const id = entry.message.id;
    return success(c, body.reviewed !== undefined ? `Message with ID ${id} has been reviewed successfully.` : `Message with ID ${id} has been ${status}.`);
  });
