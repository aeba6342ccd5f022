import type { Ctx } from "../../http/context.js";
import { apiError, ApiError, badRequest } from "../../http/errors.js";
import { onBehalfOf } from "../../http/auth.js";
import { queryParams } from "../../http/advice.js";
import { operation, routes } from "../../http/operation.js";
import { parseQuery, q, type ParsedQuery } from "../../http/query-spec.js";
import type { AppState } from "../../store/app-state.js";
import { groupConversationId } from "../../store/conversation-ids.js";
import type { MessageRecord, UserRecord } from "../../store/types.js";
import { requireAllowed } from "../roles/enforce.js";
import { pathMessage, visibleTo, type Visible } from "../../views/access.js";
import { messageView, type EntityMemo } from "../../views/messages.js";

/** One thread as a viewer sees it: its parent, its visible replies, and when it last moved. */
interface Thread {
  parent: MessageRecord;
  replies: MessageRecord[];
  updatedAt: number;
}

/** The conversations whose threads a viewer may list: their own (all of the app's without a viewer). */
function conversationsOf(app: AppState, viewer: UserRecord | undefined): Iterable<string> {
  if (!viewer) return app.messages.conversationsWithThreads();
  return [...app.conversations.directOf(viewer.uid), ...[...app.groups.groupsOf(viewer.uid).keys()].map(groupConversationId)];
}

function visibleOrNone(app: AppState, viewer: UserRecord | undefined, conversationId: string): Visible | undefined {
  if (!viewer) return { conversationId, after: 0, until: Infinity };
  try {
    return visibleTo(app, viewer, conversationId);
  } catch (e) {
    if (e instanceof ApiError) return undefined;
    throw e;
  }
}

/**
 * The threads a viewer sees (index reads: the viewer's conversations, then each one's thread parents). With `only`,
 * the threads of that one conversation, which the viewer must be able to read (as its message list).
 */
function threadsOf(app: AppState, viewer: UserRecord | undefined, only?: string): Thread[] {
  if (only !== undefined && viewer) visibleTo(app, viewer, only); // refused as its message list is
  const out: Thread[] = [];
  for (const conversationId of only === undefined ? conversationsOf(app, viewer) : [only]) {
    const parents = app.messages.threadsIn(conversationId);
    if (parents.size === 0) continue;
    const v = visibleOrNone(app, viewer, conversationId);
    if (!v) continue;
    for (const id of parents) {
      const parent = app.messages.get(id);
      if (!parent || parent.id <= v.after || parent.id > v.until) continue;
      const replies = app.messages.thread(id).filter((m) => m.id > v.after && m.id <= v.until);
      if (replies.length > 0) out.push({ parent, replies, updatedAt: replies.at(-1)!.sentAt });
    }
  }
  return out;
}

/** Null and empty defaults the platform's thread list shows on `lastReply` for what a reply does not have. */
const LAST_REPLY_DEFAULTS = { muid: "", editedAt: null, editedBy: "", deliveredAt: null, readAt: null, deletedAt: null };

function threadParent(c: Ctx): { app: AppState; viewer: UserRecord; parent: MessageRecord } {
  const viewer = onBehalfOf(c, "required");
  const app = c.get("app");
  const parent = pathMessage(app, c.req.param("id")!, viewer);
  if (parent.parentId !== undefined) throw apiError("ERR_MESSAGE_THREAD_NESTING", { id: parent.id });
  return { app, viewer, parent };
}

/** The thread list's parameters (also what the client plane's per-conversation thread lists take). */
export const THREADS_QUERY = {
  limit: q.int({ def: 100, min: 1, max: 1000 }),
  affix: q.oneOf(["append", "prepend"]),
  updatedAt: q.int(),
  participatedByMe: q.bool(),
  withUnreadReplyCount: q.bool(),
  withMentionCount: q.bool(),
};

/**
 * The threads the viewer sees, most recently active first, by the `updatedAt` cursor: `append` continues with
 * older threads, `prepend` returns the newer ones. `only` names one conversation (from the viewer), as the SDK's
 * `users/{uid}/threads` and `groups/{guid}/threads` ask. Those client-plane routes (src/client/routes.ts, not yet
 * declared) pass no `query`: it is parsed here by the same declaration.
 */
