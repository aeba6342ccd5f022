import type { AppState } from "../store/app-state.js";
import type { Clock } from "../store/clock.js";
import type { DomainEvent } from "../store/events.js";
import type { PushProviderRecord, PushTokenRecord } from "../store/notification-state.js";
import type { JsonObject, MessageRecord } from "../store/types.js";
import { FilteredLog } from "../delivery/live-log.js";
import { DeliveryQueue, type Attempt, type DeliveryStatus, type Endpoint } from "../delivery/queue.js";
import { ClockTimers } from "../util/clock-timers.js";
import { CAMPAIGN_PUSH_SENT } from "../store/campaigns.js";
import { randomHex } from "../util/random.js";
import { actorEntity, messageView } from "../views/messages.js";
import { suppression } from "./decide.js";
import { planOf, type Plan } from "./plan.js";
import { render, renderMessage, withMentionNames } from "./render.js";
import { appSettings, at, effectiveSetting, usesPrivacy } from "./settings.js";

export type Channel = "push" | "email" | "sms";
export type ProviderName = "fcm" | "apns" | "custom" | "sendgrid" | "twilio";
/** `sent`: FCM, APNs, SendGrid and Twilio are never contacted, so computing is sending; custom providers are called. */
export type NotificationStatus = "suppressed" | "scheduled" | "sent" | DeliveryStatus;

/** One computed notification: the platform's log fields plus what the outbox adds (uid, status, delivery). */
export interface Notification {
  id: number;
  _id: string;
  appId: string;
  /** The user notified. */
  uid: string;
  channel: Channel;
  provider: ProviderName;
  providerId?: string;
  tokenType?: string;
  pushToken?: string;
  /** The store's trigger (`message_sent`) and the log's (`after_message`). */
  event: string;
  trigger: string;
  conversationId: string;
  messageId: number;
  reactionId?: number;
  messageSentAtMS: number;
  sender: string;
  receiver: string;
  receiverType: "user" | "group";
  member?: string;
  reactionSender?: string;
  reactionReceiver?: string;
  /** A campaign push (the campaigns service's): its id, and its campaign's. */
  pushNotificationId?: string;
  campaignId?: string | null;
  title?: string;
  body?: string;
  payload?: unknown;
  notificationTriggered: boolean;
  reason?: string;
  success?: boolean;
  status: NotificationStatus;
  attempts: Attempt[];
  createdAt: number;
  /** Email and SMS: when the digest goes out (after the app's interval). */
  dueAt?: number;
  processingStartedAtMS: number;
  processingEndedAtMS?: number;
}

export interface NotificationFilter {
  appId?: string;
  uid?: string;
  channel?: string;
  provider?: string;
  conversationId?: string;
  status?: string;
  event?: string;
}

export function matchesNotification(n: Notification, f: NotificationFilter): boolean {
  return (
    (!f.appId || n.appId === f.appId) &&
    (!f.uid || n.uid === f.uid) &&
    (!f.channel || n.channel === f.channel) &&
    (!f.provider || n.provider === f.provider) &&
    (!f.conversationId || n.conversationId === f.conversationId) &&
    (!f.status || n.status === f.status) &&
    (!f.event || n.event === f.event || n.trigger === f.event)
  );
}

interface Digest {
  record: Notification;
  app: AppState;
  plan: Plan;
  messages: MessageRecord[];
}

const WIDE = ["customPush", "customEmail", "customSms", "sendgrid", "twilio"] as const;
const enabled = (fields: JsonObject | undefined) => fields !== undefined && fields.isEnabled !== false;

/**
 * The notification outbox: a subscriber of the store's events that computes, per receiver, the push (per
 * registered token), email and SMS notifications the platform would send, and records every one of them,
 * suppressed ones too with the reason. Custom providers are called for real through the shared delivery queue;
 * email and SMS go out as digests after the app's interval (on the emulator clock), for messages still unread.
 */
