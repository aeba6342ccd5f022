import type { Ctx } from "../../http/context.js";
import { apiError, badRequest } from "../../http/errors.js";
import { onBehalfOf } from "../../http/auth.js";
import { ok, success } from "../../http/reply.js";
import { operation, routes } from "../../http/operation.js";
import type { AppState } from "../../store/app-state.js";
import type { MessageRecord, UserRecord } from "../../store/types.js";
import { rolePermission, scopePermission } from "../roles/enforce.js";
import { pathMessage } from "../../views/access.js";
import { interactableIds } from "./send.js";
import { messageView, SYSTEM_UID } from "../../views/messages.js";
import { userEntity } from "../../views/users.js";
import { INTERACTION_GOAL_COMPLETED } from "../../realtime/delivery.js";

/** The platform's limits: pinned messages per conversation (user and app pins together), saved messages per user. */
export const PINNED_MESSAGES_LIMIT = 100;
export const SAVED_MESSAGES_LIMIT = 100;

/** A user pinning or unpinning needs the role's and, in a group, their scope's `pinMessage` permission. */
function requirePinPermission(app: AppState, actor: UserRecord, m: MessageRecord, action: "pinMessage" | "unpinMessage"): void {
  if (rolePermission(app, actor, "pinMessage") === "deny") throw apiError("ERR_PERMISSION_DENIED", { action, holder: `role ${actor.role}` });
  const group = m.receiverType === "group" ? app.groups.get(m.receiver) : undefined;
  const scope = group ? app.groups.member(group.guid, actor.uid)?.scope : undefined;
  if (group && scope && scopePermission(group, scope, "pinMessage") === "deny")
    throw apiError("ERR_PERMISSION_DENIED", { action, holder: `scope ${scope}` });
}

/** The path's message as `actor` may see it, refused when it was deleted. */
function target<A extends UserRecord | undefined>(c: Ctx, actor: A, action: string) {
  const app = c.get("app");
  const m = pathMessage(app, c.req.param("id")!, actor);
  if (m.deletedAt !== undefined) throw apiError("ERR_MESSAGE_ACTION_NOT_ALLOWED", { id: m.id, action, reason: "it has been deleted" });
  return { app, actor, m, now: c.get("emulator").clock.now() };
}

