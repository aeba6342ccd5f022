import type { Ctx } from "../../http/context.js";
import { apiError, badRequest } from "../../http/errors.js";
import { onBehalfOf } from "../../http/auth.js";
import { ok } from "../../http/reply.js";
import { operation, routes } from "../../http/operation.js";
import type { AppState } from "../../store/app-state.js";
import { groupConversationId, userConversationId } from "../../store/conversation-ids.js";
import type { GlobalPinRecord, UserRecord } from "../../store/types.js";
import { pathGroup } from "../groups/membership.js";
import { visibleTo } from "../../views/access.js";
import { SYSTEM_UID } from "../../views/messages.js";
import { requireUser } from "../users/lookup.js";

/** Pinned conversations: at most 5 per user, and at most 5 the app pins for everyone. */
export const USER_PINS_LIMIT = 5;
export const GLOBAL_PINS_LIMIT = 5;

export interface Pin {
  pinnedBy: string;
  pinnedAt: number;
  /** Where it lists: app pins first in their order, then the user's own in the order pinned. */
  rank: number;
}

/** The conversation an app pin names for `viewer` (the app's own one-on-one conversation without a viewer). */
function globalPinId(pin: GlobalPinRecord, viewer: UserRecord | undefined): string {
  return pin.guid !== undefined ? groupConversationId(pin.guid) : userConversationId(viewer?.uid ?? SYSTEM_UID, pin.uid!);
}

function globalPin(app: AppState, viewer: UserRecord | undefined, conversationId: string): Pin | undefined {
  const at = app.pinnedConversations.findIndex((p) => globalPinId(p, viewer) === conversationId);
  return at === -1 ? undefined : { pinnedBy: SYSTEM_UID, pinnedAt: app.pinnedConversations[at].pinnedAt, rank: at };
}

/** How a conversation is pinned for `viewer`, if it is: the app's pin wins over the user's own. */
export function pinOf(app: AppState, viewer: UserRecord, conversationId: string): Pin | undefined {
  const global = globalPin(app, viewer, conversationId);
  if (global) return global;
  const pinnedAt = app.conversations.state(viewer.uid, conversationId)?.pinnedAt;
  return pinnedAt === undefined ? undefined : { pinnedBy: viewer.uid, pinnedAt, rank: GLOBAL_PINS_LIMIT + pinnedAt };
}

/** The pin routes' conversation: the onBehalfOf user's with the path's user or group, which they must be able to see. */
function pinTarget(c: Ctx, kind: "user" | "group") {
  const viewer = onBehalfOf(c, "required");
  const app = c.get("app");
  const conversationId =
    kind === "group" ? groupConversationId(pathGroup(app, c.req.param("guid")!).guid) : userConversationId(viewer.uid, requireUser(app, c.req.param("uid")!).uid);
  visibleTo(app, viewer, conversationId);
  return { app, viewer, conversationId, reply: { conversationId, conversationType: kind } };
}

function userPinOperations(kind: "user" | "group", base: string) {
  return [
    operation({
      id: `pin-${kind}-conversation`,
      method: "POST",
      path: `${base}/conversation/pin`,
      plane: "rest",
      headers: ["onBehalfOf"],
      handler: (c) => {
        const { app, viewer, conversationId, reply } = pinTarget(c, kind);
        if (globalPin(app, viewer, conversationId)) throw apiError("ERR_SYSTEM_PINNED_CONVERSATION", { action: "pinned" });
        let pinnedAt = app.conversations.state(viewer.uid, conversationId)?.pinnedAt;
        if (pinnedAt === undefined) {
          if (app.conversations.pinnedCount(viewer.uid) >= USER_PINS_LIMIT)
            throw apiError("ERR_PINNED_CONVERSATIONS_LIMIT_EXCEEDED", { uid: viewer.uid, limit: USER_PINS_LIMIT });
          app.conversations.setPinned(viewer.uid, conversationId, (pinnedAt = c.get("emulator").clock.now()));
        }
        return ok(c, { ...reply, pinnedBy: viewer.uid, pinnedAt });
      },
    }),
    operation({
      id: `unpin-${kind}-conversation`,
      method: "DELETE",
      path: `${base}/conversation/pin`,
      plane: "rest",
      headers: ["onBehalfOf"],
      handler: (c) => {
        const { app, viewer, conversationId, reply } = pinTarget(c, kind);
        if (globalPin(app, viewer, conversationId)) throw apiError("ERR_SYSTEM_PINNED_CONVERSATION", { action: "unpinned" });
        app.conversations.setPinned(viewer.uid, conversationId, undefined);
        return ok(c, reply);
      },
    }),
  ];
}

function globalList(app: AppState) {
  return app.pinnedConversations.map((p) => ({
    conversationId: globalPinId(p, undefined),
    conversationType: p.guid !== undefined ? "group" : "user",
    pinnedBy: SYSTEM_UID,
    pinnedAt: p.pinnedAt,
  }));
}

export const conversationPins = routes(
  operation({
    id: "list-global-pinned-conversations",
    method: "GET",
    path: "/conversations/pinned",
    plane: "rest",
    handler: (c) => ok(c, globalList(c.get("app"))),
  }),
  /** Replaces the whole ordered list: entries kept keep their pinnedAt, new ones are pinned now. */
  operation({
    id: "replace-global-pinned-conversations",
    method: "PUT",
    path: "/conversations/pinned",
    plane: "rest",
    body: { pinnedConversations: { type: "array", items: { required: true, type: "object" } } },
    handler: (c, { body }) => {
      const app = c.get("app");
      // Not declared required: an empty list unpins everything (Laravel's `required` would refuse []).
      if (!Array.isArray(body.pinnedConversations)) throw badRequest({ pinnedConversations: ["The pinnedConversations field is required."] });
      const details: Record<string, string[]> = {};
      const keys: string[] = [];
      const wanted: GlobalPinRecord[] = [];
      (body.pinnedConversations as Record<string, unknown>[]).forEach((entry, i) => {
        const { uid, guid } = entry;
        const named = [uid, guid].filter((v) => v !== undefined);
        if (named.length !== 1 || typeof named[0] !== "string" || named[0] === "")
          return void (details[`pinnedConversations.${i}`] = ["Each entry must name exactly one of uid and guid."]);
        const pin: GlobalPinRecord =
          typeof uid === "string" ? { uid: requireUser(app, uid).uid, pinnedAt: 0 } : { guid: pathGroup(app, guid as string).guid, pinnedAt: 0 };
        const key = pin.uid !== undefined ? `u:${pin.uid}` : `g:${pin.guid}`;
        if (keys.includes(key)) return; // duplicates count once, at their first position
        keys.push(key);
        wanted.push(pin);
      });
      if (Object.keys(details).length > 0) throw badRequest(details);
      if (wanted.length > GLOBAL_PINS_LIMIT) throw apiError("ERR_SYSTEM_PINNED_CONVERSATIONS_LIMIT_EXCEEDED", { limit: GLOBAL_PINS_LIMIT });
      const now = c.get("emulator").clock.now();
      const before = app.pinnedConversations;
      app.pinnedConversations = wanted.map((p) => ({
        ...p,
        pinnedAt: before.find((b) => b.uid === p.uid && b.guid === p.guid)?.pinnedAt ?? now,
      }));
      return ok(c, globalList(app));
    },
  }),
  ...userPinOperations("user", "/users/:uid"),
  ...userPinOperations("group", "/groups/:guid"),
);