export class Outbox extends FilteredLog<Notification, NotificationFilter> {
  private readonly queue: DeliveryQueue;
  private readonly timers: ClockTimers;
  private readonly digests = new Map<string, Digest>();
  /** Email/SMS sent per receiver per day (and per conversation), for the app's daily quotas. */
  private readonly quota = new Map<string, number>();
  private nextId = 1;
  private closed = false;

  constructor(private readonly clock: Clock) {
    super(5000, matchesNotification);
    this.queue = new DeliveryQueue(clock, (n) => this.delivered(n as unknown as Notification));
    this.timers = new ClockTimers(clock);
  }

  /** The store's event sink. Idle apps (no token, no provider with a URL or contact channel) cost one check. */
  handle(event: DomainEvent): void {
    if (this.closed || !event.app.notifications.active) return;
    if (event.trigger === CAMPAIGN_PUSH_SENT) return this.campaignPush(event);
    const plan = planOf(event);
    if (!plan) return;
    const app = event.app;
    const now = this.clock.nowMs();
    const wide = WIDE.some((k) => enabled(app.notifications.channels[k]));
    // Without an app-wide channel only token owners can be notified: ask about them instead of walking a group.
    const receivers = wide ? plan.parties.all() : [...app.notifications.tokensByUser.keys()].filter((uid) => plan.parties.has(uid));
    for (const uid of receivers) {
      if (plan.target && !plan.target(uid, effectiveSetting(app, uid, plan.area, plan.setting))) continue;
      this.notify(app, plan, uid, suppression(app, plan, uid, now), now);
    }
    // The platform never notifies the actor's own devices: recorded as suppressed so a test can see why.
    for (const t of app.notifications.tokensOf(plan.actor)) this.add(this.base(app, plan, plan.actor, "push", providerOf(t), now, t), "SENDER");
  }

  /** Forgets every record, and the digests still waiting (they would go out after the clear otherwise). */
  override clear(): void {
    super.clear();
    this.digests.clear();
  }

  close(): void {
    this.closed = true;
    this.queue.close();
    this.timers.stop();
  }

  /**
   * A campaign push to its receiver's devices (the campaigns service's sends): one record per push token, sent as
   * the token's provider would take it, and one for a custom push provider. The payload carries the push's content
   * and ids (`type: "campaign_push"`); the platform does not publish its own.
   */
  private campaignPush(event: DomainEvent): void {
    const app = event.app;
    const { push } = event.data() as { push: { id: string; receiver: string; announcementId: string; campaignId: string | null; sentAt: number; content?: JsonObject } };
    const now = this.clock.nowMs();
    const title = String(push.content?.title ?? "");
    const body = String(push.content?.body ?? "");
    const base = (provider: ProviderName, token?: PushTokenRecord): Notification => ({
      id: 0,
      _id: randomHex(24),
      appId: app.meta.appId,
      uid: push.receiver,
      channel: "push",
      provider,
      ...(token && { tokenType: token.platform, pushToken: token.pushToken }),
      event: CAMPAIGN_PUSH_SENT,
      trigger: CAMPAIGN_PUSH_SENT,
      conversationId: "",
      messageId: 0,
      messageSentAtMS: push.sentAt * 1000,
      sender: "campaigns-service",
      receiver: push.receiver,
      receiverType: "user",
      title,
      body,
      pushNotificationId: push.id,
      campaignId: push.campaignId,
      notificationTriggered: false,
      status: "suppressed",
      attempts: [],
      createdAt: now,
      processingStartedAtMS: now,
    });
    const data = { type: "campaign_push", pushNotificationId: push.id, announcementId: push.announcementId, campaignId: push.campaignId ?? "", title, body };
    for (const t of app.notifications.tokensOf(push.receiver)) {
      if (t.pushTokenType === "voip") continue;
      const record = base(providerOf(t), t);
      const provider = resolveProvider(app, t);
      if (!provider) {
        this.add(record, "INVALID_PUSH_PROVIDER_ID");
        continue;
      }
      record.providerId = provider.providerId;
      record.payload = provider.kind === "fcm" ? { token: t.pushToken, data, notification: { title, body }, type: "fcm" } : { token: t.pushToken, aps: { alert: { title, body } }, data, type: "apns" };
      this.send(record);
    }
    if (enabled(app.notifications.channels.customPush)) {
      const record = base("custom");
      record.payload = envelope(app, "campaign-push-payload-generated", { to: { uid: push.receiver }, notificationDetails: data });
      this.deliver(app, record, "customPush");
    }
  }

