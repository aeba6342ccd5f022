import type { Ctx } from "../../../http/context.js";
import { operation } from "../../../http/operation.js";
import { q } from "../../../http/query-spec.js";
import { CHANNEL_TYPES, EVENT_TYPES, type EventRecord, type EventType } from "../../../store/campaigns.js";
import { template } from "./catalog.js";
import { campaignsOf, invalid, notFound } from "./service.js";

/**
 * Analytics computed from what happened (the events sends and receivers made: sent, delivered, viewed, clicked,
 * interacted, failed), over a window (`startDate`, `endDate`: ISO 8601 or Unix seconds), optionally narrowed to a
 * dimension (a campaign, a template, a channel type), with a series by `period` (hourly or daily).
 */

const QUERY = {
  dimension: q.oneOf(["campaign", "template", "channel"]),
  dimensionId: q.str({ max: 100 }),
  period: q.oneOf(["hourly", "daily"]),
  startDate: q.str({ max: 40 }),
  endDate: q.str({ max: 40 }),
  limit: q.int({ def: 50, min: 1, max: 1000 }),
};
type Query = { dimension?: "campaign" | "template" | "channel"; dimensionId?: string; period?: "hourly" | "daily"; startDate?: string; endDate?: string; limit: number };

type Counts = Record<EventType, number>;
const zero = (): Counts => Object.fromEntries(EVENT_TYPES.map((t) => [t, 0])) as Counts;

/** A date parameter as Unix seconds: digits are seconds, anything else ISO 8601. */
function seconds(raw: string | undefined, name: string, endOfDay: boolean): number | undefined {
  if (raw === undefined) return undefined;
  if (/^\d{1,12}$/.test(raw)) return Number(raw);
  const ms = Date.parse(raw);
  if (!/^\d{4}-\d{2}-\d{2}/.test(raw) || Number.isNaN(ms)) throw invalid(`${name} must be an ISO 8601 date or Unix seconds.`);
  // A bare date names the whole day.
  return Math.floor(ms / 1000) + (endOfDay && raw.length === 10 ? 86_399 : 0);
}

/** The events of the window and dimension (and `also`), in the order they happened. */
function select(c: Ctx, query: Query, also: (e: EventRecord) => boolean = () => true): EventRecord[] {
  const from = seconds(query.startDate, "startDate", false);
  const to = seconds(query.endDate, "endDate", true);
  if (from !== undefined && to !== undefined && from > to) throw invalid("startDate must not be after endDate.");
  if (query.dimensionId !== undefined && query.dimension === undefined) throw invalid("dimensionId needs a dimension.");
  const { dimension, dimensionId } = query;
  const tpl = dimension === "template" && dimensionId !== undefined ? template(c, dimensionId).id : undefined;
  return campaignsOf(c).events.filter(
    (e) =>
      (from === undefined || e.at >= from) &&
      (to === undefined || e.at <= to) &&
      (dimensionId === undefined ||
        (dimension === "campaign" && e.campaignId === dimensionId) ||
        (dimension === "template" && e.templateId === tpl) ||
        (dimension === "channel" && e.channelType === dimensionId)) &&
      also(e),
  );
}

function totals(events: readonly EventRecord[]) {
  const counts = zero();
  for (const e of events) counts[e.type]++;
  const rate = (n: number, of: number) => (of === 0 ? 0 : Math.round((n / of) * 10_000) / 100);
  return { ...counts, deliveryRate: rate(counts.delivered, counts.sent), viewRate: rate(counts.viewed, counts.sent), clickRate: rate(counts.clicked, counts.sent), interactionRate: rate(counts.interacted, counts.sent) };
}

/** Counts per period bucket (start as Unix seconds), oldest first, the latest `limit` buckets. */
function series(events: readonly EventRecord[], query: Query) {
  const size = query.period === "hourly" ? 3600 : 86_400;
  const buckets = new Map<number, Counts>();
  for (const e of events) {
    const start = e.at - (e.at % size);
    (buckets.get(start) ?? buckets.set(start, zero()).get(start)!)[e.type]++;
  }
  return [...buckets.entries()]
    .sort((a, b) => a[0] - b[0])
    .slice(-query.limit)
    .map(([start, counts]) => ({ periodStart: start, ...counts }));
}

function byChannel(events: readonly EventRecord[]) {
  return CHANNEL_TYPES.map((channelType) => ({ channelType, ...totals(events.filter((e) => e.channelType === channelType)) })).filter((row) => row.sent + row.failed > 0);
}

const windowOf = (query: Query) => ({ period: query.period ?? "daily", startDate: query.startDate ?? null, endDate: query.endDate ?? null });

export const analyticsOperations = [
  operation({
    id: "AnalyticsController_getOverview",
    method: "GET",
    path: "/analytics/overview",
    plane: "campaigns",
    query: QUERY,
    handler: (c, { query }) => {
      const events = select(c, query);
      return c.json({ data: { ...windowOf(query), dimension: query.dimension ?? null, dimensionId: query.dimensionId ?? null, totals: totals(events), series: series(events, query) } });
    },
  }),
  operation({
    id: "AnalyticsController_getCampaignAnalytics",
    method: "GET",
    path: "/analytics/campaigns/:campaignId",
    plane: "campaigns",
    query: QUERY,
    handler: (c, { query }) => {
      const id = c.req.param("campaignId")!;
      if (!campaignsOf(c).campaigns.has(id)) throw notFound("ERR_CAMPAIGN_NOT_FOUND", id, "campaignId");
      const events = select(c, query, (e) => e.campaignId === id);
      return c.json({ data: { campaignId: id, ...windowOf(query), totals: totals(events), channels: byChannel(events), series: series(events, query) } });
    },
  }),
  operation({
    id: "AnalyticsController_getTemplateAnalytics",
    method: "GET",
    path: "/analytics/templates/:templateId",
    plane: "campaigns",
    query: QUERY,
    handler: (c, { query }) => {
      const t = template(c, c.req.param("templateId")!);
      const events = select(c, query, (e) => e.templateId === t.id);
      return c.json({ data: { templateId: t.id, slug: t.templateId, ...windowOf(query), totals: totals(events), channels: byChannel(events), series: series(events, query) } });
    },
  }),
  operation({
    id: "AnalyticsController_getChannelBreakdown",
    method: "GET",
    path: "/analytics/channels",
    plane: "campaigns",
    query: QUERY,
    handler: (c, { query }) => c.json({ data: { ...windowOf(query), channels: byChannel(select(c, query)).slice(0, query.limit) } }),
  }),
  operation({
    id: "AnalyticsController_getUserInsights",
    method: "GET",
    path: "/analytics/users/:userId",
    plane: "campaigns",
    query: QUERY,
    handler: (c, { query }) => {
      const userId = c.req.param("userId")!.toLowerCase();
      const events = select(c, query, (e) => e.userId === userId);
      const counts = zero();
      let last: number | null = null;
      for (const e of events) {
        counts[e.type]++;
        if (e.type === "viewed" || e.type === "clicked" || e.type === "interacted") last = Math.max(last ?? 0, e.at);
      }
      // The documented shape (viewed, clicked, interacted, lastEngagement), with the other counts beside it.
      return c.json({ data: { userId, viewed: counts.viewed, clicked: counts.clicked, interacted: counts.interacted, lastEngagement: last, sent: counts.sent, delivered: counts.delivered, failed: counts.failed } });
    },
  }),
];
