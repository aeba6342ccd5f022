import type { JsonObject } from "./types.js";

/**
 * The campaigns service's data (docs/campaigns.md): template categories, templates with their immutable versions,
 * channels, campaigns with their recipients and CSV imports, and what sends made: each user's notification feed
 * (in-app items with their delivered / read state and engagements), campaign push notifications (delivered /
 * clicked), and the engagement events analytics count. Part of the app's state (`campaigns` in data files,
 * snapshots and seeds).
 */

export interface FeedItemRecord {
  id: string;
  receiver: string;
  templateCategory: string;
  /** As the template wrote it: `{{variable}}` tokens are rendered from `variables` when the item is read. */
  content: JsonObject;
  metadata: JsonObject;
  tags: string[];
  channelId?: string;
  /** The send it came from (absent for items the control plane made). */
  templateId?: string;
  templateVersion?: number;
  campaignId?: string;
  notificationId?: string;
  /** The sequence step that sent it (sequenced campaigns). */
  step?: number;
  /** The values resolved for this receiver at send time. */
  variables?: Record<string, string>;
  /** Unix seconds. */
  sentAt: number;
  deliveredAt?: number;
  readAt?: number;
  deletedAt?: number;
  /** After this the item is expired (the channel content's `messageRetentionHours`). */
  expiresAt?: number;
  engagements: { topic: string; at: number }[];
}

export interface CategoryRecord {
  id: string;
  name: string;
  label: string;
  description?: string;
  createdAt: number;
  updatedAt: number;
}

export interface PushRecord {
  id: string;
  receiver: string;
  announcementId: string;
  campaignId: string | null;
  templateId?: string;
  channelId?: string;
  step?: number;
  /** The push's rendered content (title, body, ...). */
  content?: JsonObject;
  sentAt: number;
  deliveredAt?: number;
  clickedAt?: number;
  engagements?: { topic: string; at: number }[];
}

export const CHANNEL_TYPES = ["in_app", "push", "sms", "email", "whatsapp", "custom"] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

/** One channel's content in a template version. */
export interface ChannelContent {
  channelType: ChannelType;
  channelId?: string;
  content: JsonObject;
  dataType?: "ui_template" | "data_template";
  categoryFilterEnabled?: boolean;
  templateLabelEnabled?: boolean;
  messageRetentionHours?: number;
  sequenceOrder?: number;
  stopCondition?: string;
  waitMinutes?: number;
}

/** A variable a template names, with its default (the lowest layer of resolution). */
export interface TemplateVariable {
  key: string;
  default?: string;
}

export interface TemplateVersion {
  version: number;
  channels: ChannelContent[];
  variableSchema: TemplateVariable[];
  createdAt: number;
}

export type TemplateStatus = "draft" | "approved" | "archived";

export interface TemplateRecord {
  id: string;
  /** The human-readable slug, unique in the app. */
  templateId: string;
  name: string;
  templateCategory?: string;
  label?: string;
  alternativeText?: string;
  tags: string[];
  status: TemplateStatus;
  config: JsonObject;
  currentVersion: number;
  /** Oldest first; never changed once made. */
  versions: TemplateVersion[];
  createdAt: number;
  updatedAt: number;
}

export interface ChannelRecord {
  id: string;
  name: string;
  type: ChannelType;
  channelId: string;
  enabled: boolean;
  metadata: JsonObject;
  createdAt: number;
  updatedAt: number;
}

export type CampaignStatus = "draft" | "scheduled" | "sending" | "completed" | "cancelled";
export type RecipientStatus = "pending" | "processing" | "completed" | "failed";

export interface RecipientRecord {
  id: string;
  userId: string;
  variables: Record<string, string>;
  status: RecipientStatus;
  /** Why a send to this recipient failed. */
  error?: string;
  createdAt: number;
  updatedAt: number;
}

/** One CSV import of a campaign's recipients: rows accepted and refused, with reasons. */
export interface ImportRecord {
  id: string;
  s3Key: string;
  status: "processing" | "completed" | "failed";
  totalRows: number;
  accepted: number;
  refused: { row: number; userId?: string; reason: string }[];
  createdAt: number;
  completedAt?: number;
}

export interface CampaignRecord {
  id: string;
  name: string;
  /** The template's id (its CUID-like id, whichever form the request named). */
  templateId: string;
  templateVersion: number;
  variables: Record<string, string>;
  config: JsonObject;
  status: CampaignStatus;
  notificationId?: string;
  scheduledAt?: number;
  sentAt?: number;
  completedAt?: number;
  cancelledAt?: number;
  createdAt: number;
  updatedAt: number;
  recipients: RecipientRecord[];
  import?: ImportRecord;
  /** A sequenced campaign's next step and when it goes out (while `sending`). */
  nextStep?: { step: number; dueAt: number };
}