  // ---- one receiver ----

  private notify(app: AppState, plan: Plan, uid: string, reason: string | undefined, now: number): void {
    const n = app.notifications;
    for (const t of n.tokensOf(uid)) {
      // VoIP tokens ring for calls only.
      if (t.pushTokenType === "voip" && plan.kind !== "call") continue;
      const record = this.base(app, plan, uid, "push", providerOf(t), now, t);
      const provider = resolveProvider(app, t);
      if (!provider) {
        this.add(record, reason ?? "INVALID_PUSH_PROVIDER_ID");
        continue;
      }
      // A suppressed record shows the payload that would have been sent, as the platform's logs do.
      record.providerId = provider.providerId;
      this.content(app, plan, uid, record);
      record.payload = tokenPayload(app, plan, record, t, provider);
      if (reason) this.add(record, reason);
      else this.send(record);
    }
    if (enabled(n.channels.customPush)) {
      const record = this.base(app, plan, uid, "push", "custom", now);
      this.content(app, plan, uid, record);
      record.payload = envelope(app, "push-notification-payload-generated", { to: { uid }, notificationDetails: details(app, plan, record) });
      if (reason) this.add(record, reason);
      else this.deliver(app, record, "customPush");
    }
    if (!plan.digest) return;
    for (const [channel, provider, key] of [["email", "sendgrid", "sendgrid"], ["email", "custom", "customEmail"], ["sms", "twilio", "twilio"], ["sms", "custom", "customSms"]] as const) {
      const fields = n.channels[key];
      if (!enabled(fields)) continue;
      const contact = channel === "email" ? n.user(uid)?.email : n.user(uid)?.phno;
      const needsContact = provider !== "custom" || fields![channel === "email" ? "useStoredEmailID" : "useStoredPhNo"] === true;
      const missing = needsContact && !contact ? (channel === "email" ? "MISSING_EMAIL" : "MISSING_PHNO") : undefined;
      if (reason || missing) this.add(this.base(app, plan, uid, channel, provider, now), (reason ?? missing)!);
      else this.digest(app, plan, uid, channel, provider, now);
    }
  }

  private base(app: AppState, plan: Plan, uid: string, channel: Channel, provider: ProviderName, now: number, token?: PushTokenRecord): Notification {
    const m = plan.message;
    const record: Notification = {
      id: 0,
      _id: randomHex(24),
      appId: app.meta.appId,
      uid,
      channel,
      provider,
      event: plan.event,
      trigger: plan.trigger,
      conversationId: m.conversationId,
      messageId: m.id,
      messageSentAtMS: m.sentAt * 1000,
      // A reaction's record names the message's author as `sender` and the reactor as `reactionSender`.
      sender: plan.reaction ? m.sender : plan.actor,
      // One-on-one: the party who did not act (the user notified; for the actor's own devices, the other one).
      receiver: m.receiverType === "group" || plan.actor === m.sender ? m.receiver : m.sender,
      receiverType: m.receiverType,
      notificationTriggered: false,
      status: "suppressed",
      attempts: [],
      createdAt: now,
      processingStartedAtMS: now,
    };
    if (m.receiverType === "group") record.member = uid;
    if (plan.reaction) {
      record.reactionId = plan.reaction.id;
      record.reactionSender = plan.reaction.uid;
      record.reactionReceiver = uid;
    }
    if (token) {
      record.tokenType = token.platform;
      record.pushToken = token.pushToken;
      if (token.providerId) record.providerId = token.providerId;
    }
    return record;
  }

