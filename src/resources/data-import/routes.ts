import { Hono, type MiddlewareHandler } from "hono";
import type { Ctx, Env } from "../../http/context.js";
import { ApiError, apiError, badRequest, ERRORS, IMPORT_RATE_LIMIT_MESSAGE, keyedMap, type ErrorCode } from "../../http/errors.js";
import { bulkFailure } from "../../http/reply.js";
import type { Body } from "../../http/validate.js";
import { operation, routes } from "../../http/operation.js";
import type { AppState } from "../../store/app-state.js";
import { groupView } from "../../views/groups.js";
import { messageView } from "../../views/messages.js";
import { userView } from "../../views/users.js";
import { importGroup, importMember, importMessage, importUser } from "./entities.js";

/** The documented limits: 50 entities per request, 60 requests per minute per endpoint (with --rate-limit). */
export const IMPORT_BATCH = 50;
export const IMPORT_PER_MINUTE = 60;
/** 50 items of up to the platform's 10 KB each, and their envelope. */
const IMPORT_BODY_LIMIT = 1024 * 1024;

interface Kind {
  /** The platform's operation id (reference/data-import.md §1). */
  id: string;
  wrapper: "users" | "groups" | "members" | "messages";
  /** The field of an item that repeats its key. */
  idField: string;
  format: ErrorCode;
  one(app: AppState, key: string, item: Body, now: number): unknown;
}

/** With rate limits on, each data-import endpoint takes 60 requests per app and minute (its own window). */
function takeImportSlot(c: Ctx, wrapper: string): void {
  const { control, clock } = c.get("emulator");
  if (!control.rateLimits.enabled) return;
  const v = control.rateLimits.takeNamed(c.get("app").meta.appId, `data_import/${wrapper}`, IMPORT_PER_MINUTE, clock.nowMs());
  if (v.allowed) return;
  const message = IMPORT_RATE_LIMIT_MESSAGE.replace("{limit}", String(v.limit)).replace("{retryAfter}", String(v.retryAfter));
  throw new ApiError("ERR_TOO_MANY_REQUESTS", ERRORS.ERR_TOO_MANY_REQUESTS.status, message, message, undefined, {
    "Retry-After": String(v.retryAfter),
    "X-Rate-Limit-Reset": String(v.resetAt),
  });
}

/** The items of the body: `{<wrapper>: {<key>: item}}` (or an array of items, keyed by their id field). */
function itemsOf(body: Body, kind: Kind): [string, Body][] {
  const raw = body[kind.wrapper];
  const refuse = (problem: string) => apiError(kind.format, { problem });
  if (raw === undefined || raw === null) throw refuse(`The ${kind.wrapper} field is required.`);
  if (typeof raw !== "object") throw refuse(`The ${kind.wrapper} field is not an object.`);
  const entries: [string, unknown][] = Array.isArray(raw)
    ? raw.map((item, i) => [typeof item?.[kind.idField] === "string" ? item[kind.idField] : String(i), item])
    : Object.entries(raw);
  if (entries.length === 0) throw refuse(`The ${kind.wrapper} field is empty.`);
  for (const [key, item] of entries)
    if (typeof item !== "object" || item === null || Array.isArray(item)) throw refuse(`The entry ${key} is not an object.`);
  if (entries.length > IMPORT_BATCH)
    throw badRequest({ [kind.wrapper]: [`The ${kind.wrapper} may not have more than ${IMPORT_BATCH} items.`] });
  return entries as [string, Body][];
}

/** The item's id field must repeat its key. */
function sameKey(kind: Kind, key: string, item: Body): void {
  const id = item[kind.idField];
  if (id !== undefined && id !== key) throw badRequest({ [kind.idField]: [`The ${kind.idField} must be the same as its key ${key}.`] });
}

/**
 * An import: the wrapper's items are checked one by one (itemsOf, the platform's own format errors), so the body
 * declares the wrapper untyped.
 */
function importOperation(kind: Kind) {
  return operation({
    id: kind.id,
    method: "POST",
    path: `/data_import/${kind.wrapper}`,
    plane: "data-import",
    body: { [kind.wrapper]: { description: `The ${kind.wrapper} to import, by key (or a list), at most ${IMPORT_BATCH}.` } },
    bodyLimit: IMPORT_BODY_LIMIT,
    handler: (c, { body }) => {
      const entries = itemsOf(body, kind);
      const app = c.get("app");
      const now = c.get("emulator").clock.now();
      const data: Record<string, unknown> = keyedMap();
      for (const [key, item] of entries) {
        try {
          sameKey(kind, key, item);
          data[key] = { success: true, data: kind.one(app, key, item, now) };
        } catch (e) {
          data[key] = bulkFailure(e);
        }
      }
      return c.json({ data });
    },
  });
}

/** The rate limit comes before the body is read, as an authentication would (a refused request reads nothing). */
const importSlot =
  (kind: Kind): MiddlewareHandler<Env> =>
  (c, next) => {
    takeImportSlot(c, kind.wrapper);
    return next();
  };

const KINDS: Kind[] = [
  {
    id: "import-users",
    wrapper: "users",
    idField: "uid",
    format: "ERR_IMPORT_INVALID_USER_FORMAT",
    one: (app, key, item, now) => {
      const user = importUser(app, { ...item, uid: item.uid ?? key }, now);
      return userView(user, { tags: true });
    },
  },
  {
    id: "import-groups",
    wrapper: "groups",
    idField: "guid",
    format: "ERR_IMPORT_INVALID_GROUP_FORMAT",
    one: (app, key, item, now) => groupView(app, importGroup(app, { ...item, guid: item.guid ?? key }, now), { tags: true }),
  },
  {
    id: "import-members",
    wrapper: "members",
    idField: "memberId",
    format: "ERR_IMPORT_INVALID_MEMBER_FORMAT",
    one: (app, key, item, now) => importMember(app, key, item, now),
  },
  {
    id: "import-messages",
    wrapper: "messages",
    idField: "muid",
    format: "ERR_IMPORT_INVALID_MESSAGE_FORMAT",
    one: (app, key, item, now) => {
      const m = importMessage(app, key, item, now);
      const view = messageView(app, m);
      return { ...view, sentAt: m.sentAt, ...(m.deliveredAt !== undefined ? { deliveredAt: m.deliveredAt } : {}), ...(m.readAt !== undefined ? { readAt: m.readAt } : {}) };
    },
  },
];

/** `POST /data_import/{users,groups,members,messages}`: up to 50 items, a result per item (one bad item fails alone). */
export const dataImport = new Hono<Env>();
for (const kind of KINDS) dataImport.post(`/data_import/${kind.wrapper}`, importSlot(kind));
/** The four declared operations (coverage counts them: control/coverage.ts). */
export const DATA_IMPORT_OPERATIONS = KINDS.map(importOperation);
dataImport.route("/", routes(...DATA_IMPORT_OPERATIONS));
