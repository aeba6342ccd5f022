/**
 * The read-only HTTP client of `pull`: GET only, a fixed number of requests in flight, and the platform's rate
 * limits respected. A 429 pauses every request until `Retry-After` (or `X-Rate-Limit-Reset`) has passed; a window
 * nearly spent (`X-Rate-Limit-Remaining` below the requests in flight) waits for its reset the same way. Network
 * errors and 5xx answers are retried a few times with a growing pause; other answers are the caller's.
 */

export interface ClientOptions {
  /** Requests in flight at once. */
  concurrency: number;
  /** Headers of every request (the credentials). */
  headers: Record<string, string>;
  /** Told about each pause, for the progress display. */
  onWait?: (seconds: number, why: string) => void;
  /** Retries of a network error or 5xx answer. */
  retries?: number;
}

export class HttpError extends Error {
  constructor(
    readonly url: string,
    readonly status: number,
    readonly code: string | undefined,
    detail: string,
  ) {
    super(`GET ${url} answered ${status}${code ? ` ${code}` : ""}${detail ? `: ${detail}` : ""}`);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class ReadOnlyClient {
  requests = 0;
  waits = 0;
  private active = 0;
  private readonly queue: (() => void)[] = [];
  /** Until when (ms) every request waits: a 429 or a spent window. */
  private pausedUntil = 0;

  constructor(private readonly opts: ClientOptions) {}

  /** GETs `url` and answers its JSON body; a 4xx answer throws HttpError (after the rate-limit waits and retries). */
  async get(url: string, headers: Record<string, string> = {}): Promise<Record<string, unknown>> {
    await this.slot();
    try {
      return await this.attempt(url, headers);
    } finally {
      this.active--;
      this.queue.shift()?.();
    }
  }

  private slot(): Promise<void> {
    if (this.active < this.opts.concurrency) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve) =>
      this.queue.push(() => {
        this.active++;
        resolve();
      }),
    );
  }

  private async attempt(url: string, headers: Record<string, string>): Promise<Record<string, unknown>> {
    const retries = this.opts.retries ?? 4;
    for (let attempt = 0; ; attempt++) {
      const pause = this.pausedUntil - Date.now();
      if (pause > 0) await sleep(pause);
      let res: Response;
      try {
        this.requests++;
        res = await fetch(url, { method: "GET", headers: { accept: "application/json", ...this.opts.headers, ...headers } });
      } catch (e) {
        if (attempt >= retries) throw new Error(`GET ${url} failed: ${causeOf(e)}`);
        await this.backoff(attempt, causeOf(e));
        continue;
      }
      this.noteWindow(res);
      if (res.status === 429) {
        await res.body?.cancel();
        this.pauseFor(waitSeconds(res), "rate limited (429)");
        continue;
      }
      if (res.status >= 500 && attempt < retries) {
        await res.body?.cancel();
        await this.backoff(attempt, `${res.status}`);
        continue;
      }
      const text = await res.text();
      let body: Record<string, unknown> | undefined;
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        body = undefined;
      }
      if (!res.ok || body === undefined) {
        const error = (body?.error ?? {}) as { code?: string; message?: string };
        throw new HttpError(url, res.status, error.code, error.message ?? (body === undefined ? "the answer is not JSON" : ""));
      }
      return body;
    }
  }

  private async backoff(attempt: number, why: string): Promise<void> {
    const seconds = 0.5 * 2 ** attempt;
    this.waits++;
    this.opts.onWait?.(seconds, why);
    await sleep(seconds * 1000);
  }

  private pauseFor(seconds: number, why: string): void {
    const until = Date.now() + seconds * 1000;
    if (until <= this.pausedUntil) return;
    this.pausedUntil = until;
    this.waits++;
    this.opts.onWait?.(seconds, why);
  }

  /** A window with fewer requests left than are in flight waits for its reset rather than earn a 429. */
  private noteWindow(res: Response): void {
    const remaining = Number(res.headers.get("x-rate-limit-remaining") ?? NaN);
    if (Number.isFinite(remaining) && remaining < this.opts.concurrency && res.headers.has("x-rate-limit-reset"))
      this.pauseFor(waitSeconds(res), `rate limit window nearly spent (${remaining} left)`);
  }
}

/** Seconds to wait before the next try: `Retry-After` (seconds or a date), else until `X-Rate-Limit-Reset`, else 1. */
export function waitSeconds(res: Response): number {
  const after = res.headers.get("retry-after");
  if (after !== null) {
    if (/^\d+(\.\d+)?$/.test(after.trim())) return Math.max(0, Number(after));
    const at = Date.parse(after);
    if (Number.isFinite(at)) return Math.max(0, (at - Date.now()) / 1000);
  }
  const reset = Number(res.headers.get("x-rate-limit-reset") ?? NaN);
  if (Number.isFinite(reset)) {
    // Unix seconds, or milliseconds when that large.
    const ms = reset > 1e12 ? reset : reset * 1000;
    return Math.min(60, Math.max(0, (ms - Date.now()) / 1000));
  }
  return 1;
}

function causeOf(e: unknown): string {
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (e as Error).message;
}
