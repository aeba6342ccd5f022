import type { Json } from "../../store/types.js";
import type {
  CampaignRecord,
  CategoryRecord,
  ChannelRecord,
  FeedItemRecord,
  ImportRecord,
  PushRecord,
  RecipientRecord,
  TemplateRecord,
  TemplateVersion,
} from "../../store/campaigns.js";

/**
 * The campaigns service's records as both planes show them: the SDK's feed and pushes (client plane) and the
 * REST API's (`/v3/campaigns`). Times are Unix seconds.
 */

/** `{{ key }}` tokens (a bounded name: no backtracking). */
const TOKEN = /\{\{\s*([A-Za-z0-9_.-]{1,100})\s*\}\}/g;

/** `value` with each `{{key}}` in its strings replaced by the variable's value; unknown keys stay as written. */
export function render(value: Json, variables: Readonly<Record<string, string>>): Json {
  if (typeof value === "string") return value.includes("{{") ? value.replace(TOKEN, (token, key: string) => (Object.hasOwn(variables, key) ? variables[key] : token)) : value;
  if (Array.isArray(value)) return value.map((v) => render(v, variables));
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, render(v, variables)]));
  return value;
}

/**
 * A feed item. Its content is rendered with the receiver's variables unless `templateOnly` (then as the template
 * wrote it, with the `variables` to render it with: the service's opt-out of server-side rendering).
 */
export function feedItemView(item: FeedItemRecord, templateOnly = false): Record<string, unknown> {
  const vars = item.variables ?? {};
  const out: Record<string, unknown> = {
    id: item.id,
    templateCategory: item.templateCategory,
    content: templateOnly ? item.content : render(item.content, vars),
    metadata: item.metadata,
    tags: item.tags,
    sender: "server",
    receiver: item.receiver,
    receiverType: "user",
    sentAt: item.sentAt,
    deliveredAt: item.deliveredAt ?? null,
    readAt: item.readAt ?? null,
  };
  if (item.channelId !== undefined) out.channelId = item.channelId;
  if (item.templateId !== undefined) [out.templateId, out.templateVersion] = [item.templateId, item.templateVersion];
  if (item.campaignId !== undefined) out.campaignId = item.campaignId;
  if (item.notificationId !== undefined) out.notificationId = item.notificationId;
  if (item.expiresAt !== undefined) out.expiresAt = item.expiresAt;
  if (item.deletedAt !== undefined) out.deletedAt = item.deletedAt;
  if (templateOnly) out.variables = vars;
  return out;
}

export function categoryView(cat: CategoryRecord): Record<string, unknown> {
  const out: Record<string, unknown> = { id: cat.id, name: cat.name, label: cat.label, createdAt: cat.createdAt, updatedAt: cat.updatedAt };
  if (cat.description !== undefined) out.description = cat.description;
  return out;
}

export function pushView(p: PushRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: p.id,
    announcementId: p.announcementId,
    campaignId: p.campaignId,
    source: "campaign",
    receiver: p.receiver,
    sentAt: p.sentAt,
    deliveredAt: p.deliveredAt ?? null,
    clickedAt: p.clickedAt ?? null,
  };
  if (p.templateId !== undefined) out.templateId = p.templateId;
  if (p.channelId !== undefined) out.channelId = p.channelId;
  if (p.content !== undefined) out.content = p.content;
  return out;
}

function versionView(v: TemplateVersion) {
  return { version: v.version, channels: v.channels, variableSchema: v.variableSchema, createdAt: v.createdAt };
}

/** A template: its metadata, the current version's channels and variables, and (`full`) every version. */
export function templateView(t: TemplateRecord, full = true): Record<string, unknown> {
  const current = t.versions[t.currentVersion - 1];
  const out: Record<string, unknown> = {
    id: t.id,
    templateId: t.templateId,
    name: t.name,
    templateCategory: t.templateCategory ?? null,
    label: t.label ?? null,
    alternativeText: t.alternativeText ?? null,
    tags: t.tags,
    status: t.status,
    config: t.config,
    currentVersion: t.currentVersion,
    channels: current.channels,
    variableSchema: current.variableSchema,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
  };
  if (full) out.versions = t.versions.map(versionView);
  return out;
}

export function channelView(ch: ChannelRecord): Record<string, unknown> {
  return { id: ch.id, name: ch.name, type: ch.type, channelType: ch.type, channelId: ch.channelId, enabled: ch.enabled, metadata: ch.metadata, createdAt: ch.createdAt, updatedAt: ch.updatedAt };
}

export function recipientView(r: RecipientRecord): Record<string, unknown> {
  const out: Record<string, unknown> = { id: r.id, userId: r.userId, variables: r.variables, status: r.status, createdAt: r.createdAt, updatedAt: r.updatedAt };
  if (r.error !== undefined) out.error = r.error;
  return out;
}

export function recipientSummary(c: CampaignRecord): Record<string, number> {
  const out = { total: c.recipients.length, pending: 0, processing: 0, completed: 0, failed: 0 };
  for (const r of c.recipients) out[r.status]++;
  return out;
}

export function importView(campaignId: string, i: ImportRecord): Record<string, unknown> {
  return {
    importId: i.id,
    campaignId,
    s3Key: i.s3Key,
    status: i.status,
    totalRows: i.totalRows,
    acceptedRows: i.accepted,
    refusedRows: i.refused.length,
    errors: i.refused,
    createdAt: i.createdAt,
    completedAt: i.completedAt ?? null,
  };
}

/** A campaign, enriched as the service's list and get are: its template's name and slug, its recipients' summary. */
export function campaignView(c: CampaignRecord, template: TemplateRecord | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: c.id,
    name: c.name,
    templateId: c.templateId,
    templateVersion: c.templateVersion,
    template: template ? { id: template.id, templateId: template.templateId, name: template.name, status: template.status } : null,
    variables: c.variables,
    config: c.config,
    status: c.status,
    scheduledAt: c.scheduledAt ?? null,
    sentAt: c.sentAt ?? null,
    completedAt: c.completedAt ?? null,
    cancelledAt: c.cancelledAt ?? null,
    notificationId: c.notificationId ?? null,
    recipientSummary: recipientSummary(c),
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
  return out;
}

