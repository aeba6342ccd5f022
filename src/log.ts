import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { callerPath, DEFAULT_LABEL, requestPath } from "./http/addressing.js";
import { ANSWERED_ERROR, maskKey, type AnsweredError } from "./http/errors.js";
import { INSPECTOR_HEADER } from "./control/ui-session.js";
import { ADVISED, type Advice } from "./http/advice.js";

/**
 * Request log: one line per request (method, app, path, status, ms), as text for people or JSON for machines.
 * It wraps the node request listener, so when logging is off nothing at all is added to a request's path.
 * Successful readiness probes (`GET /_emulator/health`) are not logged: container health checks would drown the log;
 * nor are the web inspector's reads (GETs with `x-emulator-inspector`). A `token` in the query is not printed.
 */

export type LogFormat = "text" | "json";
export const LOG_FORMATS: readonly LogFormat[] = ["text", "json"];

export interface RequestLogOptions {
  format?: LogFormat;
  write: (line: string) => void;
  /** Resolves the default-app form (`/v3/...`) to an app id. */
  defaultAppId: () => string | undefined;
}

export interface RequestLogEntry {
  time: string;
  method: string;
  /** App id (REST and calls), "apimgmt" (management), or null (control API, unknown paths). */
  app: string | null;
  /** Path relative to the plane, with the query: "/v3/users?perPage=2". */
  path: string;
  status: number;
  ms: number;
  /** The client went away before the response was sent. */
  aborted?: true;
  /** An error answer's code, and the hint its devMessage carries for an address mistake. */
  code?: string;
  hint?: string;
  /** Request advice: what the platform would have ignored (docs/insight.md). */
  advice?: string[];
}

/** Query parameters holding secrets: their values are masked like keys in the journal's headers. */
const SECRET_PARAMS = /([?&](apikey|authtoken|auth_token|key|secret|token|x-emulator-token)=)([^&#]*)/gi;
/** Path segments that are keys: `/apikeys/{apiKey}`, `/auth_tokens/{authToken}`. */
const SECRET_SEGMENTS = /(\/(?:apikeys|auth_tokens)\/)([^/]+)/gi;

const maskPath = (path: string) => path.replace(SECRET_SEGMENTS, (_, before: string, key: string) => before + maskKey(key));
/** The control token (the inspector's `?token=`) is hidden whole. */
const maskQuery = (query: string) =>
  query.replace(SECRET_PARAMS, (_, before: string, name: string, value: string) => before + (/token$/i.test(name) && !/auth/i.test(name) ? "***" : maskKey(value)));

function describe(req: IncomingMessage, defaultAppId: () => string | undefined): { app: string | null; path: string } {
  const url = req.url ?? "/";
  const host = req.headers.host ?? "";
  const internal = requestPath(req);
  const q = url.indexOf("?");
  const path = maskPath(callerPath(`http://${host}${url}`)) + (q === -1 ? "" : maskQuery(url.slice(q)));
  if (internal.startsWith("/@mgmt")) return { app: "apimgmt", path };
  const m = /^\/@(?:rest|calls)\/([^/]+)\//.exec(internal);
  if (!m) return { app: null, path };
  return { app: m[1] === DEFAULT_LABEL ? (defaultAppId() ?? null) : m[1], path };
}

export function formatEntry(e: RequestLogEntry, format: LogFormat): string {
  if (format === "json") return JSON.stringify(e);
  const clock = new Date(e.time).toTimeString().slice(0, 8);
  return `${clock} ${e.method.padEnd(6)} ${e.app ?? "-"} ${e.path} ${e.status}${e.code ? ` ${e.code}` : ""}${e.aborted ? " (aborted)" : ""} ${e.ms}ms${e.hint ? `  ${e.hint}` : ""}${e.advice ? `  advice: ${e.advice.join("; ")}` : ""}`;
}

/** The listener wrapper for `requestLog`/`logFormat` options, or undefined (no wrapper at all) without a sink. */
export function requestLogger(
  options: { requestLog?: (line: string) => void; logFormat?: LogFormat },
  defaultAppId: () => string | undefined,
): ((listener: RequestListener) => RequestListener) | undefined {
  const write = options.requestLog;
  if (!write) return undefined;
  return (listener) => logRequests(listener, { format: options.logFormat, write, defaultAppId });
}

export function logRequests(listener: RequestListener, options: RequestLogOptions): RequestListener {
  const format = options.format ?? "text";
  return (req: IncomingMessage, res: ServerResponse) => {
    const start = performance.now();
    res.once("close", () => {
      if (req.method === "GET" && ((res.statusCode === 200 && req.url === "/_emulator/health") || req.headers[INSPECTOR_HEADER] !== undefined)) return;
      const entry: RequestLogEntry = {
        time: new Date().toISOString(),
        method: req.method ?? "?",
        ...describe(req, options.defaultAppId),
        status: res.statusCode,
        ms: Math.round((performance.now() - start) * 10) / 10,
      };
      const error = (res as { [ANSWERED_ERROR]?: AnsweredError })[ANSWERED_ERROR];
      if (error) {
        entry.code = error.code;
        if (error.hint) entry.hint = error.hint;
      }
      const advice = (res as { [ADVISED]?: readonly Advice[] })[ADVISED];
      if (advice) entry.advice = advice.map((a) => a.message);
      if (!res.writableFinished) entry.aborted = true;
      options.write(formatEntry(entry, format));
    });
    return listener(req, res);
  };
}
