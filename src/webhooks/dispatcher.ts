import type { AppState } from "../store/app-state.js";
import type { Clock } from "../store/clock.js";
import { FilteredLog } from "../delivery/live-log.js";
import { DeliveryQueue, type Attempt, type DeliveryStatus, type Endpoint } from "../delivery/queue.js";
import { LEGACY_ALIASES } from "./triggers.js";

export type { Attempt };
/** Where and how a delivery is POSTed, looked up at each attempt (the webhook or bot may change in between). */
export type Target = Endpoint;

/** Who a delivery is for: a webhook (by id) or a bot's callback (by uid). */
export type Recipient = { kind: "webhook"; webhook: string } | { kind: "bot"; bot: string };

export type Delivery = Recipient & {
  id: number;
  appId: string;
  event: string;
  payload: Record<string, unknown>;
  status: DeliveryStatus;
  attempts: Attempt[];
  createdAt: number;
};

export interface DeliveryFilter {
  appId?: string;
  kind?: Delivery["kind"];
  webhook?: string;
  bot?: string;
  trigger?: string;
  status?: Delivery["status"];
}

export function matches(d: Delivery, f: DeliveryFilter): boolean {
  return (
    (!f.appId || d.appId === f.appId) &&
    (!f.kind || d.kind === f.kind) &&
    (!f.webhook || (d.kind === "webhook" && d.webhook === f.webhook)) &&
    (!f.bot || (d.kind === "bot" && d.bot === f.bot)) &&
    (!f.trigger || d.event === f.trigger) &&
    (!f.status || d.status === f.status)
  );
}

/** A recipient's current target, or why there is none. */
function targetOf(app: AppState, d: Delivery): Target | string {
  if (d.kind === "bot") {
    const b = app.bots.get(d.bot);
    // Bots' callbacks are always retried: the platform documents no switch for them.
    return b ? { url: b.webhookURL, useBasicAuth: b.useBasicAuth, username: b.username, password: b.password, retry: true } : "the bot was deleted";
  }
  const w = app.webhooks.get(d.webhook);
  return w ? { url: w.webhookURL, useBasicAuth: w.useBasicAuth, username: w.username, password: w.password, retry: w.retryOnFailure } : "the webhook was deleted";
}

/**
 * Delivers events to the webhooks that subscribe to them and relayed messages to bots' callbacks, through the
 * shared delivery queue (one queue per app and recipient, so events reach each recipient in the order they
 * happened and never delay the API response that caused them). Keeps the last deliveries of both kinds (with
 * every attempt) in one log for `/_emulator/webhooks/deliveries` and `/_emulator/bots/deliveries`.
 */
export class Dispatcher extends FilteredLog<Delivery, DeliveryFilter> {
  private readonly queue: DeliveryQueue;
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly clock: Clock,
    logSize = 1000,
  ) {
    super(logSize, matches);
    this.queue = new DeliveryQueue(clock, (d) => this.log.changed(d as Delivery));
  }

  /** The store's event sink: one delivery per enabled webhook listening to `trigger`. */
  enqueue(app: AppState, trigger: string, build: () => unknown): void {
    if (this.closed) return;
    let data: unknown;
    for (const w of app.webhooks.values()) {
      const events = w.version === 2 ? (w.triggers.includes(trigger) ? [trigger] : []) : (LEGACY_ALIASES[trigger] ?? []).filter((t) => w.triggers.includes(t));
      if (!w.enabled || events.length === 0) continue;
      data ??= build();
      for (const event of events)
        this.add(app, { kind: "webhook", webhook: w.id }, event, { trigger: event, data, appId: app.meta.appId, region: app.meta.region, webhook: w.id });
    }
  }

  /** Queues one POST of `payload` to a bot's callback. */
  relay(app: AppState, bot: string, event: string, payload: Record<string, unknown>): void {
    if (!this.closed) this.add(app, { kind: "bot", bot }, event, payload);
  }

  /** Forgets the log, or only the deliveries of one kind. */
  override clear(kind?: Delivery["kind"]): void {
    this.log.clear(kind ? (d) => d.kind === kind : undefined);
  }

  close(): void {
    this.closed = true;
    this.queue.close();
  }

  private add(app: AppState, to: Recipient, event: string, payload: Record<string, unknown>): void {
    const d: Delivery = {
      id: this.nextId++,
      appId: app.meta.appId,
      ...to,
      event,
      payload,
      status: "pending",
      attempts: [],
      createdAt: this.clock.nowMs(),
    };
    this.log.add(d);
    this.queue.push(`${d.appId}/${to.kind}/${to.kind === "bot" ? to.bot : to.webhook}`, d, payload, () => targetOf(app, d));
  }
}