  /** Title and body, from the templates (chat messages) or the plan (reactions, group actions, calls). */
  private content(app: AppState, plan: Plan, uid: string, record: Notification): void {
    if (plan.text) {
      Object.assign(record, plan.text(app.users.get(uid)?.name ?? uid));
      return;
    }
    const m = plan.message;
    const rendered = renderMessage(app, (appSettings(app).templates as JsonObject) ?? {}, { message: plan.view() as JsonObject }, {
      group: m.receiverType === "group",
      privacy: usesPrivacy(app, uid),
      mentioned: plan.mentions.has(uid),
      category: m.category,
      type: m.type,
    });
    record.title = rendered.title;
    record.body = rendered.body;
  }

  private add(record: Notification, reason?: string): void {
    if (reason) {
      record.reason = reason;
      record.status = "suppressed";
      record.processingEndedAtMS = record.createdAt;
    }
    record.id = this.nextId++;
    this.log.add(record);
  }

  /** FCM, APNs, SendGrid, Twilio: never contacted; the record is what would have gone out. */
  private send(record: Notification): void {
    record.notificationTriggered = true;
    record.success = true;
    record.status = "sent";
    record.processingEndedAtMS = record.createdAt;
    this.add(record);
  }

  /** Custom providers: POSTed for real with retries on the emulator clock; the record follows each attempt. */
  private deliver(app: AppState, record: Notification, key: "customPush" | "customEmail" | "customSms"): void {
    record.notificationTriggered = true;
    record.status = "pending";
    if (record.id === 0) this.add(record);
    else this.log.changed(record);
    const endpoint = (): Endpoint | string => {
      const f = app.notifications.channels[key];
      if (!f || !enabled(f) || typeof f.webhookURL !== "string") return "the provider was removed or disabled";
      return { url: f.webhookURL, useBasicAuth: f.useBasicAuth === true, username: f.basicAuthUsername as string, password: f.basicAuthPassword as string, retry: true };
    };
    this.queue.push(`${app.meta.appId}/${key}`, record, record.payload, endpoint);
  }

  private delivered(n: Notification): void {
    if (n.status === "delivered" || n.status === "failed") {
      n.success = n.status === "delivered";
      n.processingEndedAtMS = this.clock.nowMs();
    }
    this.log.changed(n);
  }

  // ---- email and SMS digests ----

  private digest(app: AppState, plan: Plan, uid: string, channel: "email" | "sms", provider: ProviderName, now: number): void {
    const key = `${app.meta.appId}/${uid}/${plan.message.conversationId}/${channel}/${provider}`;
    const open = this.digests.get(key);
    if (open) {
      open.messages.push(plan.message);
      return;
    }
    const interval = Number(at(appSettings(app), `preferences.${channel}.intervalInSeconds`) ?? 0);
    const record = this.base(app, plan, uid, channel, provider, now);
    record.status = "scheduled";
    record.dueAt = now + interval * 1000;
    this.add(record);
    this.digests.set(key, { record, app, plan, messages: [plan.message] });
    this.timers.at(record.dueAt, () => this.flush(key));
  }