export function threadList(c: Ctx, only?: (app: AppState, viewer: UserRecord) => string, query?: ParsedQuery<typeof THREADS_QUERY>): Response {
  const viewer = only ? onBehalfOf(c, "required") : onBehalfOf(c, "optional");
  const app = c.get("app");
  requireAllowed(app, viewer, "u.listMessages");
  const conversationId = only?.(app, viewer!);
  query ??= parseQuery(THREADS_QUERY, c.req.url.includes("?") ? queryParams(c) : undefined, c.get("actor") !== undefined);
  const { limit, updatedAt: cursor } = query;
  const affix = query.affix ?? "append";
  const flags = { participatedByMe: query.participatedByMe, withUnreadReplyCount: query.withUnreadReplyCount, withMentionCount: query.withMentionCount };
  if (!viewer && Object.values(flags).some(Boolean))
    throw badRequest({ onBehalfOf: ["The onBehalfOf header is required for participatedByMe, withUnreadReplyCount and withMentionCount."] });
  let list = threadsOf(app, viewer, conversationId);
  if (flags.participatedByMe) list = list.filter((t) => t.parent.sender === viewer!.uid || t.replies.some((m) => m.sender === viewer!.uid));
  const newestFirst = (a: Thread, b: Thread) => b.updatedAt - a.updatedAt || b.replies.at(-1)!.id - a.replies.at(-1)!.id;
  list.sort(newestFirst);
  if (cursor !== undefined && affix === "append") list = list.filter((t) => t.updatedAt < cursor).slice(0, limit);
  else if (cursor !== undefined) list = list.filter((t) => t.updatedAt > cursor).slice(-limit);
  else list = list.slice(0, limit);

  const memo: EntityMemo = new Map();
  const data = list.map((t) => {
    const out: Record<string, unknown> = { ...messageView(app, t.parent, viewer, memo), replyCount: t.replies.length };
    out.lastReply = { ...LAST_REPLY_DEFAULTS, ...messageView(app, t.replies.at(-1)!, viewer, memo) };
    if (viewer) out.threadSubscribed = app.threadSubscriptions.at(viewer.uid, t.parent.id) !== undefined;
    const readId = flags.withUnreadReplyCount || flags.withMentionCount ? app.conversations.state(viewer!.uid, t.parent.conversationId)?.readId ?? 0 : 0;
    const unread = t.replies.filter((m) => m.id > readId && m.sender !== viewer?.uid);
    if (flags.withUnreadReplyCount) out.unreadReplyCount = unread.length;
    if (flags.withMentionCount) out.unreadMentionCount = unread.filter((m) => m.mentionedUids?.includes(viewer!.uid)).length;
    return out;
  });
  const meta: Record<string, unknown> = { current: { limit, count: data.length } };
  if (list.length > 0) meta.next = { affix: "append", updatedAt: list.at(-1)!.updatedAt };
  return c.json({ data, meta });
}

export const threads = routes(
  operation({
    id: "list-all-threads",
    method: "GET",
    path: "/threads",
    plane: "rest",
    query: THREADS_QUERY,
    headers: ["onBehalfOf"],
    handler: (c, { query }) => threadList(c, undefined, query),
  }),

  operation({
    id: "subscribe-thread",
    method: "POST",
    path: "/messages/:id/thread/subscription",
    plane: "rest",
    headers: ["onBehalfOf"],
    handler: (c) => {
      const { app, viewer, parent } = threadParent(c);
      app.threadSubscriptions.add(viewer.uid, parent.id, c.get("emulator").clock.now());
      return c.json({ data: { success: true } });
    },
  }),

  operation({
    id: "unsubscribe-thread",
    method: "DELETE",
    path: "/messages/:id/thread/subscription",
    plane: "rest",
    headers: ["onBehalfOf"],
    handler: (c) => {
      const { app, viewer, parent } = threadParent(c);
      app.threadSubscriptions.remove(viewer.uid, parent.id);
      return c.json({ data: { success: true } });
    },
  }),
);