/** A CSV file put at an upload address, until an import reads it. */
export interface UploadRecord {
  s3Key: string;
  campaignId: string;
  /** The secret the upload address carries. */
  signature: string;
  expiresAt: number;
  csv?: string;
}

export const EVENT_TYPES = ["sent", "delivered", "viewed", "clicked", "interacted", "failed"] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** What happened to one send to one user on one channel: what analytics count. */
export interface EventRecord {
  at: number;
  type: EventType;
  userId: string;
  channelType: ChannelType;
  notificationId: string;
  templateId?: string;
  campaignId?: string;
  /** The sequence step (sequenced campaigns). */
  step?: number;
  topic?: string;
  reason?: string;
}

/** Whether a feed item is shown: not soft-deleted, not past its retention (unless asked for). */
export function visible(item: FeedItemRecord, now: number, deleted = false, expired = false): boolean {
  return (deleted || item.deletedAt === undefined) && (expired || item.expiresAt === undefined || item.expiresAt > now);
}

/** The event a campaign push makes (`{push}`, the push's view): the notification outbox records it per device. */
export const CAMPAIGN_PUSH_SENT = "campaign_push_sent";

/** At most this many feed items per user: the oldest go first past it. */
export const MAX_FEED_ITEMS_PER_USER = 10_000;
export const MAX_CATEGORIES = 100;
export const MAX_PUSH_NOTIFICATIONS = 100_000;
/** Engagement events kept for analytics: the oldest go first past it. */
export const MAX_EVENTS = 200_000;

/** The `campaigns` entry of an app's state: absent while the app has none. */
export interface CampaignsData {
  items: FeedItemRecord[];
  pushes: PushRecord[];
  categories: CategoryRecord[];
  templates?: TemplateRecord[];
  channels?: ChannelRecord[];
  campaigns?: CampaignRecord[];
  uploads?: UploadRecord[];
  events?: EventRecord[];
  /** Events ever recorded (the oldest past MAX_EVENTS are gone): where the change log's added events go (change-tracker.ts). */
  eventCount?: number;
  lastId: number;
}

/** The parts of the campaigns data the change log takes whole when `revision` moved: few records, changed by management writes. */
export type CampaignsRest = Omit<CampaignsData, "items" | "pushes" | "events" | "eventCount">;

/** What the change log has not taken yet (set by it, change-tracker.ts): feed items and pushes created or changed (the record) or removed (null), by id, in order; events recorded. */
export interface CampaignsNotes {
  items: Map<string, FeedItemRecord | null>;
  pushes: Map<string, PushRecord | null>;
  events: number;
}

export class Campaigns {
  /** Revisions across every instance: a loaded copy never repeats the one it replaces. */
  private static revisions = 0;
  /**
   * Moves on every change of the small parts (CampaignsRest: the change log takes them whole when it moved,
   * change-tracker.ts): their records change in place, so whoever changes one calls `touch()`. Feed items, pushes
   * and events grow with use: they are noted one by one instead (`changed()`; adding them notes them).
   */
  revision = ++Campaigns.revisions;
  noted: CampaignsNotes | undefined;
  /** Events ever recorded (see CampaignsData). */
  eventCount = 0;
  readonly categories = new Map<string, CategoryRecord>();
  readonly items = new Map<string, FeedItemRecord>();
  /** Each user's items by `sentAt` (oldest first): the feed reads it newest first. */
  readonly byReceiver = new Map<string, FeedItemRecord[]>();
  readonly pushes = new Map<string, PushRecord>();
  /** Each user's pushes, oldest first. */
  readonly pushesByReceiver = new Map<string, PushRecord[]>();
  readonly templates = new Map<string, TemplateRecord>();
  readonly channels = new Map<string, ChannelRecord>();
  readonly campaigns = new Map<string, CampaignRecord>();
  readonly uploads = new Map<string, UploadRecord>();
  events: EventRecord[] = [];
  /** The campaigns waiting for their `scheduledAt` (the scheduler's index). */
  readonly scheduled = new Set<string>();
  private lastId = 0;

