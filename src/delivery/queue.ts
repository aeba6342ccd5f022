import type { Clock } from "../store/clock.js";
import { ClockTimers } from "../util/clock-timers.js";
import { CREDENTIALS_REFUSED, holdsCredentials } from "../util/called-url.js";

export interface Attempt {
  /** Clock time of the attempt, Unix milliseconds. */
  at: number;
  status?: number;
  error?: string;
  durationMs: number;
}

export type DeliveryStatus = "pending" | "retrying" | "delivered" | "failed";

/** What the queue delivers: a record it updates in place (attempts, and its status: one of DeliveryStatus). */
export interface Deliverable {
  status: string;
  attempts: Attempt[];
}

/** Where and how to POST; looked up at each attempt, so a changed or removed endpoint takes effect. */
export interface Endpoint {
  url: string;
  useBasicAuth: boolean;
  username?: string;
  password?: string;
  retry: boolean;
}

/** The platform's contract for webhooks and custom providers: answer 2xx within 2 s; retries 10 s and 30 s later. */
const TIMEOUT_MS = 2000;
const RETRY_DELAYS_MS = [10_000, 30_000];

interface Job {
  item: Deliverable;
  body: string;
  /** The endpoint now, or why there is none (it was deleted, disabled). */
  endpoint: () => Endpoint | string;
}

/**
 * POSTs JSON bodies from a background queue per key (one webhook, one provider), one at a time with their
 * retries, so items reach each endpoint in order and never delay the API response that caused them. Retries
 * wait on the emulator clock (an advance fires them at once). `onChange` hears of every attempt and status.
 */
export class DeliveryQueue {
  private readonly queues = new Map<string, { items: Job[]; busy: boolean }>();
  private readonly timers: ClockTimers;
  private closed = false;

  constructor(
    private readonly clock: Clock,
    private readonly onChange: (item: Deliverable) => void,
  ) {
    this.timers = new ClockTimers(clock);
  }

  /** Queues `item` for `key`; `endpoint` is looked up at each attempt (a string: why there is none any more). */
  push(key: string, item: Deliverable, body: unknown, endpoint: () => Endpoint | string): void {
    if (this.closed) return;
    let q = this.queues.get(key);
    if (!q) this.queues.set(key, (q = { items: [], busy: false }));
    q.items.push({ item, body: JSON.stringify(body), endpoint });
    if (!q.busy) setImmediate(() => this.drain(key));
  }

  close(): void {
    this.closed = true;
    this.timers.stop();
    for (const q of this.queues.values()) q.items = [];
  }

  private async drain(key: string): Promise<void> {
    const q = this.queues.get(key);
    if (!q || q.busy) return;
    q.busy = true;
    while (q.items.length > 0 && !this.closed) {
      const job = q.items[0];
      const d = job.item;
      const endpoint = job.endpoint();
      const ok = typeof endpoint === "string" ? (this.record(d, { at: this.clock.nowMs(), error: endpoint, durationMs: 0 }), false) : await this.attempt(d, endpoint, job.body);
      const retries = d.attempts.length - 1;
      if (!ok && typeof endpoint !== "string" && endpoint.retry && retries < RETRY_DELAYS_MS.length) {
        d.status = "retrying";
        this.onChange(d);
        await new Promise<void>((resolve) => this.timers.at(this.clock.nowMs() + RETRY_DELAYS_MS[retries], resolve));
        continue;
      }
      d.status = ok ? "delivered" : "failed";
      q.items.shift();
      this.onChange(d);
    }
    q.busy = false;
  }

  private async attempt(d: Deliverable, e: Endpoint, body: string): Promise<boolean> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (e.useBasicAuth) headers.authorization = `Basic ${Buffer.from(`${e.username ?? ""}:${e.password ?? ""}`).toString("base64")}`;
    const at = this.clock.nowMs();
    // A URL from a state file, from before creation refused it: said without the URL (it holds a password).
    if (holdsCredentials(e.url)) return this.record(d, { at, error: `the URL ${CREDENTIALS_REFUSED}`, durationMs: 0 }), false;
    const started = performance.now();
    try {
      const res = await fetch(e.url, { method: "POST", headers, body, signal: AbortSignal.timeout(TIMEOUT_MS) });
      await res.arrayBuffer().catch(() => undefined);
      this.record(d, { at, status: res.status, durationMs: Math.round(performance.now() - started) });
      return res.status >= 200 && res.status < 300;
    } catch (err) {
      const error = (err as Error).name === "TimeoutError" ? `no answer within ${TIMEOUT_MS} ms` : String((err as Error).cause ?? (err as Error).message);
      this.record(d, { at, error, durationMs: Math.round(performance.now() - started) });
      return false;
    }
  }

  private record(d: Deliverable, a: Attempt): void {
    d.attempts.push(a);
    this.onChange(d);
  }
}
