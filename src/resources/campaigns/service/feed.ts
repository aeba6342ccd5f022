import { header, type Ctx } from "../../../http/context.js";
import { apiError } from "../../../http/errors.js";
import { operation } from "../../../http/operation.js";
import { q } from "../../../http/query-spec.js";
import { visible, type FeedItemRecord, type PushRecord } from "../../../store/campaigns.js";
import { engage, mark, MAX_ENGAGEMENTS, TOPIC, type Receipt } from "../engagement.js";
import { feedItemView, pushView } from "../views.js";
import { behalf, campaignsOf, cursorPage, invalid, notFound, nowOf, PAGE_QUERY, withDetails } from "./service.js";

/**
 * The notification feed and campaign pushes on the service's REST API: on behalf of a user (`onbehalfof`, their
 * own records only) or as the admin (any record; the feed list names its user with `receiver`). The SDK reaches
 * the same records through the client plane (../routes.ts).
 */

/** A record by path id: the user's own on their behalf (another's is as unknown as a missing one), any as the admin. */
function pathRecord<T extends { receiver: string }>(c: Ctx, records: ReadonlyMap<string, T>, code: "ERR_FEED_ITEM_NOT_FOUND" | "ERR_PUSH_NOTIFICATION_NOT_FOUND"): T {
  const id = c.req.param("id")!;
  const user = behalf(c);
  const record = records.get(id);
  const hidden = record && "templateCategory" in record && (record as unknown as FeedItemRecord).deletedAt !== undefined;
  if (!record || hidden || (user && record.receiver !== user.uid)) throw notFound(code, id, code === "ERR_FEED_ITEM_NOT_FOUND" ? "feedItemId" : "pushNotificationId");
  return record;
}
const item = (c: Ctx) => pathRecord(c, campaignsOf(c).items, "ERR_FEED_ITEM_NOT_FOUND");
const push = (c: Ctx) => pathRecord(c, campaignsOf(c).pushes, "ERR_PUSH_NOTIFICATION_NOT_FOUND");

const templateOnly = { templateOnly: q.oneOf(["true", "false"], 'Pass "true" to opt out of server-side rendering.') };
const marked = (c: Ctx, keys: readonly Receipt[]) => c.json({ data: feedItemView(mark(campaignsOf(c), item(c), keys, nowOf(c))) });
const pushMarked = (c: Ctx, keys: readonly Receipt[]) => c.json({ data: pushView(mark(campaignsOf(c), push(c), keys, nowOf(c))) });

function engaged(c: Ctx, record: FeedItemRecord | PushRecord, topic: string) {
  if (!engage(campaignsOf(c), record, topic, nowOf(c))) throw invalid(`topic: the record has the most engagements it may keep (${MAX_ENGAGEMENTS}).`);
  return c.json({ data: { id: record.id, topic, engagedAt: nowOf(c) } });
}

