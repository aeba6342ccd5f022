import type { Ctx } from "./context.js";
import { apiError, keyedMap, type ApiError } from "./errors.js";
import { editDistance, nearest, normalized } from "../util/edit-distance.js";

/**
 * Request advice: what a request to the REST or management plane sent that the platform silently ignores — a body
 * field no validation of the operation names, a query parameter the operation never reads, a header that looks
 * like one of the platform's but is not read (`on-behalf-of`) — each with the nearest name it knows. The answer
 * stays the platform's; the advice goes into the journal entry, the log line and, when asked, a response header
 * (`x-chat-emulator-advice`), or refuses the request in strict mode.
 *
 * What an operation knows is what it declares (http/operation.ts): its body fields and query parameters. Advice is
 * shown for requests the operation answered with success; strict mode refuses before the handler runs.
 */

export const ADVICE_CODES = ["unknown-body-field", "unknown-query-parameter", "unknown-header", "ignored-value"] as const;
export type AdviceCode = (typeof ADVICE_CODES)[number];

export interface Advice {
  code: AdviceCode;
  /** Where: `body`, `query` or `header`. */
  in: "body" | "query" | "header";
  /** The name as sent. */
  name: string;
  /** The nearest name the operation knows, when one is close. */
  suggestion?: string;
  message: string;
}

export const NO_ADVICE: readonly Advice[] = [];

/** Where a Node response carries its request's advice, for the request log (as `ANSWERED_ERROR` carries errors). */
export const ADVISED = Symbol("chat-emulator advice");

/** The header that carries a request's advice when `adviceHeader` is on. */
export const ADVICE_HEADER = "x-chat-emulator-advice";

// Kept on the context (symbols, not c.set: a map write per request).
const PARAMS = Symbol("queryParams");
const NOTED = Symbol("adviceNoted");
const DECLARED = Symbol("adviceDeclared");
const DECLARED_BODY = Symbol("adviceDeclaredBody");
/** What a declared operation knows (http/operation.ts): the names its declaration gives. */
export interface Declared {
  bodyNames: ReadonlySet<string>;
  queryNames: ReadonlySet<string>;
}
type Tracked = Ctx & {
  [PARAMS]?: Record<string, string[]>;
  [NOTED]?: Advice[];
  [DECLARED]?: Declared;
  [DECLARED_BODY]?: object;
};

/**
 * The request's query parameters, parsed once by Hono's own parser (a list reads twenty-odd names, and
 * `c.req.query(name)` scans the URL for each: 8% of a page of users); the advice reads the same parse.
 */
export const queryParams = (c: Ctx) => ((c as Tracked)[PARAMS] ??= c.req.queries());

/**
 * A declared operation's request (http/operation.ts): its advice is worked out from the declaration, not from what
 * the handler happened to read. `ignored`: the documented ignored values this request has.
 */
export function declared(c: Ctx, op: Declared, body: object | undefined, ignored: readonly Advice[]): void {
  const tracked = c as Tracked;
  tracked[DECLARED] = op;
  tracked[DECLARED_BODY] = body;
  if (ignored.length > 0) (tracked[NOTED] ??= []).push(...ignored);
}

/** The platform's own request headers, by their lowercase name, and how they are written in its docs. */
const PLATFORM_HEADERS = ["apikey", "appId", "onBehalfOf", "authtoken", "callToken", "resource"];
const HEADER_NAMES = new Map(PLATFORM_HEADERS.map((h) => [normalized(h), h]));
/** Per distinct header name: the platform header it was probably meant as, or null (memo: a few names recur). */
const headerVerdicts = new Map<string, string | null>();
const MAX_VERDICTS = 1000;

function meantHeader(name: string): string | null {
  let verdict = headerVerdicts.get(name);
  if (verdict !== undefined) return verdict;
  verdict = null;
  const lower = name.toLowerCase();
  if (!HEADER_NAMES.has(lower)) {
    const n = normalized(name);
    const same = HEADER_NAMES.get(n);
    if (same) verdict = same;
    else if (n.length >= 5) for (const [key, shown] of HEADER_NAMES) if (editDistance(n, key, 1) <= 1) verdict = shown;
  }
  if (headerVerdicts.size < MAX_VERDICTS) headerVerdicts.set(name, verdict);
  return verdict;
}