  private flush(key: string): void {
    const d = this.digests.get(key);
    if (!d || this.closed) return;
    this.digests.delete(key);
    const { record, app, plan } = d;
    const channel = record.channel as "email" | "sms";
    const prefs = (at(appSettings(app), `preferences.${channel}`) as JsonObject | undefined) ?? {};
    const readId = app.conversations.state(record.uid, record.conversationId)?.readId ?? 0;
    const messages = d.messages.filter((m) => app.messages.get(m.id) && m.deletedAt === undefined && (prefs.notifyForUnreadOnly === false || m.id > readId));
    const now = this.clock.nowMs();
    record.processingEndedAtMS = now;
    const day = Math.floor(now / 86_400_000);
    const perDay = `${key.split("/").slice(0, 2).join("/")}/${channel}/${day}`;
    const perConversation = `${key}/${day}`;
    let reason: string | undefined;
    if (messages.length === 0) reason = "READ";
    else if ((this.quota.get(perDay) ?? 0) >= Number(prefs.maxPerDay ?? Infinity) || (this.quota.get(perConversation) ?? 0) >= Number(prefs.maxPerDayPerConversation ?? Infinity))
      reason = "QUOTA_PREFERENCE";
    if (reason) {
      record.reason = reason;
      record.status = "suppressed";
      this.log.changed(record);
      return;
    }
    this.quota.set(perDay, (this.quota.get(perDay) ?? 0) + 1);
    this.quota.set(perConversation, (this.quota.get(perConversation) ?? 0) + 1);
    record.payload = digestPayload(app, plan, record, messages);
    const content = (record.payload as { data: JsonObject }).data;
    record.title = String(content.subject ?? "");
    record.body = String(content.smsContent ?? messages.map((m) => messageText(app, m)).join("\n"));
    if (record.provider === "custom") this.deliver(app, record, channel === "email" ? "customEmail" : "customSms");
    else {
      record.notificationTriggered = true;
      record.success = true;
      record.status = "sent";
      this.log.changed(record);
    }
  }
}

function providerOf(t: PushTokenRecord): "fcm" | "apns" {
  return t.platform.startsWith("fcm_") ? "fcm" : "apns";
}

/** The token's provider: the one it names, else the app's default of its kind. */
function resolveProvider(app: AppState, t: PushTokenRecord): PushProviderRecord | undefined {
  const kind = providerOf(t);
  if (t.providerId) return app.notifications.provider(kind, t.providerId);
  return app.notifications.providersOf(kind).find((p) => p.isDefault);
}

function envelope(app: AppState, trigger: string, data: JsonObject): JsonObject {
  return { trigger, data, appId: app.meta.appId, region: app.meta.region, webhook: "custom" };
}

/** `notificationDetails`: what every push payload carries (custom providers get it as is). */
function details(app: AppState, plan: Plan, record: Notification): JsonObject {
  const m = plan.message;
  const sender = actorEntity(app, plan.actor);
  const group = m.receiverType === "group" ? app.groups.get(m.receiver) : undefined;
  const receiver = group ? { name: group.name, icon: group.icon } : actorEntity(app, record.uid);
  const settings = appSettings(app);
  const out: JsonObject = {
    title: record.title ?? "",
    body: record.body ?? "",
    sender: plan.actor,
    senderName: String(sender.name ?? plan.actor),
    receiver: record.receiver,
    receiverName: String(receiver.name ?? record.receiver),
    receiverType: m.receiverType,
    tag: String(m.id),
    conversationId: m.conversationId,
    type: plan.kind,
    // As the published example: the call fields are null outside calls, and a reaction has no sending time.
    sessionId: plan.call?.sessionId ?? null,
    callAction: plan.call?.action ?? null,
    callType: plan.call?.callType ?? null,
    sentAt: plan.reaction ? null : String(m.sentAt * 1000),
  };
  if (typeof sender.avatar === "string") out.senderAvatar = sender.avatar;
  const receiverAvatar = group ? group.icon : (receiver as JsonObject).avatar;
  if (typeof receiverAvatar === "string") out.receiverAvatar = receiverAvatar;
  if (plan.kind === "chat" && at(settings, "preferences.push.includeMessageObjectSetting") !== false) out.message = plan.view() as JsonObject;
  const custom = at(settings, "preferences.push.customJson");
  if (custom && typeof custom === "object" && Object.keys(custom).length > 0) out.custom = custom;
  return out;
}

