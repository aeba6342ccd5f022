import type { Ctx } from "../../http/context.js";
import { onBehalfOf } from "../../http/auth.js";
import { badRequest } from "../../http/errors.js";
import { ok } from "../../http/reply.js";
import { operation, routes } from "../../http/operation.js";
import { q, type ParsedQuery } from "../../http/query-spec.js";
import type { AppState } from "../../store/app-state.js";
import { userConversationId } from "../../store/conversation-ids.js";
import type { ReactionRecord, UserRecord } from "../../store/types.js";
import { brief } from "../../webhooks/payloads.js";
import { pathMessage } from "../../views/access.js";
import { messageView } from "../../views/messages.js";
import { userView } from "../../views/users.js";
import { requireAllowed, requireScopeAllowed, scopeAllowList } from "../roles/enforce.js";

function reactionView(app: AppState, r: ReactionRecord, viewerUid?: string): Record<string, unknown> {
  const user = app.users.get(r.uid);
  const reactedBy = user ? userView(user, {}) : { uid: r.uid, name: r.uid };
  if (user && viewerUid && viewerUid !== r.uid) reactedBy.conversationId = userConversationId(viewerUid, r.uid);
  return { id: String(r.id), messageId: String(r.messageId), reaction: r.reaction, uid: r.uid, reactedAt: r.reactedAt, reactedBy };
}

function reactionPayload(r: ReactionRecord, user: UserRecord) {
  return { id: String(r.id), messageId: String(r.messageId), reaction: r.reaction, uid: r.uid, reactedAt: r.reactedAt, reactedBy: brief(user) };
}

/** The reaction in the path: any emoji or word, at most 100 characters. */
function pathReaction(c: Ctx): string {
  const reaction = c.req.param("reaction") ?? "";
  if (reaction.trim() === "" || [...reaction].length > 100)
    throw badRequest({ reaction: ["The reaction must be between 1 and 100 characters."] });
  return reaction;
}

/** A page of reactions: `limit` of them after the reaction `id` (the cursor). */
const LIST_QUERY = { limit: q.int({ def: 100, min: 1, max: 1000 }), id: q.int() };

/** Reaction records in id order from the cursor on, with the reference's `{current, next: {affix, id}}` meta. */
function listReactions(c: Ctx, query: ParsedQuery<typeof LIST_QUERY>, only?: string) {
  const viewer = onBehalfOf(c, "optional");
  const app = c.get("app");
  const m = pathMessage(app, c.req.param("id")!, viewer);
  const group = m.receiverType === "group" ? app.groups.get(m.receiver) : undefined;
  if (group) requireScopeAllowed(app, group, viewer, "listReactions");
  // A scope permission may narrow whose reactions a member sees.
  const scopes = group ? scopeAllowList(app, group, viewer, "listReactions.allowedScopes") : undefined;
  const limit = query.limit;
  const after = query.id ?? 0;
  const visible = (uid: string) => !scopes || scopes.includes(app.groups.member(group!.guid, uid)?.scope ?? "");
  const all = app.reactions.of(m.id).filter((r) => r.id > after && (only === undefined || r.reaction === only) && visible(r.uid));
  const items = all.slice(0, limit);
  const last = items.at(-1);
  const meta: Record<string, unknown> = { current: { limit, count: items.length } };
  if (last) meta.next = { affix: "append", id: String(last.id) };
  return c.json({ data: items.map((r) => reactionView(app, r, viewer?.uid)), meta });
}

export const reactions = routes(
  operation({
    id: "list-all-reactions",
    method: "GET",
    path: "/messages/:id/reactions",
    plane: "rest",
    query: LIST_QUERY,
    headers: ["onBehalfOf"],
    handler: (c, { query }) => listReactions(c, query),
  }),

  operation({
    id: "get-message-reactions",
    method: "GET",
    path: "/messages/:id/reactions/:reaction",
    plane: "rest",
    query: LIST_QUERY,
    headers: ["onBehalfOf"],
    handler: (c, { query }) => listReactions(c, query, pathReaction(c)),
  }),

  // Reacting twice with the same reaction, or removing one that is not there, changes nothing.
  operation({
    id: "add-message-reactions",
    method: "POST",
    path: "/messages/:id/reactions/:reaction",
    plane: "rest",
    headers: ["onBehalfOf"],
    handler: (c) => {
      const user = onBehalfOf(c, "required");
      const app = c.get("app");
      const m = pathMessage(app, c.req.param("id")!, user);
      const reaction = pathReaction(c);
      requireAllowed(app, user, "u.addReaction");
      const group = m.receiverType === "group" ? app.groups.get(m.receiver) : undefined;
      if (group) requireScopeAllowed(app, group, user, "addReaction");
      if (!app.reactions.find(m.id, reaction, user.uid)) {
        const r = app.reactions.add({ messageId: m.id, reaction, uid: user.uid, reactedAt: c.get("emulator").clock.now() });
        app.emit("message_reaction_added", () => ({ reaction: reactionPayload(r, user) }), m);
      }
      return ok(c, messageView(app, m, user));
    },
  }),

  operation({
    id: "remove-message-reactions",
    method: "DELETE",
    path: "/messages/:id/reactions/:reaction",
    plane: "rest",
    headers: ["onBehalfOf"],
    handler: (c) => {
      const user = onBehalfOf(c, "required");
      const app = c.get("app");
      const m = pathMessage(app, c.req.param("id")!, user);
      const existing = app.reactions.find(m.id, pathReaction(c), user.uid);
      if (existing) {
        app.reactions.remove(existing);
        app.emit("message_reaction_removed", () => ({ reaction: reactionPayload(existing, user) }), m);
      }
      return ok(c, messageView(app, m, user));
    },
  }),
);