const ignored = "ignored by the platform";
const meaning = (suggestion: string | undefined) => (suggestion ? `; did you mean \`${suggestion}\`?` : "");

/**
 * Whether a request came on a plane request advice covers: the REST plane (the campaigns service and data import
 * included) and the management plane, where backends call; not the SDKs' client and calls planes.
 */
export function isAdvised(c: Ctx): boolean {
  const path = c.req.path;
  return path.startsWith("/@rest/") || path.startsWith("/@mgmt");
}

/** The request's headers as Node read them (name, value, ...), or the Fetch headers in process. */
export const rawHeaders = (c: Ctx): readonly string[] | Headers =>
  (c.env as { incoming?: { rawHeaders: string[] } } | undefined)?.incoming?.rawHeaders ?? c.req.raw.headers;

/** Strict mode's advice, kept for the journal entry of the refused request. */
const REFUSED = Symbol("adviceRefused");
export const refusedAdvice = (c: Ctx): readonly Advice[] | undefined => (c as Ctx & { [REFUSED]?: Advice[] })[REFUSED];

/**
 * Strict mode, before a declared operation's handler runs: its advice refuses the request (400
 * ERR_EMULATOR_STRICT), so that a refused request changes nothing.
 */
export function refuseIfAdvised(c: Ctx): void {
  const advice = adviceFor(c, rawHeaders(c));
  if (advice.length === 0) return;
  (c as Ctx & { [REFUSED]?: Advice[] })[REFUSED] = advice;
  throw strictRefusal(advice);
}

/** The advice for a handled request of a declared operation (`headers`: Node's raw list, name then value). */
export function adviceFor(c: Ctx, headers: readonly string[] | Headers): Advice[] {
  const tracked = c as Tracked;
  const out: Advice[] = tracked[NOTED] ?? [];
  const decl = tracked[DECLARED];
  if (decl) declaredAdvice(c, decl, tracked[DECLARED_BODY], out);
  if (Array.isArray(headers)) for (let i = 0; i < headers.length; i += 2) headerAdvice(headers[i], out);
  else for (const name of (headers as Headers).keys()) headerAdvice(name, out);
  return out;
}

/** Body fields and query parameters a declared operation does not name. */
function declaredAdvice(c: Ctx, op: Declared, body: object | undefined, out: Advice[]): void {
  if (body)
    for (const name of Object.keys(body))
      if (!op.bodyNames.has(name)) {
        const suggestion = nearest(name, op.bodyNames);
        out.push({ code: "unknown-body-field", in: "body", name, ...(suggestion && { suggestion }), message: `unknown body field \`${name}\` (${ignored}${meaning(suggestion)})` });
      }
  if (c.req.url.includes("?"))
    for (const name of Object.keys(queryParams(c)))
      if (!op.queryNames.has(name)) {
        const suggestion = nearest(name, op.queryNames);
        out.push({ code: "unknown-query-parameter", in: "query", name, ...(suggestion && { suggestion }), message: `unknown query parameter \`${name}\` (${ignored}${meaning(suggestion)})` });
      }
}

function headerAdvice(name: string, out: Advice[]): void {
  const suggestion = meantHeader(name);
  if (suggestion) out.push({ code: "unknown-header", in: "header", name, suggestion, message: `header \`${name}\` is not read by the platform; did you mean \`${suggestion}\`?` });
}

/** The advice as one header value: `code name` pairs (names percent-encoded), comma-separated. */
export function adviceHeaderValue(advice: readonly Advice[]): string {
  return advice.map((a) => `${a.code} ${encodeURIComponent(a.name)}`).join(", ");
}

/** Strict mode's refusal: 400 in the platform's envelope with a code of the emulator's own, a detail per item. */
export function strictRefusal(advice: readonly Advice[]): ApiError {
  const details = keyedMap<string[]>();
  for (const a of advice) (details[`${a.in}.${a.name}`] ??= []).push(a.message);
  const refusal = apiError("ERR_EMULATOR_STRICT", { advice: advice.map((a) => a.message).join("; ") }, details);
  refusal.source = "emulator"; // the emulator's own refusal, never the platform's
  return refusal;
}
