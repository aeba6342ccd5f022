import type { AppState } from "../store/app-state.js";
import type { Clock } from "../store/clock.js";

import { ClockTimers } from "../util/clock-timers.js";
import { LEGACY_ALIASES } from "./triggers.js";

export interface Attempt {
  /** Clock time of the attempt, Unix milliseconds. */
  at: number;
  status?: number;
  error?: string;
  durationMs: number;
}

/** Who a delivery is for: a webhook (by id) or a bot's callback (by uid). */
export type Recipient = { kind: "webhook"; webhook: string } | { kind: "bot"; bot: string };

export type Delivery = Recipient & {
  id: number;
  appId: string;
  event: string;
  payload: Record<string, unknown>;
  status: "pending" | "retrying" | "delivered" | "failed";
  attempts: Attempt[];
  createdAt: number;
};

/** Where and how a delivery is POSTed, looked up at each attempt (the webhook or bot may change in between). */
export interface Target {
  url: string;
  useBasicAuth: boolean;
  username?: string;
  password?: string;
  retry: boolean;
}

export interface DeliveryFilter {
  appId?: string;
  kind?: Delivery["kind"];
  webhook?: string;
  bot?: string;
  trigger?: string;
  status?: Delivery["status"];
}

/** The platform's contract: answer 200 within 2 s; with `retryOnFailure`, two retries, 10 s and 30 s apart. */
const TIMEOUT_MS = 2000;
const RETRY_DELAYS_MS = [10_000, 30_000];

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
 * Delivers events to the webhooks that subscribe to them and relayed messages to bots' callbacks, from a
 * background queue per (app, recipient) so events reach each recipient in the order they happened and never
 * delay the API response that caused them. Keeps the last deliveries of both kinds (with every attempt) in one
 * log for `/_emulator/webhooks/deliveries` and `/_emulator/bots/deliveries`.
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
      for (const event of events)
        this.add(app, { kind: "webhook", webhook: w.id }, event, { trigger: event, data, appId: app.meta.appId, region: app.meta.region, webhook: w.id });
    }
  }

  /** Queues one POST of `payload` to a bot's callback. */
  relay(app: AppState, bot: string, event: string, payload: Record<string, unknown>): void {
    if (!this.closed) this.add(app, { kind: "bot", bot }, event, payload);
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

  /** Forgets the log, or only the deliveries of one kind. */
  clear(kind?: Delivery["kind"]): void {
    this.log = kind ? this.log.filter((d) => d.kind !== kind) : [];
  }

  close(): void {
    this.closed = true;
    this.timers.stop();
    for (const q of this.queues.values()) q.items = [];
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
    this.log.push(d);
    if (this.log.length > this.logSize) this.log.splice(0, this.log.length - this.logSize);
    const key = `${d.appId}/${to.kind}/${to.kind === "bot" ? to.bot : to.webhook}`;
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
      const target = targetOf(app, d);
      const ok = typeof target === "string" ? (this.record(d, { at: this.clock.nowMs(), error: target, durationMs: 0 }), false) : await this.attempt(d, target);
      const retries = d.attempts.length - 1;
      if (!ok && typeof target !== "string" && target.retry && retries < RETRY_DELAYS_MS.length) {
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

  private async attempt(d: Delivery, w: Target): Promise<boolean> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (w.useBasicAuth) headers.authorization = `Basic ${Buffer.from(`${w.username ?? ""}:${w.password ?? ""}`).toString("base64")}`;
    const at = this.clock.nowMs();
    const started = performance.now();
    try {
      const res = await fetch(w.url, {
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