export const feedOperations = [
  operation({
    id: "NotificationFeedController_getUnreadCount",
    method: "GET",
    path: "/notification-feed/unread-count",
    plane: "campaigns",
    headers: ["onbehalfof"],
    query: { templateCategory: q.str({ required: true, max: 100 }) },
    handler: (c, { query }) => {
      const user = behalf(c);
      if (!user) throw invalid("The onbehalfof header is required: the unread count is a user's.");
      const now = nowOf(c);
      let count = 0;
      for (const it of campaignsOf(c).feedOf(user.uid)) if (it.readAt === undefined && it.templateCategory === query.templateCategory && visible(it, now)) count++;
      return c.json({ data: { count } });
    },
  }),
  operation({
    id: "NotificationFeedController_findFeed",
    method: "GET",
    path: "/notification-feed",
    plane: "campaigns",
    headers: ["onbehalfof"],
    query: {
      readState: q.oneOf(["read", "unread", "all"]),
      dateFrom: q.int(),
      dateTo: q.int(),
      tags: q.list(),
      tagMatch: q.oneOf(["any", "all"]),
      templateCategory: q.str({ max: 100 }),
      channelId: q.str({ max: 100 }),
      includeDeleted: q.bool(),
      includeExpired: q.bool(),
      sentAt: q.int(),
      ...PAGE_QUERY,
      sort: q.oneOf(["sentAt", "createdAt"]),
      receiver: q.str({ max: 100 }),
      ...templateOnly,
    },
    ignores: [{ in: "query", name: "receiver", when: (c, { query }) => query.receiver !== undefined && header(c, "onbehalfof") !== undefined, why: "it is ignored when onbehalfof is present." }],
    handler: (c, { query }) => {
      const uid = behalf(c)?.uid ?? query.receiver?.toLowerCase();
      if (uid === undefined) throw invalid("The onbehalfof header (a user's feed) or, as the admin, the receiver parameter is required.");
      const now = nowOf(c);
      const { readState, tags, tagMatch } = query;
      const found = campaignsOf(c)
        .feedOf(uid)
        .filter(
          (it) =>
            visible(it, now, query.includeDeleted, query.includeExpired) &&
            (readState === undefined || readState === "all" || (readState === "read") === (it.readAt !== undefined)) &&
            (query.templateCategory === undefined || it.templateCategory === query.templateCategory) &&
            (query.channelId === undefined || it.channelId === query.channelId) &&
            (tags === undefined || (tagMatch === "all" ? tags.every((t) => it.tags.includes(t)) : tags.some((t) => it.tags.includes(t)))) &&
            (query.dateFrom === undefined || it.sentAt >= query.dateFrom) &&
            (query.dateTo === undefined || it.sentAt <= query.dateTo),
        );
      const page = cursorPage(found, "sentAt", (it) => it.sentAt, query, "desc");
      return c.json({ data: page.data.map((it) => feedItemView(it, query.templateOnly === "true")), meta: page.meta });
    },
  }),
  operation({
    id: "NotificationFeedController_findById",
    method: "GET",
    path: "/notification-feed/:id",
    plane: "campaigns",
    headers: ["onbehalfof"],
    query: templateOnly,
    handler: (c, { query }) => c.json({ data: feedItemView(item(c), query.templateOnly === "true") }),
  }),
  operation({
    id: "NotificationFeedController_delete",
    method: "DELETE",
    path: "/notification-feed/:id",
    plane: "campaigns",
    headers: ["onbehalfof"],
    handler: (c) => {
      if (header(c, "onbehalfof") !== undefined)
        throw withDetails(apiError("ERR_FORBIDDEN", { reason: "Deleting a feed item is admin-only: send it without the onbehalfof header." }), { feedItemId: c.req.param("id")! });
      const it = item(c);
      it.deletedAt = nowOf(c);
      campaignsOf(c).changed(it);
      // The overview's example answer: the id and the deletion time as ISO 8601.
      return c.json({ data: { id: it.id, deletedAt: new Date(it.deletedAt * 1000).toISOString() } });
    },
  }),
  operation({ id: "NotificationFeedController_markAsRead", method: "POST", path: "/notification-feed/:id/read", plane: "campaigns", headers: ["onbehalfof"], handler: (c) => marked(c, ["deliveredAt", "readAt"]) }),
  operation({ id: "NotificationFeedController_markAsDelivered", method: "POST", path: "/notification-feed/:id/delivered", plane: "campaigns", headers: ["onbehalfof"], handler: (c) => marked(c, ["deliveredAt"]) }),
  operation({
    id: "NotificationFeedController_reportEngagement",
    method: "POST",
    path: "/notification-feed/:id/engagement",
    plane: "campaigns",
    headers: ["onbehalfof"],
    body: { topic: TOPIC },
    handler: (c, { body }) => engaged(c, item(c), body.topic as string),
  }),
];

export const pushOperations = [
  operation({
    id: "PushNotificationsController_findByReceiver",
    method: "GET",
    path: "/push-notifications",
    plane: "campaigns",
    headers: ["onbehalfof"],
    // The file types `limit` as a required string: a whole number of 1 to 100.
    query: { limit: q.int({ min: 1, max: 100 }) },
    handler: (c, { query }) => {
      if (query.limit === undefined) throw invalid("The limit field is required.");
      const user = behalf(c);
      if (!user) throw invalid("The onbehalfof header is required: the list is a user's pushes.");
      const own = campaignsOf(c).pushesOf(user.uid);
      const data = own.slice(-query.limit).reverse().map(pushView);
      return c.json({ data, meta: { current: { limit: query.limit, count: data.length } } });
    },
  }),
  operation({ id: "PushNotificationsController_findById", method: "GET", path: "/push-notifications/:id", plane: "campaigns", headers: ["onbehalfof"], handler: (c) => c.json({ data: pushView(push(c)) }) }),
  operation({ id: "PushNotificationsController_markDelivered", method: "PUT", path: "/push-notifications/:id/delivered", plane: "campaigns", headers: ["onbehalfof"], handler: (c) => pushMarked(c, ["deliveredAt"]) }),
  operation({ id: "PushNotificationsController_markClicked", method: "PUT", path: "/push-notifications/:id/clicked", plane: "campaigns", headers: ["onbehalfof"], handler: (c) => pushMarked(c, ["deliveredAt", "clickedAt"]) }),
  operation({
    id: "PushNotificationsController_reportEngagement",
    method: "POST",
    path: "/push-notifications/:id/engagement",
    plane: "campaigns",
    headers: ["onbehalfof"],
    body: { topic: TOPIC },
    handler: (c, { body }) => engaged(c, push(c), body.topic as string),
  }),
];
