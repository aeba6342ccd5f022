import { keyedMap } from "../../http/errors.js";
import type { AppState } from "../../store/app-state.js";
import { CAMPAIGN_PUSH_SENT, type CampaignRecord, type ChannelContent, type ChannelRecord, type EventType, type PushRecord, type TemplateRecord, type TemplateVersion } from "../../store/campaigns.js";
import type { JsonObject } from "../../store/types.js";
import { FEED_ITEM_SENT } from "../../realtime/delivery.js";
import { feedItemView, pushView, render } from "./views.js";

/**
 * What a send does (a campaign's, a scheduled one's when the clock reaches it, a template send's): per receiver and
 * channel of the template version, the feed item (in_app: the SDK's feed, with its `notification_feed_item` frame)
 * or the push notification (push: its event puts it in the notification outbox per device), each recorded as a
 * `sent` event; what cannot go out is recorded as `failed`
 * with the reason. Channels of the other types (sms, email, whatsapp, custom) are not delivered by the emulator:
 * their sends are recorded as failed, saying so.
 */

/** Channel types the emulator delivers. */
export const DELIVERED_TYPES = new Set(["in_app", "push"]);

export interface Send {
  app: AppState;
  now: number;
  template: TemplateRecord;
  version: TemplateVersion;
  notificationId: string;
  campaign?: CampaignRecord;
}

/** The values for one receiver: per-user variables over the campaign's defaults over the template's defaults. */
export function variablesFor(version: TemplateVersion, campaignVars: Readonly<Record<string, string>>, userVars: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const out = keyedMap<string>();
  for (const v of version.variableSchema) if (v.default !== undefined) out[v.key] = v.default;
  Object.assign(out, campaignVars, userVars);
  return out;
}

/** The sequence steps of a version in order; empty when no channel has a `sequenceOrder` (all go out at once). */
export function stepsOf(version: TemplateVersion): number[] {
  return [...new Set(version.channels.map((ch) => ch.sequenceOrder).filter((n): n is number => n !== undefined))].sort((a, b) => a - b);
}

/** The channel a channel content goes out on: the one it names (by id or slug), else the first enabled one of its type. */
function channelFor(app: AppState, content: ChannelContent): ChannelRecord | undefined | "missing" {
  const all = app.campaigns.channels;
  if (content.channelId !== undefined) {
    const named = all.get(content.channelId) ?? [...all.values()].find((ch) => ch.channelId === content.channelId);
    return named && named.enabled && named.type === content.channelType ? named : "missing";
  }
  for (const ch of all.values()) if (ch.type === content.channelType && ch.enabled) return ch;
  return undefined;
}

function record(send: Send, uid: string, content: ChannelContent, type: EventType, step: number | undefined, reason?: string): void {
  send.app.campaigns.addEvent({
    at: send.now,
    type,
    userId: uid,
    channelType: content.channelType,
    notificationId: send.notificationId,
    templateId: send.template.id,
    ...(send.campaign && { campaignId: send.campaign.id }),
    ...(step !== undefined && { step }),
    ...(reason && { reason }),
  });
}

/** Sends `channels` to `uid`; the reason when none went out. */
export function deliverTo(send: Send, uid: string, variables: Record<string, string>, channels: readonly ChannelContent[], step?: number): string | undefined {
  const { app, now, template } = send;
  const campaigns = app.campaigns;
  const user = app.activeUser(uid);
  let sent = 0;
  let reason: string | undefined;
  for (const content of channels) {
    const channel = channelFor(app, content);
    const problem = !user
      ? `The user ${uid} does not exist in the app.`
      : !DELIVERED_TYPES.has(content.channelType)
        ? `The emulator does not deliver ${content.channelType} channels.`
        : channel === "missing"
          ? `The channel ${content.channelId} does not exist, is disabled or is not of type ${content.channelType}.`
          : undefined;
    if (problem) {
      record(send, uid, content, "failed", step, (reason = problem));
      continue;
    }
    const channelId = (channel as ChannelRecord | undefined)?.channelId;
    if (content.channelType === "in_app") {
      const item = {
        id: campaigns.nextId("feed"),
        receiver: uid,
        templateCategory: template.templateCategory ?? "general",
        content: content.content,
        metadata: { ...(template.label !== undefined && { label: template.label }), ...(template.alternativeText !== undefined && { alternativeText: template.alternativeText }) } as JsonObject,
        tags: [...template.tags],
        ...(channelId !== undefined && { channelId }),
        templateId: template.id,
        templateVersion: send.version.version,
        ...(send.campaign && { campaignId: send.campaign.id }),
        notificationId: send.notificationId,
        ...(step !== undefined && { step }),
        variables,
        sentAt: now,
        ...(content.messageRetentionHours !== undefined && { expiresAt: now + Math.round(content.messageRetentionHours * 3600) }),
        engagements: [],
      };
      campaigns.addItem(item);
      app.emit(FEED_ITEM_SENT, () => ({ feedItem: feedItemView(item) }));
    } else {
      const push: PushRecord = {
        id: campaigns.nextId("push"),
        receiver: uid,
        announcementId: send.notificationId,
        campaignId: send.campaign?.id ?? null,
        templateId: template.id,
        ...(channelId !== undefined && { channelId }),
        ...(step !== undefined && { step }),
        content: render(content.content, variables) as JsonObject,
        sentAt: now,
      };
      campaigns.addPush(push);
      app.emit(CAMPAIGN_PUSH_SENT, () => ({ push: pushView(push) }));
    }
    record(send, uid, content, "sent", step);
    sent++;
  }
  return sent > 0 ? undefined : (reason ?? "The template version has no channel.");
}