  /** Loads `data` (records are copied, so `data` stays untouched). */
  static from(data: CampaignsData | undefined): Campaigns {
    const out = new Campaigns();
    if (!data) return out;
    const copy = structuredClone(data);
    out.lastId = copy.lastId;
    for (const cat of copy.categories) out.categories.set(cat.id, cat);
    for (const item of copy.items) out.addItem(item);
    for (const p of copy.pushes) out.addPush(p);
    for (const t of copy.templates ?? []) out.templates.set(t.id, t);
    for (const ch of copy.channels ?? []) out.channels.set(ch.id, ch);
    for (const cam of copy.campaigns ?? []) {
      out.campaigns.set(cam.id, cam);
      if (cam.status === "scheduled") out.scheduled.add(cam.id);
    }
    for (const u of copy.uploads ?? []) out.uploads.set(u.s3Key, u);
    out.events = copy.events ?? [];
    out.eventCount = Math.max(copy.eventCount ?? 0, out.events.length);
    return out;
  }

  /** A copy of what is kept, or undefined when nothing is. */
  toData(): CampaignsData | undefined {
    const extra = this.templates.size + this.channels.size + this.campaigns.size + this.uploads.size + this.events.length;
    if (this.items.size === 0 && this.pushes.size === 0 && this.categories.size === 0 && extra === 0) return undefined;
    const data: CampaignsData = { ...this.restOf(), items: [...this.items.values()], pushes: [...this.pushes.values()] };
    if (this.events.length > 0) {
      data.events = this.events;
      data.eventCount = this.eventCount;
    }
    return structuredClone(data);
  }

  /** A copy of the parts the change log takes whole, without the records that grow with use. */
  rest(): CampaignsRest {
    return structuredClone(this.restOf());
  }

  private restOf(): CampaignsRest {
    const data: CampaignsRest = { categories: [...this.categories.values()], lastId: this.lastId };
    // Older files have only the items, pushes and categories: the other lists are written when they hold something.
    if (this.templates.size > 0) data.templates = [...this.templates.values()];
    if (this.channels.size > 0) data.channels = [...this.channels.values()];
    if (this.campaigns.size > 0) data.campaigns = [...this.campaigns.values()];
    if (this.uploads.size > 0) data.uploads = [...this.uploads.values()];
    return data;
  }

  /** A feed item or push changed in place. */
  changed(record: FeedItemRecord | PushRecord): void {
    if ("templateCategory" in record) this.noted?.items.set(record.id, record);
    else this.noted?.pushes.set(record.id, record);
  }

  nextId(prefix: string): string {
    this.touch();
    return `${prefix}_${++this.lastId}`;
  }

  touch(): void {
    this.revision = ++Campaigns.revisions;
  }

  addItem(item: FeedItemRecord): void {
    this.items.set(item.id, item);
    this.noted?.items.set(item.id, item);
    let list = this.byReceiver.get(item.receiver);
    if (!list) this.byReceiver.set(item.receiver, (list = []));
    // In `sentAt` order (a control-plane item may be dated in the past); same time: the order made.
    if (list.length === 0 || list[list.length - 1].sentAt <= item.sentAt) list.push(item);
    else list.splice(list.findLastIndex((i) => i.sentAt <= item.sentAt) + 1, 0, item);
    if (list.length > MAX_FEED_ITEMS_PER_USER) {
      const oldest = list.shift()!;
      this.items.delete(oldest.id);
      this.noted?.items.set(oldest.id, null);
    }
  }

  feedOf(uid: string): readonly FeedItemRecord[] {
    return this.byReceiver.get(uid) ?? [];
  }

  addPush(p: PushRecord): void {
    this.pushes.set(p.id, p);
    this.noted?.pushes.set(p.id, p);
    let list = this.pushesByReceiver.get(p.receiver);
    if (!list) this.pushesByReceiver.set(p.receiver, (list = []));
    list.push(p);
    if (this.pushes.size > MAX_PUSH_NOTIFICATIONS) {
      const oldest = this.pushes.values().next().value!;
      this.pushes.delete(oldest.id);
      this.noted?.pushes.set(oldest.id, null);
      const own = this.pushesByReceiver.get(oldest.receiver);
      if (own?.[0] === oldest) own.shift();
    }
  }

  pushesOf(uid: string): readonly PushRecord[] {
    return this.pushesByReceiver.get(uid) ?? [];
  }

  addEvent(e: EventRecord): void {
    this.eventCount++;
    if (this.noted) this.noted.events++;
    this.events.push(e);
    trimEvents(this.events);
  }

  /** A template by its id or its slug. */
  template(idOrSlug: string): TemplateRecord | undefined {
    const byId = this.templates.get(idOrSlug);
    if (byId) return byId;
    for (const t of this.templates.values()) if (t.templateId === idOrSlug) return t;
    return undefined;
  }
}

/** Drops the oldest events past MAX_EVENTS (the live store and a replay alike). */
export function trimEvents(events: EventRecord[]): void {
  if (events.length > MAX_EVENTS) events.splice(0, events.length - MAX_EVENTS);
}
