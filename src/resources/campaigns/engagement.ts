import type { Campaigns, EventType, FeedItemRecord, PushRecord } from "../../store/campaigns.js";

/**
 * What a receiver does with what a send made, on either plane (the SDK's calls and the REST API's): delivered,
 * read (viewed), clicked, and engagements with a topic. Each first time is recorded as an event, which analytics
 * count; marking again keeps the first time. Reading or clicking implies delivery.
 */

export type Receipt = "deliveredAt" | "readAt" | "clickedAt";
const EVENT_OF: Record<Receipt, EventType> = { deliveredAt: "delivered", readAt: "viewed", clickedAt: "clicked" };

/** The engagement topics the service takes: letters, digits, `_` and `-`, at most 64 (the published file). */
export const TOPIC = { required: true, type: "string", max: 64, pattern: /^[A-Za-z0-9_-]+$/, patternMessage: "The topic may only contain letters, numbers, underscores and dashes." } as const;
/** Engagements one feed item or push records at most. */
export const MAX_ENGAGEMENTS = 100;

type Marked = (FeedItemRecord | PushRecord) & { deliveredAt?: number; readAt?: number; clickedAt?: number };

function origin(record: Marked) {
  const { templateId, step } = record;
  if ("templateCategory" in record) return { channelType: "in_app" as const, notificationId: record.notificationId, templateId, campaignId: record.campaignId, step };
  // A push the control plane made has no template: it belongs to no send.
  return { channelType: "push" as const, notificationId: templateId && record.announcementId, templateId, campaignId: record.campaignId ?? undefined, step };
}

function event(campaigns: Campaigns, record: Marked, type: EventType, at: number, topic?: string): void {
  const o = origin(record);
  // Items the control plane made belong to no send: nothing to count.
  if (o.notificationId === undefined) return;
  campaigns.addEvent({ at, type, userId: record.receiver, channelType: o.channelType, notificationId: o.notificationId, ...(o.templateId && { templateId: o.templateId }), ...(o.campaignId && { campaignId: o.campaignId }), ...(o.step !== undefined && { step: o.step }), ...(topic && { topic }) });
}

/** Sets the receipt times not set yet to `now`, recording each as an event. */
export function mark<T extends Marked>(campaigns: Campaigns, record: T, keys: readonly Receipt[], now: number): T {
  for (const k of keys) {
    if (record[k] !== undefined) continue;
    record[k] = now;
    campaigns.changed(record);
    event(campaigns, record, EVENT_OF[k], now);
  }
  return record;
}

/**
 * An engagement with `topic`; false when the record has the most it may keep. The well-known topic `clicked`
 * counts as a click (once per record, and a delivery); any other as an interaction.
 */
export function engage(campaigns: Campaigns, record: Marked, topic: string, now: number): boolean {
  const list = "templateCategory" in record ? record.engagements : (record.engagements ??= []);
  if (list.length >= MAX_ENGAGEMENTS) return false;
  const firstClick = topic === "clicked" && !list.some((e) => e.topic === "clicked");
  list.push({ topic, at: now });
  campaigns.changed(record);
  if (topic !== "clicked") event(campaigns, record, "interacted", now, topic);
  else if (!("templateCategory" in record)) mark(campaigns, record, ["deliveredAt", "clickedAt"], now);
  else {
    mark(campaigns, record, ["deliveredAt"], now);
    if (firstClick) event(campaigns, record, "clicked", now, topic);
  }
  return true;
}
