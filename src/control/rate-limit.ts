import type { ApiRequest } from "./request.js";

/**
 * The platform's per-app rate limits (reference/errors.md §7): two cumulative buckets per app and minute,
 * "core" (creating and deleting users, logging in, creating, joining and leaving groups) and "standard"
 * (everything else). Windows are whole minutes of the emulator clock, so a frozen clock holds a window open and
 * advancing it by 60 s starts the next one. Off unless enabled (`--rate-limit`).
 */

export type Bucket = "core" | "standard";
export type Limits = Record<Bucket, number>;

export const PLATFORM_LIMITS: Readonly<Limits> = { core: 10_000, standard: 20_000 };

const CORE: [string, RegExp][] = [
  ["POST", /^\/v3\/users$/i],
  ["DELETE", /^\/v3\/users\/[^/]+$/i],
  ["POST", /^\/v3\/users\/[^/]+\/auth_tokens$/i],
  ["POST", /^\/v3\/groups$/i],
  ["POST", /^\/v3\/groups\/[^/]+\/members$/i],
  ["DELETE", /^\/v3\/groups\/[^/]+\/members\/[^/]+$/i],
];

export function bucketOf(req: ApiRequest): Bucket {
  if (req.method === "GET") return "standard";
  for (const [method, path] of CORE) if (method === req.method && path.test(req.path)) return "core";
  return "standard";
}

/** One request's standing in its bucket. */
export interface Verdict {
  bucket: Bucket;
  limit: number;
  remaining: number;
  allowed: boolean;
  /** Unix seconds when the window ends. */
  resetAt: number;
  /** Whole seconds until then (at least 1). */
  retryAfter: number;
}

interface Window {
  minute: number;
  used: Limits;
}

export class RateLimits {
  enabled: boolean;
  limits: Limits;
  private readonly overrides = new Map<string, Partial<Limits>>();
  private readonly windows = new Map<string, Window>();
  /** Operations limited on their own (data import: 60 per minute per endpoint), by app and name. */
  private readonly named = new Map<string, Map<string, { minute: number; used: number }>>();

  constructor(opts: { enabled?: boolean; limits?: Partial<Limits> } = {}) {
    this.enabled = opts.enabled ?? false;
    this.limits = { ...PLATFORM_LIMITS, ...opts.limits };
  }

  limitsOf(appId: string): Limits {
    const o = this.overrides.get(appId);
    return o ? { ...this.limits, ...o } : this.limits;
  }

  /** Per-app limits; a bucket set to null goes back to the default. */
  override(appId: string, limits: Partial<Record<Bucket, number | null>>): void {
    const next = { ...this.overrides.get(appId) };
    for (const b of ["core", "standard"] as const) {
      if (limits[b] === null) delete next[b];
      else if (limits[b] !== undefined) next[b] = limits[b];
    }
    if (Object.keys(next).length === 0) this.overrides.delete(appId);
    else this.overrides.set(appId, next);
  }

  /** Drops an app's overrides and counts (all apps' when omitted). */
  forget(appId?: string): void {
    if (appId === undefined) {
      this.overrides.clear();
      this.windows.clear();
      this.named.clear();
    } else {
      this.overrides.delete(appId);
      this.windows.delete(appId);
      this.named.delete(appId);
    }
  }

  private window(appId: string, nowMs: number): Window {
    const minute = Math.floor(nowMs / 60_000);
    let w = this.windows.get(appId);
    if (!w || w.minute !== minute) this.windows.set(appId, (w = { minute, used: { core: 0, standard: 0 } }));
    return w;
  }

  /** Counts one request against its bucket, unless the bucket is already spent. */
  take(appId: string, bucket: Bucket, nowMs: number): Verdict {
    const w = this.window(appId, nowMs);
    const limit = this.limitsOf(appId)[bucket];
    const allowed = w.used[bucket] < limit;
    if (allowed) w.used[bucket]++;
    const resetMs = (w.minute + 1) * 60_000;
    return {
      bucket,
      limit,
      remaining: Math.max(0, limit - w.used[bucket]),
      allowed,
      resetAt: resetMs / 1000,
      retryAfter: Math.max(1, Math.ceil((resetMs - nowMs) / 1000)),
    };
  }

  /** Counts one request of an operation limited on its own to `limit` per minute, unless that is spent. */
  takeNamed(appId: string, name: string, limit: number, nowMs: number): Omit<Verdict, "bucket"> {
    const minute = Math.floor(nowMs / 60_000);
    let mine = this.named.get(appId);
    if (!mine) this.named.set(appId, (mine = new Map()));
    let w = mine.get(name);
    if (!w || w.minute !== minute) mine.set(name, (w = { minute, used: 0 }));
    const allowed = w.used < limit;
    if (allowed) w.used++;
    const resetMs = (minute + 1) * 60_000;
    return {
      limit,
      remaining: Math.max(0, limit - w.used),
      allowed,
      resetAt: resetMs / 1000,
      retryAfter: Math.max(1, Math.ceil((resetMs - nowMs) / 1000)),
    };
  }

  /** Limits and the current window's use for `appIds`. */
  view(appIds: string[], nowMs: number) {
    return {
      enabled: this.enabled,
      limits: { ...this.limits },
      apps: appIds.map((appId) => {
        const limits = this.limitsOf(appId);
        const w = this.windows.get(appId);
        const current = w?.minute === Math.floor(nowMs / 60_000) ? w.used : { core: 0, standard: 0 };
        return {
          appId,
          limits: { ...limits },
          overridden: this.overrides.has(appId),
          used: { ...current },
          remaining: { core: Math.max(0, limits.core - current.core), standard: Math.max(0, limits.standard - current.standard) },
          resetAt: (Math.floor(nowMs / 60_000) + 1) * 60,
        };
      }),
    };
  }
}
