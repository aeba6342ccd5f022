import { apiError, badRequest } from "../../http/errors.js";
import { onBehalfOf } from "../../http/auth.js";
import { success } from "../../http/reply.js";
import { operation, routes } from "../../http/operation.js";
import { q } from "../../http/query-spec.js";
import type { BlockedStatus, FlagEntry } from "../../store/moderation.js";
import { pathMessage } from "../../views/access.js";
import { bareSuccess, currentList, limitQuery, reviewer } from "./input.js";
import { blockedEntry, reviewBlocked, reviewFlagged } from "./review.js";
import { blockedView, flagList } from "./views.js";

/** Flagging messages, and the flagged, reviewed and blocked queues with their reviews. */

export const queues = routes(
  operation({
    id: "flag-a-message",
    method: "POST",
    path: "/messages/:id/flagged",
    plane: "rest",
    // The newest file names the reason `id`; older ones `reasonId` (with a `remark`): both are read.
    body: { id: { type: "string", max: 100 }, reasonId: { type: "string", max: 100 }, remark: { type: "string", max: 1000 } },
    headers: ["onBehalfOf"],
    handler: (c, { body }) => {
      const user = onBehalfOf(c, "required");
      const app = c.get("app");
      const m = pathMessage(app, c.req.param("id")!, user);
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
    },
  }),

  operation({
    id: "list-flagged-messages",
    method: "GET",
    path: "/moderation/flagged-messages",
    plane: "rest",
    query: limitQuery(50),
    handler: (c, { query: { limit } }) => currentList(c, flagList(c.get("app"), false, limit), limit),
  }),

  operation({
    id: "blockreview-flagged-message",
    method: "PATCH",
    path: "/moderation/flagged-messages/:id",
    plane: "rest",
    body: { status: { required: true, type: "string", in: ["approved", "disapproved"] } },
    headers: ["onBehalfOf"],
    handler: (c, { body }) => {
      const app = c.get("app");
      const raw = c.req.param("id")!;
      const entry = /^\d{1,15}$/.test(raw) ? app.moderation.flags.get(Number(raw)) : undefined;
      if (!entry || entry.status !== "pending") throw apiError("ERR_FLAGGED_MESSAGE_NOT_FOUND", { id: raw });
      const status = body.status as "approved" | "disapproved";
      reviewFlagged(app, c.get("emulator").clock.now(), entry, status, reviewer(c));
      return bareSuccess(
        c,
        status === "approved" ? `Message with id ${entry.messageId} has been unflagged successfully.` : `Message with id ${entry.messageId} has been disapproved successfully.`,
      );
    },
  }),

  operation({
    id: "list-reviewed-messages",
    method: "GET",
    path: "/moderation/reviewed-messages",
    plane: "rest",
    query: limitQuery(50),
    handler: (c, { query: { limit } }) => currentList(c, flagList(c.get("app"), true, limit), limit),
  }),

  operation({
    id: "list-moderation-blocked-messages",
    method: "GET",
    path: "/moderation/blocked-messages",
    plane: "rest",
    query: { ...limitQuery(50), status: q.oneOf(["pending", "approved", "rejected"]) },
    handler: (c, { query: { limit, status } }) => {
      const app = c.get("app");
      const out: Record<string, unknown>[] = [];
      for (const entry of app.moderation.blocked.newest(status)) {
        if (out.length === limit) break;
        out.push(blockedView(app, entry));
      }
      return currentList(c, out, limit);
    },
  }),

  // One operation for both documented forms: review (`status` + `reviewed`, review-blocked-message) and approve
  // (`status` alone, approve-moderation-blocked-messages), which the platform publishes on the same method and path.
  operation({
    id: "review-blocked-message",
    method: "PATCH",
    path: "/moderation/blocked-messages/:id",
    plane: "rest",
    body: { status: { required: true, type: "string", in: ["approved", "rejected"] }, reviewed: { type: "boolean" } },
    headers: ["onBehalfOf"],
    handler: (c, { body }) => {
      const app = c.get("app");
      const entry = blockedEntry(app, c.req.param("id")!);
      const status = body.status as Exclude<BlockedStatus, "pending">;
      reviewBlocked(app, c.get("emulator").clock.now(), entry, status, reviewer(c));
      const id = entry.message.id;
      return success(c, body.reviewed !== undefined ? `Message with ID ${id} has been reviewed successfully.` : `Message with ID ${id} has been ${status}.`);
    },
  }),
);
