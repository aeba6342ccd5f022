import { ApiError, ERRORS, type ErrorCode } from "../http/errors.js";
import { compileGlob, type Glob } from "./glob.js";
import { Input } from "./input.js";
import { PLANES, type ApiRequest, type Plane } from "./request.js";

/**
 * The rules engine: one ordered list of fault and latency rules for platform requests (never control calls).
 * For each request every live rule is tried in order: the first matching error rule wins, latencies add up.
 * A rule "applies" when it matches and its probability roll succeeds; only then does it count a hit and use up
 * one of its `times`. An expired rule stays listed (times 0) until deleted, but is no longer tried.
 */

export interface RuleMatch {
  method?: string;
  /** Glob over the API path, e.g. "/v3/messages*". */
  path?: string;
  appId?: string;
  plane?: Plane;
  /**
   * A WebSocket frame type the emulator sends (`message`, `receipts`, `typing_indicator`, ...; `*`: every one):
   * the rule delays those frames instead of matching HTTP requests (realtime latency, latency effects only).
   */
  frame?: string;
}

export interface RuleEffect {
  status?: number;
  code?: string;
  message?: string;
  latencyMs?: number;
  jitterMs?: number;
  /** Close the connection instead of answering. */
  reset?: boolean;
  /** Seconds for the Retry-After header (sent on 429, or whenever this is given). */
  retryAfter?: number;
}

export interface RuleInput {
  match?: RuleMatch;
  effect: RuleEffect;
  probability?: number;
  times?: number | null;
}

export interface RuleView {
  id: string;
  match: RuleMatch;
  effect: RuleEffect;
  probability: number;
  /** Applications left; null is unlimited. */
  times: number | null;
  hits: number;
  expired: boolean;
}

/** What the rules decided for one request; undefined from `decide` when no rule applied. */
export interface Decision {
  delayMs: number;
  /** The error rule that won, if any. */
  failure: Rule | undefined;
  /** Ids of every rule that applied. */
  applied: string[];
}

/** HTTP methods, and `WS` for the WebSocket's auth frames (see realtime/realtime.ts). */
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "WS"];
const MAX_DELAY_MS = 600_000;

/** The code an error rule sends when it names only a status. */
function codeForStatus(status: number): string {
  if (status === 429) return "ERR_TOO_MANY_REQUESTS";
  if (status === 404) return "ERR_API_NOT_FOUND";
  if (status === 400) return "ERR_BAD_REQUEST";
  return "ERR_OPERATION_FAILED";
}

function known(code: string): code is ErrorCode {
  return Object.hasOwn(ERRORS, code);
}

export class Rule {
  hits = 0;
  private readonly pathPattern: Glob | undefined;
  readonly fails: boolean;

  constructor(
    readonly id: string,
    readonly match: RuleMatch,
    readonly effect: RuleEffect,
    readonly probability: number,
    public remaining: number,
  ) {
    this.pathPattern = match.path === undefined ? undefined : compileGlob(match.path);
    this.fails = effect.status !== undefined || effect.reset === true;
  }

  matches(req: ApiRequest): boolean {
    const m = this.match;
    return (
      m.frame === undefined &&
      // Socket auths (`WS`) are only for rules that name them.
      (m.method === undefined ? req.method !== "WS" : m.method === req.method) &&
      (m.plane === undefined || m.plane === req.plane) &&
      (m.appId === undefined || m.appId === req.appId) &&
      (this.pathPattern === undefined || this.pathPattern(req.path))
    );
  }

  /** Whether this realtime latency rule delays a frame of `type` sent to a user of `appId`. */
  delaysFrame(appId: string, type: string): boolean {
    const m = this.match;
    return m.frame !== undefined && (m.frame === "*" || m.frame === type) && (m.appId === undefined || m.appId === appId.toLowerCase());
  }

  /** The platform-style error this rule answers with (not for reset rules). */
  error(nowSeconds: number): ApiError {
    const { status = 503, code = codeForStatus(status), message, retryAfter } = this.effect;
    const headers: Record<string, string> = {};
    if (status === 429 || retryAfter !== undefined) headers["Retry-After"] = String(retryAfter ?? 1);
    if (status === 429) headers["X-Rate-Limit-Reset"] = String(nowSeconds + (retryAfter ?? 1));
    const text = message ?? `The emulator injected ${code} (rule ${this.id}).`;
    return new ApiError(code, status, text, text, undefined, headers);
  }

  view(): RuleView {
    return {
      id: this.id,
      match: { ...this.match },
      effect: { ...this.effect },
      probability: this.probability,
      times: this.remaining === Infinity ? null : this.remaining,
      hits: this.hits,
      expired: this.remaining === 0,
    };
  }
}