/** The FCM or APNs request the platform would make for one token. */
function tokenPayload(app: AppState, plan: Plan, record: Notification, t: PushTokenRecord, p: PushProviderRecord): JsonObject {
  const d = details(app, plan, record);
  const sound = String(at(appSettings(app), `sound.${plan.kind === "call" ? "call" : "chat"}`) ?? "default");
  if (p.kind === "fcm") {
    const data = Object.fromEntries(Object.entries(d).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]));
    const out: JsonObject = { token: t.pushToken, data, type: "fcm" };
    const platform = /android/.test(t.platform) ? "android" : /ios/.test(t.platform) ? "ios" : "web";
    if (at(p.fields, `notificationInPayload.${platform}.${plan.kind}`) === true) out.notification = { title: d.title, body: d.body };
    if (platform === "android") out.android = { priority: "high" };
    return out;
  }
  const voip = t.pushTokenType === "voip";
  return {
    payload: d,
    // APNs flags as the platform's logs show them: 1 or 0.
    contentAvailable: p.fields.includeContentAvailable === true ? 1 : 0,
    mutableContent: p.fields.includeMutableContent === true ? 1 : 0,
    topic: `${String(p.fields.bundleId ?? "")}${voip ? ".voip" : ""}`,
    alert: { title: d.title, body: d.body },
    priority: 10,
    pushType: voip ? "voip" : "alert",
    sound,
    collapseId: d.tag,
    expiry: 0,
    production: p.fields.productionMode === true,
    type: "apns",
  };
}

/** A message as an email or SMS line: its text, mentions by name, or what kind of attachment it is. */
function messageText(app: AppState, m: MessageRecord): string {
  if (typeof m.data.text === "string") return withMentionNames(app, m.data.text);
  const kinds: Record<string, string> = { image: "📷 Has shared an image", video: "🎥 Has shared a video", audio: "🔊 Has shared an audio", file: "📄 Has shared a file" };
  return kinds[m.type] ?? "New message";
}

/** The email/SMS digest: the custom providers' payload (SendGrid and Twilio records carry the same content). */
function digestPayload(app: AppState, plan: Plan, record: Notification, messages: MessageRecord[]): JsonObject {
  const user = app.users.get(record.uid);
  const contact = app.notifications.user(record.uid);
  const to: JsonObject = { uid: record.uid, name: user?.name ?? record.uid };
  if (record.channel === "email" && contact?.email) to.email = contact.email;
  if (record.channel === "sms" && contact?.phno) to.phno = contact.phno;
  const group = plan.message.receiverType === "group" ? app.groups.get(plan.message.receiver) : undefined;
  const withObject = at(appSettings(app), "preferences.push.includeMessageObjectSetting") !== false;
  const brief = (uid: string) => {
    const e = actorEntity(app, uid);
    return { uid, name: String(e.name ?? uid), ...(typeof e.avatar === "string" ? { avatar: e.avatar } : {}) };
  };
  const data: JsonObject = {
    to,
    messages: messages.map((m) => {
      const line: JsonObject = { sender: brief(m.sender), message: messageText(app, m) };
      if (withObject) line.messageObject = messageView(app, m) as JsonObject;
      return line;
    }),
  };
  if (group) data.groupDetails = { guid: group.guid, name: group.name, ...(group.icon ? { icon: group.icon } : {}) };
  else data.senderDetails = brief(plan.actor);
  const privacy = usesPrivacy(app, record.uid) ? "Privacy" : "Default";
  const templates = (appSettings(app).templates as JsonObject | undefined) ?? {};
  const context = { message: plan.view() as JsonObject };
  if (record.channel === "email") data.subject = render(at(templates, `emailSubjectTemplate${privacy}.${group ? "subjectGroup" : "subjectOneOnOne"}`), context) ?? "New messages";
  else data.smsContent = render(at(templates, `smsContentTemplate${privacy}.${group ? "bodyGroup" : "bodyOneOnOne"}`), context) ?? "You've received new messages!";
  return envelope(app, `${record.channel}-notification-payload-generated`, data);
}
