import { onBehalfOf } from "../../http/auth.js";
import type { Ctx } from "../../http/context.js";
import { apiError, badRequest } from "../../http/errors.js";
import { ok } from "../../http/reply.js";
import { operation, routes } from "../../http/operation.js";
import { q, type ParsedQuery } from "../../http/query-spec.js";
import type { AppState } from "../../store/app-state.js";
import { visible, type FeedItemRecord, type PushRecord } from "../../store/campaigns.js";
import { engage, mark, MAX_ENGAGEMENTS, TOPIC, type Receipt } from "./engagement.js";
import { categoryView, feedItemView, pushView } from "./views.js";

/**
 * The campaign service as the SDK calls it on the client plane (`campaigns/...`, its own endpoint table rows):
 * the token owner's notification feed (list, item, unread count, delivered, read, engagement), campaign pushes
 * (delivered, clicked) and the app's template categories. Each user sees and marks their own items only; soft-deleted
 * and expired items are not shown. The REST API's feed operations (service/feed.ts) work on the same records.
 */

/** The feed filters the SDK's request builder sends (and the campaign service's documented ones it reads). */
const FEED_FILTERS = {
  readState: q.oneOf(["read", "unread", "all"]),
  templateCategory: q.str(),
  channelId: q.str(),
  tags: q.list(),
  tagMatch: q.oneOf(["any", "all"]),
  dateFrom: q.int(),
  dateTo: q.int(),
};
const FEED_QUERY = {
  limit: q.int({ def: 20, min: 1, max: 100 }),
  ...FEED_FILTERS,
  id: q.str(),
  sentAt: q.int({ description: "the cursor's time: the id places it already" }),
  affix: q.oneOf(["append", "prepend"]),
};
const CATEGORY_QUERY = { limit: q.int({ def: 50, min: 1, max: 100 }), cursor: q.str() };

/** One of the viewer's records by path id (another user's is as unknown as a missing one). */
function own<T extends { receiver: string }>(c: Ctx, records: ReadonlyMap<string, T>, param: string, code: "FEED_ITEM_NOT_FOUND" | "PUSH_NOTIFICATION_NOT_FOUND"): T {
  const viewer = onBehalfOf(c, "required");
  const id = c.req.param(param)!;
  const record = records.get(id);
  const deleted = record && (record as { deletedAt?: number }).deletedAt !== undefined;
  if (!record || deleted || record.receiver !== viewer.uid) throw apiError(code, { id });
  return record;
}
const ownItem = (c: Ctx) => own(c, c.get("app").campaigns.items, "feedItemId", "FEED_ITEM_NOT_FOUND");
const ownPush = (c: Ctx) => own(c, c.get("app").campaigns.pushes, "pushNotificationId", "PUSH_NOTIFICATION_NOT_FOUND");

/** Marks the record's receipts (recorded as events for analytics, engagement.ts). */
function marked<T extends FeedItemRecord | PushRecord>(c: Ctx, record: T, keys: readonly Receipt[]): T {
  return mark(c.get("app").campaigns, record, keys, c.get("emulator").clock.now());
}

/** Which of the feed's items the filters keep. */
function feedFilter(query: ParsedQuery<typeof FEED_FILTERS>, now: number): (item: FeedItemRecord) => boolean {
  const { readState, templateCategory: category, channelId, tags, dateFrom: from, dateTo: to } = query;
  const tagMatch = query.tagMatch ?? "any";
  return (item) =>
    visible(item, now) &&
    (readState === undefined || readState === "all" || (readState === "read") === (item.readAt !== undefined)) &&
    (category === undefined || item.templateCategory === category) &&
    (channelId === undefined || item.channelId === channelId) &&
    (tags === undefined || (tagMatch === "all" ? tags.every((t) => item.tags.includes(t)) : tags.some((t) => item.tags.includes(t)))) &&
    (from === undefined || item.sentAt >= from) &&
    (to === undefined || item.sentAt <= to);
}

/**
 * The feed, newest first, `limit` (default 20, at most 100) at a time. `meta.next {sentAt, id, affix: "append"}`
 * is the cursor the SDK sends back as query parameters for the next (older) page; `affix=prepend` with an `id`
 * asks for the items newer than it instead (still newest first).
 */