/** Validates and normalizes a rule body; throws 400 ERR_BAD_REQUEST with every problem, changing nothing. */
export function parseRule(raw: unknown): Omit<RuleInput, "match"> & { match: RuleMatch; probability: number } {
  const input = new Input();
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    input.fail("rule", "The rule must be an object.");
    input.done();
  }
  const body = input.object(raw, "", ["match", "effect", "probability", "times"])!;
  const m = input.object(body.match, "match", ["method", "path", "appId", "plane", "frame"]);
  const e = input.object(body.effect, "effect", ["status", "code", "message", "latencyMs", "jitterMs", "reset", "retryAfter"], true);
  const match: RuleMatch = {};
  if (m) {
    const method = input.string(typeof m.method === "string" ? m.method.toUpperCase() : m.method, "match.method", { in: METHODS });
    const path = input.string(m.path, "match.path", { pattern: /^[/*?]/, max: 1000 });
    const appId = input.string(m.appId, "match.appId", { max: 100 });
    const plane = input.string(m.plane, "match.plane", { in: PLANES }) as Plane | undefined;
    if (method) match.method = method;
    if (path) match.path = path;
    if (appId) match.appId = appId.toLowerCase();
    if (plane) match.plane = plane;
    const frame = input.string(m.frame, "match.frame", { pattern: /^(\*|[a-z][a-z_]*)$/, max: 100 });
    if (frame) {
      match.frame = frame;
      if (method || path || plane) input.fail("match.frame", "A frame rule delays WebSocket frames: it cannot be combined with match.method, match.path or match.plane.");
    }
  }
  const effect: RuleEffect = {};
  if (e) {
    const status = input.number(e.status, "effect.status", { integer: true, min: 400, max: 599 });
    const code = input.string(e.code, "effect.code", { pattern: /^[A-Z][A-Z0-9_]*$/, max: 100 });
    const message = input.string(e.message, "effect.message", { max: 1000 });
    const latencyMs = input.number(e.latencyMs, "effect.latencyMs", { integer: true, min: 0, max: MAX_DELAY_MS });
    const jitterMs = input.number(e.jitterMs, "effect.jitterMs", { integer: true, min: 0, max: MAX_DELAY_MS });
    const reset = input.boolean(e.reset, "effect.reset");
    const retryAfter = input.number(e.retryAfter, "effect.retryAfter", { integer: true, min: 0, max: 86_400 });
    if (reset && (status !== undefined || code !== undefined))
      input.fail("effect.reset", "The effect.reset cannot be combined with effect.status or effect.code.");
    if (code !== undefined && status === undefined && !known(code))
      input.fail("effect.status", "The effect.status field is required when effect.code is not a platform code the emulator knows.");
    if (input.ok) {
      if (reset) effect.reset = true;
      else if (status !== undefined || code !== undefined) {
        effect.status = status ?? ERRORS[code as ErrorCode].status;
        effect.code = code ?? codeForStatus(effect.status);
        if (message !== undefined) effect.message = message;
        else if (known(effect.code) && !ERRORS[effect.code].message.includes("{")) effect.message = ERRORS[effect.code].message;
        if (retryAfter !== undefined) effect.retryAfter = retryAfter;
      }
      if (latencyMs) effect.latencyMs = latencyMs;
      if (jitterMs) effect.jitterMs = jitterMs;
      if (Object.keys(effect).length === 0)
        input.fail("effect", "The effect must inject an error (status, code or reset) or a delay (latencyMs, jitterMs).");
      else if (match.frame && (effect.status !== undefined || effect.reset))
        input.fail("effect", "A frame rule (match.frame) only delays frames: give effect.latencyMs and/or effect.jitterMs.");
    }
  }
  const probability = input.number(body.probability, "probability", { min: 0, max: 1 }) ?? 1;
  const times = input.number(body.times, "times", { integer: true, min: 1 });
  input.done();
  return { match, effect, probability, times };
}

export class Rules {
  /** Every rule in order, expired ones included (they stay listed). */
  private all: Rule[] = [];
  /** The rules still tried, in order. Empty means the per-request cost is one length check. */
  private live: Rule[] = [];
  private seq = 0;

  constructor(private readonly random: () => number) {}

  get idle(): boolean {
    return this.live.length === 0;
  }

  add(raw: unknown): RuleView {
    const { match, effect, probability, times } = parseRule(raw);
    const rule = new Rule(`r${++this.seq}`, match, effect, probability, times ?? Infinity);
    this.all.push(rule);
    this.live.push(rule);
    return rule.view();
  }

  list(): RuleView[] {
    return this.all.map((r) => r.view());
  }

  get(id: string): RuleView | undefined {
    return this.all.find((r) => r.id === id)?.view();
  }

  remove(id: string): boolean {
    const before = this.all.length;
    this.all = this.all.filter((r) => r.id !== id);
    this.live = this.live.filter((r) => r.id !== id);
    return this.all.length < before;
  }

  clear(): void {
    this.all = [];
    this.live = [];
  }

  /**
   * Realtime latency: how long a WebSocket frame of `type` for `appId` is held back, the applying frame rules' delays
   * added up (counting their hits and times, as requests do). 0 when none applies.
   */
  frameDelay(appId: string, type: string): number {
    let delay = 0;
    let expired = false;
    for (const rule of this.live) {
      if (!rule.delaysFrame(appId, type)) continue;
      if (rule.probability < 1 && !(this.random() < rule.probability)) continue;
      rule.hits++;
      if (--rule.remaining === 0) expired = true;
      const { latencyMs = 0, jitterMs = 0 } = rule.effect;
      delay += latencyMs + (jitterMs > 0 ? Math.floor(this.random() * (jitterMs + 1)) : 0);
    }
    if (expired) this.live = this.live.filter((r) => r.remaining > 0);
    return delay;
  }

  /** The hot path: which rules apply to `req`, counting their hits and times. */
  decide(req: ApiRequest): Decision | undefined {
    if (this.live.length === 0) return undefined;
    let decision: Decision | undefined;
    let expired = false;
    for (const rule of this.live) {
      if (rule.fails && decision?.failure) continue;
      if (!rule.matches(req)) continue;
      if (rule.probability < 1 && !(this.random() < rule.probability)) continue;
      rule.hits++;
      if (--rule.remaining === 0) expired = true;
      decision ??= { delayMs: 0, failure: undefined, applied: [] };
      decision.applied.push(rule.id);
      const { latencyMs = 0, jitterMs = 0 } = rule.effect;
      decision.delayMs += latencyMs + (jitterMs > 0 ? Math.floor(this.random() * (jitterMs + 1)) : 0);
      if (rule.fails) decision.failure = rule;
    }
    if (expired) this.live = this.live.filter((r) => r.remaining > 0);
    return decision;
  }
}
