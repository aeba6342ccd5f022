import type { JsonObject } from "./types.js";

/**
 * Campaign deliveries the SDK reads on the client plane: each user's notification feed (in-app items with their
 * delivered / read state and engagements), campaign push notifications (delivered / clicked), and the app's
 * template categories. Items come from the control plane (the platform makes them from templates, channels and
 * campaigns, which the emulator does not run). Part of the app's state (`campaigns` in data files and snapshots).
 */

export interface FeedItemRecord {
  id: string;
  receiver: string;
  templateCategory: string;
  content: JsonObject;
  metadata: JsonObject;
  tags: string[];
  channelId?: string;
  /** Unix seconds. */
  sentAt: number;
  deliveredAt?: number;
  readAt?: number;
  engagements: { topic: string; at: number }[];
}

export interface CategoryRecord {
  id: string;
  name: string;
  label: string;
  createdAt: number;
  updatedAt: number;
}

export interface PushRecord {
  id: string;
  receiver: string;
  announcementId: string;
  campaignId: string | null;
  sentAt: number;
  deliveredAt?: number;
  clickedAt?: number;
}

/** At most this many feed items per user: the oldest go first past it. */
export const MAX_FEED_ITEMS_PER_USER = 10_000;
export const MAX_CATEGORIES = 100;
export const MAX_PUSH_NOTIFICATIONS = 100_000;

/** The `campaigns` entry of an app's state: absent while the app has none. */
export interface CampaignsData {
  items: FeedItemRecord[];
  pushes: PushRecord[];
  categories: CategoryRecord[];
  lastId: number;
}

export class Campaigns {
  readonly categories = new Map<string, CategoryRecord>();
  readonly items = new Map<string, FeedItemRecord>();
  /** Each user's items by `sentAt` (oldest first): the feed reads it newest first. */
  readonly byReceiver = new Map<string, FeedItemRecord[]>();
  readonly pushes = new Map<string, PushRecord>();
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
    return out;
  }

  /** A copy of what is kept, or undefined when nothing is. */
  toData(): CampaignsData | undefined {
    if (this.items.size === 0 && this.pushes.size === 0 && this.categories.size === 0) return undefined;
    return structuredClone({ items: [...this.items.values()], pushes: [...this.pushes.values()], categories: [...this.categories.values()], lastId: this.lastId });
  }

  nextId(prefix: string): string {
    return `${prefix}_${++this.lastId}`;
  }

  addItem(item: FeedItemRecord): void {
    this.items.set(item.id, item);
    let list = this.byReceiver.get(item.receiver);
    if (!list) this.byReceiver.set(item.receiver, (list = []));
    // In `sentAt` order (a control-plane item may be dated in the past); same time: the order made.
    if (list.length === 0 || list[list.length - 1].sentAt <= item.sentAt) list.push(item);
    else list.splice(list.findLastIndex((i) => i.sentAt <= item.sentAt) + 1, 0, item);
    if (list.length > MAX_FEED_ITEMS_PER_USER) this.items.delete(list.shift()!.id);
  }

  feedOf(uid: string): readonly FeedItemRecord[] {
    return this.byReceiver.get(uid) ?? [];
  }

  addPush(p: PushRecord): void {
    this.pushes.set(p.id, p);
    if (this.pushes.size > MAX_PUSH_NOTIFICATIONS) this.pushes.delete(this.pushes.keys().next().value!);
  }
}
