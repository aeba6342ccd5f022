import type { AppState } from "../store/app-state.js";
import type { Clock } from "../store/clock.js";
import type { WebhookRecord } from "../store/types.js";
import { FilteredLog } from "../delivery/live-log.js";
import { DeliveryQueue, type Attempt, type DeliveryStatus } from "../delivery/queue.js";
import { LEGACY_ALIASES } from "./triggers.js";

export type { Attempt };

export interface Delivery {
  id: number;
  appId: string;
  webhook: string;
  event: string;
  payload: { trigger: string; data: unknown; appId: string; region: string; webhook: string };
  status: DeliveryStatus;
  attempts: Attempt[];
  createdAt: number;
}

export interface DeliveryFilter {
  appId?: string;
  webhook?: string;
  trigger?: string;
  status?: Delivery["status"];
}

export function matches(d: Delivery, f: DeliveryFilter): boolean {
  return (
    (!f.appId || d.appId === f.appId) &&
    (!f.webhook || d.webhook === f.webhook) &&
    (!f.trigger || d.event === f.trigger) &&
    (!f.status || d.status === f.status)
  );
}

/**
 * Delivers events to the webhooks that subscribe to them (through the shared delivery queue, one queue per
 * webhook so events arrive in order) and keeps the last deliveries, with every attempt, for
 * `/_emulator/webhooks/deliveries`.
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
      for (const event of events) this.add(app, w, event, data);
    }
  }

  close(): void {
    this.closed = true;
    this.queue.close();
  }

  private add(app: AppState, w: WebhookRecord, event: string, data: unknown): void {
    const d: Delivery = {
      id: this.nextId++,
      appId: app.meta.appId,
      webhook: w.id,
      event,
      payload: { trigger: event, data, appId: app.meta.appId, region: app.meta.region, webhook: w.id },
      status: "pending",
      attempts: [],
      createdAt: this.clock.nowMs(),
    };
    this.log.add(d);
    const endpoint = () => {
      const live = app.webhooks.get(w.id);
      return live && { url: live.webhookURL, useBasicAuth: live.useBasicAuth, username: live.username, password: live.password, retry: live.retryOnFailure };
    };
    this.queue.push(`${d.appId}/${w.id}`, d, d.payload, endpoint, "the webhook was deleted");
  }
}
