import { addressedApp, normalizeUid } from "../../../http/auth.js";
import { header, type Ctx } from "../../../http/context.js";
import { ApiError, apiError, maskKey, type ErrorCode } from "../../../http/errors.js";
import { settle, type Stage } from "../../../http/pipeline.js";
import type { Campaigns } from "../../../store/campaigns.js";
import type { UserRecord } from "../../../store/types.js";

/**
 * The campaigns service's address, credentials and error envelope (docs rest-api/campaigns-apis/
 * setup-and-authentication and overview): `/v3/campaigns/...` under the app's REST host, the `apikey` header of a
 * fullAccess key, and every error as `{error: {code, message, devMessage, details, source: "campaigns-service"}}`
 * with the service's own codes (validation details as one sentence per failed field).
 */

/**
 * The service's answer for an error raised anywhere below it (body checks, query parsing, handlers); its `source`
 * is set where every error is rendered (http/pipeline.ts `renderError`), rules' and rate limits' too.
 */
export function asServiceError(c: Ctx, e: ApiError): ApiError {
  let out = e;
  if (e.code === "ERR_BAD_REQUEST" && e.details && !e.serviceDetails) {
    const problems = Object.values(e.details).flat();
    out = apiError("ERR_VALIDATION", { problems: problems.join(" ") });
    out.serviceDetails = problems;
  } else if (e.code === "ERR_API_NOT_FOUND") out = unknownPath(c);
  return out;
}

/** Errors of the stages after it (and of the route) in the service's envelope. */
export const serviceErrors: Stage = (c, next) =>
  settle(
    c,
    next,
    (_c, res) => res,
    (_c, e) => {
      throw e instanceof ApiError ? asServiceError(c, e) : e;
    },
  );

/**
 * A write that succeeded touched the app's campaigns: the records of the small parts (templates, channels,
 * campaigns, categories, uploads) change in place, and the change log takes them when the revision moved. Mounted
 * on the operations that change them; the feed's and pushes' note the records they change instead
 * (Campaigns.changed).
 */
export const touchesCampaigns: Stage = (c, next) =>
  settle(
    c,
    next,
    (_c, res) => {
      if (res.status < 400 && c.req.method !== "GET") c.get("app")?.campaigns.touch();
      return res;
    },
    (_c, e) => {
      throw e;
    },
  );

/**
 * The gateway's check: the addressed app, then an `apikey` of fullAccess scope. A missing or unknown key is 401
 * ERR_UNAUTHORIZED, an authOnly key 403 ERR_FORBIDDEN (the service is server-side only).
 */
export const campaignsAuth: Stage = (c, next) => {
  const app = addressedApp(c);
  const key = header(c, "apikey");
  if (!key) throw apiError("ERR_UNAUTHORIZED", { reason: "apikey header is required" });
  const record = app.apiKeys.get(key);
  if (!record) throw withDetails(apiError("ERR_UNAUTHORIZED", { reason: "apikey is invalid" }), { apikey: maskKey(key) });
  if (record.scope !== "fullAccess")
    throw withDetails(apiError("ERR_FORBIDDEN", { reason: "The Campaigns API needs a REST API key with fullAccess scope." }), { apikey: maskKey(key), scope: record.scope });
  c.set("app", app);
  c.set("apiKey", record);
  return next(c);
};

/** The upload address's stage: the addressed app, no key (the address's signature stands for it). */
export const uploadApp: Stage = (c, next) => {
  c.set("app", addressedApp(c));
  return next(c);
};

/** The unknown path's answer under `/v3/campaigns` (the service's router, not the chat API's). */
export function unknownPath(c: Ctx): ApiError {
  const path = c.req.path.slice(c.req.path.indexOf("/v3/campaigns"));
  return apiError("ERR_NOT_FOUND", { method: c.req.method, path });
}

export function withDetails(e: ApiError, details: readonly string[] | Record<string, string>): ApiError {
  e.serviceDetails = details;
  return e;
}

/** A domain not-found error with its id in `details`. */
export function notFound(code: ErrorCode & `ERR_${string}_NOT_FOUND`, id: string, key: string): ApiError {
  return withDetails(apiError(code, { id }), { [key]: id });
}

