import { Hono } from "hono";
import type { Ctx, Env } from "../http/context.js";
import { apiError, badRequest } from "../http/errors.js";
import { Query } from "../http/validate.js";
import type { Journal, JournalFilter } from "./journal.js";

/** `WS`: the realtime layer's socket connects, auths and closes (see realtime/realtime.ts). */
export const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "WS"];
const MAX_WAIT_MS = 600_000;
/** As for a rule's match.path. */
const MAX_GLOB = 1000;

/** Reads the journal filters from the query string; bad values are one 400 with every problem. */
export function filterFrom(q: Query): JournalFilter {
  const f: JournalFilter = {};
  const appId = q.str("appId");
  if (appId) f.appId = appId;
  const method = q.str("method")?.toUpperCase();
  if (method !== undefined) {
    if (METHODS.includes(method)) f.method = method;
    else q.fail("method", "The selected method is invalid.");
  }
  const path = q.str("path");
  if (path !== undefined && path.length > MAX_GLOB) q.fail("path", `The path may not be greater than ${MAX_GLOB} characters.`);
  else if (path) f.path = path;
  const status = q.str("status");
  if (status !== undefined) {
    if (/^[1-5](\d\d|xx)$/i.test(status)) f.status = status;
    else q.fail("status", "The status must be an HTTP status (404) or a class (4xx).");
  }
  const since = q.str("since");
  if (since !== undefined) {
    const ms = /^\d+$/.test(since) ? Number(since) : Date.parse(since);
    if (Number.isNaN(ms)) q.fail("since", "The since must be Unix milliseconds or an ISO 8601 date.");
    else f.since = ms;
  }
  const afterId = q.optInt("afterId");
  if (afterId !== undefined) f.afterId = afterId;
  return f;
}

/** The journal, for waiting on it or following it; 400 when it is off. */
export function liveJournal(c: Ctx): Journal {
  const { journal } = c.get("emulator").control;
  if (!journal.enabled) throw badRequest({ journal: ["The journal is off (--journal-size 0)."] });
  return journal;
}

/** `/_emulator/requests`: the request journal, its filters, and waiting for a request. */
export const journalRoutes = new Hono<Env>()
  .get("/", (c) => {
    const q = new Query(c);
    const filter = filterFrom(q);
    const limit = q.int("limit", { def: 0, min: 1 });
    q.done();
    if (limit > 0) filter.limit = limit;
    const { journal } = c.get("emulator").control;
    return c.json({ requests: journal.list(filter), capacity: journal.capacity });
  })

  .delete("/", (c) => {
    const { journal } = c.get("emulator").control;
    const cleared = journal.size;
    journal.clear();
    return c.json({ cleared });
  })

  .get("/wait", async (c) => {
    const q = new Query(c);
    const filter = filterFrom(q);
    const timeoutMs = q.int("timeoutMs", { def: 5000, min: 0, max: MAX_WAIT_MS });
    q.done();
    const entry = await liveJournal(c).wait(filter, timeoutMs, c.req.raw.signal);
    if (!entry) throw apiError("ERR_WAIT_TIMEOUT", { timeoutMs });
    return c.json({ request: entry });
  });
