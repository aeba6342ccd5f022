import type { Clock } from "../store/clock.js";
import type { Store } from "../store/store.js";
import { seededRandom } from "../util/random.js";
import { hostName } from "./guard.js";
import { DEFAULT_JOURNAL_SIZE, Journal } from "./journal.js";
import { Coverage } from "./coverage.js";
import { RateLimits, type Limits } from "./rate-limit.js";
import { Rules } from "./rules.js";
import { Snapshots } from "./snapshots.js";
import { ExtensionCalls } from "../extensions/calls.js";

export interface ControlOptions {
  /** Journal capacity (entries); 0 turns the journal off. Default 1000. */
  journalSize?: number;
  /** A global latency rule: milliseconds, `[min, max]`, or "MS" / "MIN-MAX" as on the CLI. */
  latency?: number | [number, number] | string;
  /** A global realtime latency rule for the frames the WebSocket sends, written as `latency` is. */
  realtimeLatency?: number | [number, number] | string;
  /** Enforce the platform's per-app rate limits; an object sets other default limits. */
  rateLimit?: boolean | Partial<Limits>;
  /** Required as `x-emulator-token` on every control call except GET /_emulator/health and the JSON Schemas (token.ts). */
  controlToken?: string;
  /** Makes probabilistic rules and jitter repeatable. */
  randomSeed?: number;
  /**
   * Host names (besides IP literals, `localhost` and single-label names) under which the control API and the
   * inspector answer: the names you reach the emulator by, e.g. "emulator.ci.internal".
   */
  allowedHosts?: string[];
  /**
   * Refuse requests with request advice (400 ERR_EMULATOR_STRICT) instead of answering them (docs/insight.md), and a
   * seed with unknown fields instead of warning of them (docs/data-files.md).
   */
  strict?: boolean;
  /** Send each request's advice in the `x-chat-emulator-advice` response header. */
  adviceHeader?: boolean;
}

/** `--latency`: "250" is 250 ms; "100-400" is 100 ms plus up to 300 ms of jitter. */
export function parseLatency(value: number | [number, number] | string): { latencyMs: number; jitterMs: number } {
  const [min, max] =
    typeof value === "number"
      ? [value, value]
      : Array.isArray(value)
        ? value
        : /^\d+$/.test(value)
          ? [Number(value), Number(value)]
          : /^\d+-\d+$/.test(value)
            ? (value.split("-").map(Number) as [number, number])
            : [NaN, NaN];
  if (!Number.isInteger(min) || !Number.isInteger(max) || min < 0 || max < min || max > 600_000)
    throw new Error(`latency must be MS or MIN-MAX in whole milliseconds (at most 600000), not ${JSON.stringify(value)}.`);
  return { latencyMs: min, jitterMs: max - min };
}

/** The control plane's parts, one set per emulator. */
export class ControlPlane {
  readonly rules: Rules;
  readonly journal: Journal;
  /** Calls per documented operation (GET /_emulator/coverage); kept across resets. */
  readonly coverage = new Coverage();
  readonly rateLimits: RateLimits;
  readonly snapshots: Snapshots;
  readonly token: string | undefined;
  /** What enabled extensions would have asked outside services (a subscriber of the store's events). */
  readonly extensionCalls = new ExtensionCalls();
  readonly allowedHosts: ReadonlySet<string>;
  /** Request advice settings: as a response header, and as a refusal (strict). */
  readonly advice: { header: boolean; strict: boolean };
  /** performance.now() when the last request arrived (control calls included). */
  lastRequestAt = 0;

  constructor(store: Store, clock: Clock, opts: ControlOptions = {}) {
    this.rules = new Rules(opts.randomSeed === undefined ? Math.random : seededRandom(opts.randomSeed));
    this.journal = new Journal(opts.journalSize ?? DEFAULT_JOURNAL_SIZE);
    this.rateLimits = new RateLimits(
      typeof opts.rateLimit === "object" ? { enabled: true, limits: opts.rateLimit } : { enabled: opts.rateLimit === true },
    );
    this.snapshots = new Snapshots(
      store,
      () => clock.nowMs(),
      () => performance.now() - this.lastRequestAt,
    );
    this.advice = { header: opts.adviceHeader === true, strict: opts.strict === true };
    this.token = opts.controlToken || undefined;
    this.allowedHosts = new Set((opts.allowedHosts ?? []).map(hostName));
    if (opts.latency !== undefined) {
      const { latencyMs, jitterMs } = parseLatency(opts.latency);
      if (latencyMs > 0 || jitterMs > 0) this.rules.add({ effect: { latencyMs, jitterMs } });
    }
    if (opts.realtimeLatency !== undefined) {
      const { latencyMs, jitterMs } = parseLatency(opts.realtimeLatency);
      if (latencyMs > 0 || jitterMs > 0) this.rules.add({ match: { frame: "*" }, effect: { latencyMs, jitterMs } });
    }
  }
}