export const messageMarks = routes(
  // Pins belong to the conversation: everyone who sees the message sees who pinned it. Without onBehalfOf the app pins.
  operation({
    id: "pin-message",
    method: "POST",
    path: "/messages/:id/pin",
    plane: "rest",
    headers: ["onBehalfOf"],
    handler: (c) => {
      const { app, actor, m, now } = target(c, onBehalfOf(c, "optional"), "pinned");
      if (actor) requirePinPermission(app, actor, m, "pinMessage");
      if (m.pinnedAt === undefined) {
        if (app.messages.pinnedIn(m.conversationId) >= PINNED_MESSAGES_LIMIT)
          throw apiError("ERR_PINNED_MESSAGES_LIMIT_EXCEEDED", { conversationId: m.conversationId, limit: PINNED_MESSAGES_LIMIT });
        app.messages.pin(m, actor?.uid ?? SYSTEM_UID, now);
      }
      return ok(c, messageView(app, m, actor));
    },
  }),
  operation({
    id: "unpin-message",
    method: "DELETE",
    path: "/messages/:id/pin",
    plane: "rest",
    headers: ["onBehalfOf"],
    handler: (c) => {
      const actor = onBehalfOf(c, "optional");
      const app = c.get("app");
      const m = pathMessage(app, c.req.param("id")!, actor);
      if (actor) requirePinPermission(app, actor, m, "unpinMessage");
      app.messages.unpin(m);
      return ok(c, messageView(app, m, actor));
    },
  }),

  // Saves are private: only the saving user sees `savedAt`.
  operation({
    id: "save-message",
    method: "POST",
    path: "/messages/:id/save",
    plane: "rest",
    headers: ["onBehalfOf"],
    handler: (c) => {
      const { app, actor, m, now } = target(c, onBehalfOf(c, "required"), "saved");
      if (app.savedMessages.at(actor.uid, m.id) === undefined && app.savedMessages.count(actor.uid) >= SAVED_MESSAGES_LIMIT)
        throw apiError("ERR_SAVED_MESSAGES_LIMIT_EXCEEDED", { uid: actor.uid, limit: SAVED_MESSAGES_LIMIT });
      app.savedMessages.add(actor.uid, m.id, now);
      return ok(c, messageView(app, m, actor));
    },
  }),
  operation({
    id: "unsave-message",
    method: "DELETE",
    path: "/messages/:id/save",
    plane: "rest",
    headers: ["onBehalfOf"],
    handler: (c) => {
      const actor = onBehalfOf(c, "required");
      const app = c.get("app");
      const m = pathMessage(app, c.req.param("id")!, actor);
      app.savedMessages.remove(actor.uid, m.id);
      return ok(c, messageView(app, m, actor));
    },
  }),

  operation({
    id: "mark-message-as-interacted",
    method: "PATCH",
    path: "/messages/:id/interacted",
    plane: "rest",
    body: { interactions: { required: true, type: "array", max: 100, items: { required: true, type: "string", max: 255 } } },
    headers: ["onBehalfOf"],
    handler: (c, { body }) => {
      const { app, actor, m, now } = target(c, onBehalfOf(c, "required"), "marked as interacted");
      if (m.category !== "interactive")
        throw apiError("ERR_MESSAGE_ACTION_NOT_ALLOWED", { id: m.id, action: "marked as interacted", reason: "it is not an interactive message" });
      if (m.sender === actor.uid && m.data.allowSenderInteraction !== true)
        throw apiError("ERR_MESSAGE_ACTION_NOT_ALLOWED", {
          id: m.id,
          action: "marked as interacted",
          reason: "its sender may not interact with it (allowSenderInteraction is false)",
        });
      const declared = interactableIds(m);
      const elements = body.interactions as string[];
      const unknown = elements.flatMap((id, i) => (declared.has(id) ? [] : [i]));
      if (unknown.length > 0)
        throw badRequest(Object.fromEntries(unknown.map((i) => [`interactions.${i}`, [`The element ${elements[i]} is not an interactive element of the message ${m.id}.`]])));
      const before = goalMet(m, app.interactions.of(actor.uid, m.id));
      for (const id of elements) app.interactions.add(actor.uid, m.id, id, now);
      const interactions = app.interactions.of(actor.uid, m.id);
      // sdk/javascript/interactive-messages: onInteractionGoalCompleted, when this user's interactions meet the goal.
      if (!before && goalMet(m, interactions))
        app.emit(INTERACTION_GOAL_COMPLETED, () => ({ user: userEntity(actor), interactions: interactions?.map((i) => ({ ...i })) ?? [] }), m);
      return success(c, `The message id ${m.id} has been marked as interacted for the user ${actor.uid}.`);
    },
  }),
);

/**
 * Whether a user's interactions meet an interactive message's `interactionGoal`: `anyAction` any element, `anyOf` /
 * `oneOf` one of `elementIds`, `allOf` all of them, `none` (the default) never.
 */
function goalMet(m: MessageRecord, done: readonly { elementId: string }[] | undefined): boolean {
  if (!done || done.length === 0) return false;
  const goal = (m.data.interactionGoal ?? {}) as { type?: string; elementIds?: string[] };
  const ids = goal.elementIds ?? [];
  const has = (id: string) => done.some((d) => d.elementId === id);
  switch (goal.type) {
    case "anyAction":
      return true;
    case "anyOf":
    case "oneOf":
      return ids.some(has);
    case "allOf":
      return ids.length > 0 && ids.every(has);
    default:
      return false;
  }
}
