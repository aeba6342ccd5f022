import type { JsonObject } from "./types.js";

/**
 * Campaign deliveries the SDK reads on the client plane: each user's notification feed (in-app items with their
 * delivered / read state and engagements), campaign push notifications (delivered / clicked), and the app's
 * template categories. Items come from the control plane (the platform makes them from templates, channels and
 * campaigns, which the emulator does not run). Kept in memory: a restart or an app reset starts them empty.
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

export class Campaigns {
  readonly categories = new Map<string, CategoryRecord>();
  readonly items = new Map<string, FeedItemRecord>();
  /** Each user's items in the order sent (oldest first): the feed reads it newest first. */
  readonly byReceiver = new Map<string, FeedItemRecord[]>();
  readonly pushes = new Map<string, PushRecord>();
  private lastId = 0;

  nextId(prefix: string): string {
    return `${prefix}_${++this.lastId}`;
  }

  addItem(item: FeedItemRecord): void {
    this.items.set(item.id, item);
    let list = this.byReceiver.get(item.receiver);
    if (!list) this.byReceiver.set(item.receiver, (list = []));
    list.push(item);
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
