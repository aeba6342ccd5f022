import type { Ctx } from "../../http/context.js";
import { apiError } from "../../http/errors.js";
import { ok } from "../../http/reply.js";
import { operation, routes } from "../../http/operation.js";
import type { ReasonRecord } from "../../store/moderation.js";
import { bareSuccess, currentList, limitQuery, byPathId } from "./input.js";
import { reasonView } from "./views.js";

/** Flag reasons (`/moderation/reasons`): the platform's three defaults are there from the start. */

const ID = /^[A-Za-z0-9_-]+$/;
const DESCRIPTION = { type: "string", max: 1000 } as const;

function pathReason(c: Ctx): ReasonRecord {
  return byPathId(c.get("app").moderation.reasons, c.req.param("id")!, "ERR_REASON_NOT_FOUND");
}

export const reasons = routes(
  operation({
    id: "create-reason",
    method: "POST",
    path: "/moderation/reasons",
    plane: "rest",
    body: {
      id: { required: true, type: "string", max: 100, pattern: ID, patternMessage: "The id may only contain letters, numbers, dashes and underscores." },
      name: { required: true, type: "string", max: 100 },
      description: DESCRIPTION,
    },
    handler: (c, { body }) => {
      const app = c.get("app");
      const id = body.id as string;
      if (app.moderation.reasons.has(id)) throw apiError("ERR_REASON_ALREADY_EXISTS", { id });
      const now = c.get("emulator").clock.now();
      const reason: ReasonRecord = { id, name: body.name as string, createdAt: now, updatedAt: now };
      if (typeof body.description === "string") reason.description = body.description;
      app.moderation.saveReason(reason);
      return ok(c, reasonView(reason, "created"));
    },
  }),

  operation({
    id: "list-reasons",
    method: "GET",
    path: "/moderation/reasons",
    plane: "rest",
    query: limitQuery(100),
    handler: (c, { query: { limit } }) => {
      const all = [...c.get("app").moderation.reasons.values()].slice(0, limit);
      return currentList(c, all.map((r) => reasonView(r, "listed")), limit);
    },
  }),

  operation({ id: "get-reason-details", method: "GET", path: "/moderation/reasons/:id", plane: "rest", handler: (c) => ok(c, reasonView(pathReason(c))) }),

  operation({
    id: "update-reason-details",
    method: "PUT",
    path: "/moderation/reasons/:id",
    plane: "rest",
    body: { name: { filled: true, type: "string", max: 100 }, description: DESCRIPTION },
    handler: (c, { body }) => {
      const reason = pathReason(c);
      if (typeof body.name === "string") reason.name = body.name;
      if (typeof body.description === "string") reason.description = body.description;
      reason.updatedAt = c.get("emulator").clock.now();
      c.get("app").moderation.saveReason(reason);
      return ok(c, reasonView(reason));
    },
  }),

  operation({
    id: "delete-reason",
    method: "DELETE",
    path: "/moderation/reasons/:id",
    plane: "rest",
    handler: (c) => {
      const reason = pathReason(c);
      c.get("app").moderation.deleteReason(reason.id);
      return bareSuccess(c, `The reason with id ${reason.id} has been deleted successfully.`);
    },
  }),
);