function feedPage(c: Ctx, viewer: string, query: ParsedQuery<typeof FEED_QUERY>) {
  const { limit, id: cursorId } = query;
  const keep = feedFilter(query, c.get("emulator").clock.now());
  const affix = query.affix ?? "append";
  const feed = c.get("app").campaigns.feedOf(viewer);
  const at = cursorId === undefined ? -1 : feed.findLastIndex((item) => item.id === cursorId);
  if (cursorId !== undefined && at < 0) throw badRequest({ id: [`The feed item ${cursorId} is not in this feed.`] });
  const items: FeedItemRecord[] = [];
  if (affix === "prepend" && at >= 0) {
    for (let i = at + 1; i < feed.length && items.length < limit; i++) if (keep(feed[i])) items.push(feed[i]);
    items.reverse();
  } else for (let i = at >= 0 ? at - 1 : feed.length - 1; i >= 0 && items.length < limit; i--) if (keep(feed[i])) items.push(feed[i]);
  const last = items.at(-1);
  const meta: Record<string, unknown> = { current: { limit, count: items.length } };
  if (last && items.length === limit) meta.next = { sentAt: last.sentAt, id: last.id, affix: "append" };
  return c.json({ data: items.map((item) => feedItemView(item)), meta });
}

function unreadCount(c: Ctx, category: string | undefined) {
  const viewer = onBehalfOf(c, "required");
  let count = 0;
  const now = c.get("emulator").clock.now();
  for (const item of c.get("app").campaigns.feedOf(viewer.uid))
    if (item.readAt === undefined && visible(item, now) && (category === undefined || item.templateCategory === category)) count++;
  return ok(c, { count });
}

/** Categories by name, `limit` (default 50, at most 100) at a time; the SDK sends `meta.next` back as `cursor`. */
function categoryPage(c: Ctx, app: AppState, query: ParsedQuery<typeof CATEGORY_QUERY>) {
  const { limit, cursor: raw } = query;
  let after: string | undefined;
  if (raw !== undefined) {
    try {
      const parsed = JSON.parse(raw) as { id?: unknown };
      if (typeof parsed?.id === "string") after = parsed.id;
    } catch {
      // not JSON
    }
    if (after === undefined) throw badRequest({ cursor: ["The cursor must be the meta.next of the previous page."] });
  }
  const all = [...app.campaigns.categories.values()].sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  const start = after === undefined ? 0 : all.findIndex((cat) => cat.id === after) + 1;
  const page = all.slice(start, start + limit);
  const meta: Record<string, unknown> = { current: { limit, count: page.length } };
  if (start + limit < all.length) meta.next = { id: page.at(-1)!.id, affix: "append" };
  return c.json({ data: page.map(categoryView), meta });
}

const client = { plane: "client", headers: ["onBehalfOf"] } as const;

export const campaignsClient = routes(
  operation({ ...client, method: "GET", path: "/campaigns/notification-feed", query: FEED_QUERY, handler: (c, { query }) => feedPage(c, onBehalfOf(c, "required").uid, query) }),
  operation({
    ...client,
    method: "GET",
    path: "/campaigns/notification-feed/unread-count",
    query: { templateCategory: q.str() },
    handler: (c, { query }) => unreadCount(c, query.templateCategory),
  }),
  operation({ ...client, method: "GET", path: "/campaigns/notification-feed/:feedItemId", handler: (c) => ok(c, feedItemView(ownItem(c))) }),
  // Marking again keeps the first time; reading (clicking) implies delivery.
  operation({
    ...client,
    method: "POST",
    path: "/campaigns/notification-feed/:feedItemId/delivered",
    handler: (c) => ok(c, feedItemView(marked(c, ownItem(c), ["deliveredAt"]))),
  }),
  operation({
    ...client,
    method: "POST",
    path: "/campaigns/notification-feed/:feedItemId/read",
    handler: (c) => ok(c, feedItemView(marked(c, ownItem(c), ["deliveredAt", "readAt"]))),
  }),
  operation({
    ...client,
    method: "POST",
    path: "/campaigns/notification-feed/:feedItemId/engagement",
    body: { topic: TOPIC },
    handler: (c, { body }) => {
      const item = ownItem(c);
      const now = c.get("emulator").clock.now();
      if (!engage(c.get("app").campaigns, item, body.topic as string, now)) throw badRequest({ topic: [`The feed item has the most engagements it may record (${MAX_ENGAGEMENTS}).`] });
      return ok(c, { feedItemId: item.id, topic: body.topic, engagedAt: now });
    },
  }),
  operation({
    ...client,
    method: "PUT",
    path: "/campaigns/push-notifications/:pushNotificationId/delivered",
    handler: (c) => ok(c, pushView(marked(c, ownPush(c), ["deliveredAt"]))),
  }),
  operation({
    ...client,
    method: "PUT",
    path: "/campaigns/push-notifications/:pushNotificationId/clicked",
    handler: (c) => ok(c, pushView(marked(c, ownPush(c), ["deliveredAt", "clickedAt"]))),
  }),
  operation({
    ...client,
    method: "GET",
    path: "/campaigns/templates/categories",
    query: CATEGORY_QUERY,
    handler: (c, { query }) => {
      onBehalfOf(c, "required");
      return categoryPage(c, c.get("app"), query);
    },
  }),
);