/** Whether what a receiver did with a step's sends meets one of its channels' stop conditions. */
function stopped(channels: readonly ChannelContent[], did: ReadonlySet<EventType> | undefined): boolean {
  if (!did) return false;
  const meets: Record<string, EventType[]> = { delivered: ["delivered"], read: ["viewed"], engaged: ["interacted", "clicked"], clicked: ["clicked"] };
  return channels.some((ch) => ch.stopCondition !== undefined && (meets[ch.stopCondition] ?? []).some((t) => did.has(t)));
}

/** Starts a campaign's send: the first step (or every channel, unsequenced) to each pending recipient. */
export function startCampaign(app: AppState, now: number, campaign: CampaignRecord): void {
  campaign.status = "sending";
  campaign.sentAt = now;
  campaign.updatedAt = now;
  campaign.notificationId = app.campaigns.nextId("notification");
  app.campaigns.scheduled.delete(campaign.id);
  const steps = stepsOf(versionOf(app, campaign));
  runStep(app, now, campaign, steps[0]);
}

function versionOf(app: AppState, campaign: CampaignRecord): TemplateVersion {
  return app.campaigns.templates.get(campaign.templateId)!.versions[campaign.templateVersion - 1];
}

/**
 * One step of a campaign's send. A later step reaches the recipients whose earlier step's sends did not meet its
 * stop condition (delivered, read, engaged, clicked) by the time the step is due; the last one completes the send.
 */
export function runStep(app: AppState, now: number, campaign: CampaignRecord, step: number | undefined): void {
  const template = app.campaigns.templates.get(campaign.templateId)!;
  const version = versionOf(app, campaign);
  const steps = stepsOf(version);
  const channels = step === undefined ? version.channels : version.channels.filter((ch) => ch.sequenceOrder === step);
  const send: Send = { app, now, template, version, notificationId: campaign.notificationId!, campaign };
  const first = step === undefined || step === steps[0];
  const previous = first ? undefined : steps[steps.indexOf(step) - 1];
  const did = new Map<string, Set<EventType>>();
  if (previous !== undefined)
    for (const e of app.campaigns.events)
      if (e.campaignId === campaign.id && e.step === previous) (did.get(e.userId) ?? did.set(e.userId, new Set()).get(e.userId)!).add(e.type);
  const previousChannels = version.channels.filter((ch) => ch.sequenceOrder === previous);
  for (const r of campaign.recipients) {
    if (first) {
      if (r.status !== "pending") continue;
      r.status = "processing";
    } else if (r.status === "failed" || stopped(previousChannels, did.get(r.userId))) continue;
    const error = deliverTo(send, r.userId, variablesFor(version, campaign.variables, r.variables), channels, step);
    if (first || error === undefined) {
      r.status = error === undefined ? "completed" : "failed";
      if (error !== undefined) r.error = error;
      r.updatedAt = now;
    }
  }
  const next = step === undefined ? undefined : steps[steps.indexOf(step) + 1];
  if (next !== undefined) {
    const wait = Math.max(0, ...channels.map((ch) => ch.waitMinutes ?? 0));
    campaign.nextStep = { step: next, dueAt: now + wait * 60 };
    app.campaigns.scheduled.add(campaign.id);
  } else {
    campaign.nextStep = undefined;
    campaign.status = "completed";
    campaign.completedAt = now;
    app.campaigns.scheduled.delete(campaign.id);
  }
  campaign.updatedAt = now;
}

/** When a campaign waiting on the clock is due (Unix seconds): its schedule, or its next step. */
export function dueAt(campaign: CampaignRecord): number | undefined {
  if (campaign.status === "scheduled") return campaign.scheduledAt;
  if (campaign.status === "sending") return campaign.nextStep?.dueAt;
  return undefined;
}

/** Runs what is due at `now` in `app`; whether anything ran. */
export function runDue(app: AppState, now: number): boolean {
  let ran = false;
  for (const id of [...app.campaigns.scheduled]) {
    const campaign = app.campaigns.campaigns.get(id);
    const due = campaign && dueAt(campaign);
    if (!campaign || due === undefined) {
      app.campaigns.scheduled.delete(id);
      continue;
    }
    if (due > now) continue;
    app.campaigns.touch();
    if (campaign.status === "scheduled") startCampaign(app, now, campaign);
    else runStep(app, now, campaign, campaign.nextStep!.step);
    ran = true;
  }
  return ran;
}
