import type { JsonObject } from "./types.js";

/**
 * What an app keeps for notifications (reference §18): the app settings, the push/email/SMS providers, each
 * user's preferences, muted conversations, timezone and contact details, and the registered push tokens.
 * Part of the app's data (persistence, state, resets, snapshots); absent in old files, where it means defaults.
 */

export type ProviderKind = "fcm" | "apns";

/** An FCM or APNs provider as stored (credentials in the clear; replies mask them). */
export interface PushProviderRecord {
  kind: ProviderKind;
  providerId: string;
  isDefault: boolean;
  /** The provider's fields as sent (serviceAccountCreds, p8Key, ...). */
  fields: JsonObject;
  createdAt: number;
  updatedAt: number;
}

/** A custom push/SMS/email provider, a Twilio or SendGrid configuration: the fields as sent. */
export const CHANNEL_PROVIDERS = ["customPush", "customSms", "customEmail", "twilio", "sendgrid"] as const;
export type ChannelProviderName = (typeof CHANNEL_PROVIDERS)[number];

export interface MutedConversation {
  id: string;
  type: "oneOnOne" | "group";
  /** Unix milliseconds; absent = until unmuted. */
  until?: number;
}

export interface UserNotificationRecord {
  uid: string;
  /** What the user changed, in the `pnUpdatePreferences` shape; absent parts follow the app settings. */
  preferences?: JsonObject;
  muted?: MutedConversation[];
  timezone?: string;
  email?: string;
  phno?: string;
}

export interface PushTokenRecord {
  pushToken: string;
  uid: string;
  authToken: string;
  platform: string;
  providerId?: string;
  /** "chat", or "voip" for VoIP tokens. */
  pushTokenType: string;
  timezone?: string;
  /** Unix milliseconds. */
  createdAt: number;
  updatedAt: number;
}

export interface NotificationsData {
  /** The app settings when changed from the defaults (a full `{preferences, sound, templates}` object). */
  settings?: JsonObject;
  pushProviders: PushProviderRecord[];
  channels: Partial<Record<ChannelProviderName, JsonObject>>;
  users: UserNotificationRecord[];
  tokens: PushTokenRecord[];
}

export function emptyNotifications(): NotificationsData {
  return { pushProviders: [], channels: {}, users: [], tokens: [] };
}

/**
 * Live notification state of one app, with the indexes the outbox reads (tokens by user). Its maps are changed
 * through its methods; a record changed in place (a user's preferences, a provider's fields) is followed by
 * `touch()`.
 */
export class NotificationState {
  readonly pushProviders = new Map<string, PushProviderRecord>();
  readonly users = new Map<string, UserNotificationRecord>();
  readonly tokens = new Map<string, PushTokenRecord>();
  readonly tokensByUser = new Map<string, Map<string, PushTokenRecord>>();
  /**
   * Bumped on every change of what `toData()` holds: the change log takes the notification data whole when it
   * moved, and reads nothing otherwise (see change-tracker.ts).
   */
  revision = 0;
  #settings: JsonObject | undefined;
  #channels: Partial<Record<ChannelProviderName, JsonObject>> = {};

  get settings(): JsonObject | undefined {
    return this.#settings;
  }

  set settings(settings: JsonObject | undefined) {
    this.#settings = settings;
    this.revision++;
  }

  get channels(): Partial<Record<ChannelProviderName, JsonObject>> {
    return this.#channels;
  }

  /** Replaced whole, never changed in place. */
  set channels(channels: Partial<Record<ChannelProviderName, JsonObject>>) {
    this.#channels = channels;
    this.revision++;
  }

  /** A record changed in place. */
  touch(): void {
    this.revision++;
  }

  load(data: NotificationsData | undefined): void {
    const d = structuredClone(data ?? emptyNotifications());
    this.settings = d.settings;
    this.pushProviders.clear();
    for (const p of d.pushProviders) this.pushProviders.set(providerKey(p.kind, p.providerId), p);
    this.channels = d.channels;
    this.users.clear();
    for (const u of d.users) this.users.set(u.uid, u);
    this.tokens.clear();
    this.tokensByUser.clear();
    for (const t of d.tokens) this.addToken(t);
  }

  toData(): NotificationsData {
    const data: NotificationsData = {
      pushProviders: [...this.pushProviders.values()],
      channels: this.#channels,
      users: [...this.users.values()],
      tokens: [...this.tokens.values()],
    };
    if (this.#settings) data.settings = this.#settings;
    return data;
  }

  /** Anything that could make a notification go out: a token or an app-wide channel provider. */
  get active(): boolean {
    if (this.tokens.size > 0) return true;
    for (const _ in this.channels) return true;
    return false;
  }

  provider(kind: ProviderKind, providerId: string): PushProviderRecord | undefined {
    return this.pushProviders.get(providerKey(kind, providerId));
  }

  providersOf(kind: ProviderKind): PushProviderRecord[] {
    return [...this.pushProviders.values()].filter((p) => p.kind === kind);
  }

  user(uid: string): UserNotificationRecord | undefined {
    return this.users.get(uid);
  }

  /** The user's record, created on first change: the caller changes it at once (counted here). */
  ensureUser(uid: string): UserNotificationRecord {
    this.revision++;
    let u = this.users.get(uid);
    if (!u) this.users.set(uid, (u = { uid }));
    return u;
  }

  putProvider(p: PushProviderRecord): void {
    this.pushProviders.set(providerKey(p.kind, p.providerId), p);
    this.revision++;
  }

  deleteProvider(kind: ProviderKind, providerId: string): void {
    if (this.pushProviders.delete(providerKey(kind, providerId))) this.revision++;
  }

  addToken(t: PushTokenRecord): void {
    this.removeToken(t.pushToken);
    this.revision++;
    this.tokens.set(t.pushToken, t);
    let mine = this.tokensByUser.get(t.uid);
    if (!mine) this.tokensByUser.set(t.uid, (mine = new Map()));
    mine.set(t.pushToken, t);
  }

  removeToken(pushToken: string): void {
    const t = this.tokens.get(pushToken);
    if (!t) return;
    this.revision++;
    this.tokens.delete(pushToken);
    const mine = this.tokensByUser.get(t.uid);
    mine?.delete(pushToken);
    if (mine?.size === 0) this.tokensByUser.delete(t.uid);
  }

  tokensOf(uid: string): PushTokenRecord[] {
    return [...(this.tokensByUser.get(uid)?.values() ?? [])];
  }

  forgetUser(uid: string): void {
    if (this.users.delete(uid)) this.revision++;
    for (const t of this.tokensOf(uid)) this.removeToken(t.pushToken);
  }
}

function providerKey(kind: ProviderKind, providerId: string): string {
  return `${kind}/${providerId}`;
}
