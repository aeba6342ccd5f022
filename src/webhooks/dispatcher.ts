import type { AppState } from "../store/app-state.js";
import type { Clock } from "../store/clock.js";
import type { WebhookRecord } from "../store/types.js";
import { ClockTimers } from "../util/clock-timers.js";
import { LEGACY_ALIASES } from "./triggers.js";

export interface Attempt {
  /** Clock time of the attempt, Unix milliseconds. */
  at: number;
  status?: number;
  error?: string;
  durationMs: number;
}

export interface Delivery {
  id: number;
  appId: string;
  webhook: string;
  event: string;
  payload: { trigger: string; data: unknown; appId: string; region: string; webhook: string };
  status: "pending" | "retrying" | "delivered" | "failed";
  attempts: Attempt[];
  createdAt: number;
}

export interface DeliveryFilter {
  appId?: string;
  webhook?: string;
  trigger?: string;
  status?: Delivery["status"];
}

/** The platform's contract: answer 200 within 2 s; with `retryOnFailure`, two retries, 10 s and 30 s apart. */
const TIMEOUT_MS = 2000;
const RETRY_DELAYS_MS = [10_000, 30_000];

export function matches(d: Delivery, f: DeliveryFilter): boolean {
  return (
    (!f.appId || d.appId === f.appId) &&
    (!f.webhook || d.webhook === f.webhook) &&
    (!f.trigger || d.event === f.trigger) &&
    (!f.status || d.status === f.status)
  );
}

/**
 * Delivers events to the webhooks that subscribe to them, from a background queue per (app, webhook) so events
 * reach each webhook in the order they happened and never delay the API response that caused them. Keeps the
 * last deliveries (with every attempt) for `/_emulator/webhooks/deliveries`.
 */
export class Dispatcher {
  private log: Delivery[] = [];
  private nextId = 1;
  private readonly queues = new Map<string, { items: Delivery[]; busy: boolean }>();
  private readonly waiters = new Set<() => void>();
  private readonly listeners = new Set<(d: Delivery) => void>();
  private readonly timers: ClockTimers;
  private closed = false;

  constructor(
    private readonly clock: Clock,
    private readonly logSize = 1000,
  ) {
    this.timers = new ClockTimers(clock);
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

  list(filter: DeliveryFilter = {}): Delivery[] {
    return this.log.filter((d) => matches(d, filter));
  }

  /** Resolves with the matching deliveries as soon as there is one, or with none after `timeoutMs`. */
  waitFor(filter: DeliveryFilter, timeoutMs: number): Promise<Delivery[]> {
    const now = this.list(filter);
    if (now.length > 0 || timeoutMs <= 0) return Promise.resolve(now);
    return new Promise((resolve) => {
      const check = () => {
        const found = this.list(filter);
        if (found.length === 0) return;
        done(found);
      };
      const done = (found: Delivery[]) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(found);
      };
      const timer = setTimeout(() => done([]), timeoutMs);
      this.waiters.add(check);
    });
  }

  /** Calls `listener` with a delivery each time one is added or changes (attempt, status); returns the unsubscribe. */
  subscribe(listener: (d: Delivery) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  clear(): void {
    this.log = [];
  }

  close(): void {
    this.closed = true;
    this.timers.stop();
    for (const q of this.queues.values()) q.items = [];
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
    this.log.push(d);
    if (this.log.length > this.logSize) this.log.splice(0, this.log.length - this.logSize);
    const key = `${d.appId}/${w.id}`;
    let q = this.queues.get(key);
    if (!q) this.queues.set(key, (q = { items: [], busy: false }));
    q.items.push(d);
    this.changed(d);
    if (!q.busy) setImmediate(() => this.drain(app, key));
  }

  /** Works through one webhook's queue: one delivery at a time, retries included, so order holds. */
  private async drain(app: AppState, key: string): Promise<void> {
    const q = this.queues.get(key);
    if (!q || q.busy) return;
    q.busy = true;
    while (q.items.length > 0 && !this.closed) {
      const d = q.items[0];
      const w = app.webhooks.get(d.webhook);
      const ok = w ? await this.attempt(d, w) : (this.record(d, { at: this.clock.nowMs(), error: "the webhook was deleted", durationMs: 0 }), false);
      const retries = d.attempts.length - 1;
      if (!ok && w?.retryOnFailure && retries < RETRY_DELAYS_MS.length) {
        d.status = "retrying";
        this.changed(d);
        await new Promise<void>((resolve) => this.timers.at(this.clock.nowMs() + RETRY_DELAYS_MS[retries], resolve));
        continue;
      }
      d.status = ok ? "delivered" : "failed";
      q.items.shift();
      this.changed(d);
    }
    q.busy = false;
  }

  private async attempt(d: Delivery, w: WebhookRecord): Promise<boolean> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (w.useBasicAuth) headers.authorization = `Basic ${Buffer.from(`${w.username ?? ""}:${w.password ?? ""}`).toString("base64")}`;
    const at = this.clock.nowMs();
    const started = performance.now();
    try {
      const res = await fetch(w.webhookURL, {
        method: "POST",
        headers,
        body: JSON.stringify(d.payload),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      await res.arrayBuffer().catch(() => undefined);
      this.record(d, { at, status: res.status, durationMs: Math.round(performance.now() - started) });
      return res.status >= 200 && res.status < 300;
    } catch (e) {
      const error = (e as Error).name === "TimeoutError" ? `no answer within ${TIMEOUT_MS} ms` : String((e as Error).cause ?? (e as Error).message);
      this.record(d, { at, error, durationMs: Math.round(performance.now() - started) });
      return false;
    }
  }

  private record(d: Delivery, a: Attempt): void {
    d.attempts.push(a);
    this.changed(d);
  }

  private changed(d: Delivery): void {
    for (const listener of this.listeners) listener(d);
    for (const check of [...this.waiters]) check();
  }
}