/** 400 ERR_BAD_REQUEST with the service's own sentence (a state that refuses the operation). */
export function refused(message: string, details?: Record<string, string>): ApiError {
  const e = new ApiError("ERR_BAD_REQUEST", 400, message, message);
  if (details) e.serviceDetails = details;
  return e;
}

/** 400 ERR_VALIDATION with these sentences. */
export function invalid(...problems: string[]): ApiError {
  return withDetails(apiError("ERR_VALIDATION", { problems: problems.join(" ") }), problems);
}

export function conflict(reason: string, devReason = reason, details?: Record<string, string>): ApiError {
  const e = apiError("ERR_CONFLICT", { reason, devReason });
  if (details) e.serviceDetails = details;
  return e;
}

export const campaignsOf = (c: Ctx): Campaigns => c.get("app").campaigns;
export const nowOf = (c: Ctx): number => c.get("emulator").clock.now();

/** The `onbehalfof` user, when the request names one (an unknown or deactivated uid is 404 ERR_USER_NOT_FOUND). */
export function behalf(c: Ctx): UserRecord | undefined {
  const raw = header(c, "onbehalfof");
  if (raw === undefined || raw === "") return undefined;
  const uid = normalizeUid(raw);
  const user = c.get("app").activeUser(uid);
  if (!user) throw notFound("ERR_USER_NOT_FOUND", uid, "onbehalfof");
  return user;
}

/** Admin-only operations refuse a request made on behalf of a user. */
export function adminOnly(c: Ctx, status: 400 | 403): void {
  if (header(c, "onbehalfof") === undefined) return;
  const reason = "This operation is admin-only: send it without the onbehalfof header.";
  throw status === 403 ? apiError("ERR_FORBIDDEN", { reason }) : refused(reason);
}

/**
 * Cursor pagination as the service documents it: records sorted by `sort` (then id), `limit` at a time;
 * `meta.next` names the last record's sort value and id with `affix: "append"`, sent back as query parameters for
 * the next page; `affix=prepend` with an `id` asks for the records before it instead (same order). `records` must
 * be in creation order (a map's values are).
 */
export interface PageQuery {
  id?: string;
  affix?: "append" | "prepend";
  limit: number;
  order?: "asc" | "desc";
}

export function cursorPage<T extends { id: string }>(
  records: T[],
  sortKey: string,
  value: (r: T) => string | number,
  q: PageQuery,
  defaultOrder: "asc" | "desc",
): { data: T[]; meta: Record<string, unknown> } {
  const dir = (q.order ?? defaultOrder) === "asc" ? 1 : -1;
  // `records` come in the order they were made: equal values keep it (newest first when descending).
  if (dir === -1) records.reverse();
  records.sort((a, b) => {
    const va = value(a);
    const vb = value(b);
    return dir * (typeof va === "number" && typeof vb === "number" ? va - vb : String(va).localeCompare(String(vb)));
  });
  let from = 0;
  let to = records.length;
  if (q.id !== undefined) {
    const at = records.findIndex((r) => r.id === q.id);
    if (at < 0) throw invalid(`The cursor id ${q.id} names no record of this list.`);
    if (q.affix === "prepend") [from, to] = [Math.max(0, at - q.limit), at];
    else from = at + 1;
  }
  const data = records.slice(from, Math.min(to, from + q.limit));
  const meta: Record<string, unknown> = { current: { limit: q.limit, count: data.length } };
  const last = data.at(-1);
  if (last && (q.affix === "prepend" ? from > 0 : from + data.length < records.length))
    meta.next = q.affix === "prepend" ? { affix: "prepend", [sortKey]: value(data[0]), id: data[0].id } : { affix: "append", [sortKey]: value(last), id: last.id };
  return { data, meta };
}

/** The text parameters every cursor-paginated list takes. */
export const PAGE_QUERY = {
  id: { kind: "string", max: 100 },
  affix: { kind: "oneOf", allowed: ["append", "prepend"] },
  limit: { kind: "integer", def: 20, min: 1, max: 100 },
  order: { kind: "oneOf", allowed: ["asc", "desc"] },
} as const;
