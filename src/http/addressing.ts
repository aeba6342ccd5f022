import type { IncomingMessage } from "node:http";

/**
 * Addressing: which plane and app a request is for, from the Host label or the path label (design §2). Hono's
 * `getPath` hook turns every form into one internal path, so each route is registered once:
 *   REST   /@rest/{appId}/{region}/v3/...      calls  /@calls/{appId}/{region}/v3/...
 *   client /@client/{appId}/{region}/v3/...    (what the SDK calls: `{appId}.apiclient-{region}`)
 *   mgmt   /@mgmt/...                           control /_emulator/... (unchanged)
 * The default app is `/@rest/@/@/v3/...`. Version `v3.0` (used by the client SDK) is served as `v3`.
 * A Host shaped like a platform label of a plane the emulator does not serve (`x.websocket-us.example`) is
 * `/@unknown`, which no route serves: it never falls through to the default app.
 */

const HOST_LABEL = /^([a-z0-9]+)\.([a-z]+)-(us|eu|in)\./i;
const PATH_LABEL = /^\/([a-z0-9]+)\.(api|apiclient|call)-(us|eu|in)(?=\/|$)/i;

export const DEFAULT_LABEL = "@";
const DEFAULT_REST = `/@rest/${DEFAULT_LABEL}/${DEFAULT_LABEL}`;

const PLANES: Record<string, string> = { api: "/@rest", apiclient: "/@client", call: "/@calls" };

function plane(kind: string): string {
  return PLANES[kind.toLowerCase()] ?? "/@unknown";
}

function versioned(prefix: string, rest: string, asWritten: boolean): string {
  if (!asWritten && (rest.startsWith("/v3.0/") || rest === "/v3.0")) rest = "/v3" + rest.slice(5);
  return prefix + rest;
}

/** The internal path routes are matched on; `asWritten` keeps the version as the caller wrote it (`v3.0`). */
export function internalPath(url: string, asWritten = false): string {
  const hostStart = url.indexOf("://") + 3;
  const pathStart = url.indexOf("/", hostStart);
  if (pathStart === -1) return "/";
  return internalPathOf(url.slice(hostStart, pathStart), url.slice(pathStart), asWritten);
}

/** `internalPath` of a Host header and a request target (`/v3/users?x=1`), as Node gives them. */
export function internalPathOf(host: string, target: string, asWritten = false): string {
  const query = target.indexOf("?");
  let path = query === -1 ? target : target.slice(0, query);
  if (path.length > 1 && path.endsWith("/")) path = path.slice(0, -1);

  if (path.startsWith("/_emulator")) return path;
  // Labels have a dash and a dot ("app.api-us."); most requests name neither (127.0.0.1:4780/v3/...): no regex then.
  const h = host.includes("-") ? HOST_LABEL.exec(host) : null;
  if (h) return versioned(`${plane(h[2])}/${h[1].toLowerCase()}/${h[3].toLowerCase()}`, path, asWritten);
  if (/^apimgmt\./i.test(host)) return "/@mgmt" + (path === "/" ? "" : path);
  const p = path.includes("-") ? PATH_LABEL.exec(path) : null;
  if (p) return versioned(`${plane(p[2])}/${p[1].toLowerCase()}/${p[3].toLowerCase()}`, path.slice(p[0].length), asWritten);
  if (path === "/apimgmt" || path.startsWith("/apimgmt/")) return "/@mgmt" + path.slice(8);
  if (path.startsWith("/v3")) return versioned(DEFAULT_REST, path, asWritten);
  return path;
}

const ROUTED = Symbol("internal path");

/**
 * `internalPathOf` of a Node request, worked out once: CORS, the lane and the request log each need it for every
 * request, and the request's target and Host do not change while it is served.
 */
export function requestPath(req: IncomingMessage): string {
  const r = req as IncomingMessage & { [ROUTED]?: string };
  return (r[ROUTED] ??= internalPathOf(req.headers.host ?? "", req.url ?? "/"));
}

const REGIONS = "us, eu and in";
const LABELS = "{appId}.api-{region} (REST), {appId}.apiclient-{region} (client SDK), {appId}.call-{region} (calls)";

/**
 * A hint for an address no route serves, when it looks like a common mistake: a label still ending in
 * `.cometchat.io`, API version 2, a plane or region the platform does not have. Undefined otherwise.
 */
export function addressHint(host: string, target: string): string | undefined {
  const q = target.indexOf("?");
  const path = (q === -1 ? target : target.slice(0, q)).toLowerCase();
  if (/^\/[^/]*\.cometchat\.io(\/|$)/.test(path))
    return "Hint: drop .cometchat.io from the path label, e.g. /{appId}.api-us/v3/users (or /apimgmt/apps for the management API).";
  const label = /^\/([a-z0-9]+)\.([a-z]+)-([a-z0-9]+)(?=\/|$)/.exec(path) ?? /^([a-z0-9]+)\.([a-z]+)-([a-z]{2})\./.exec(host.toLowerCase());
  if (label && !PLANES[label[2]] && label[2] !== "apimgmt") return `Hint: ${label[2]} is no plane of the platform; labels are ${LABELS}.`;
  if (label && !/^(us|eu|in)$/.test(label[3])) return `Hint: ${label[3]} is no region; the regions are ${REGIONS}.`;
  if (/(^|\/)v[12](\.\d+)?(\/|$)/.test(path)) return "Hint: the emulator serves API v3 (the client SDK's v3.0): use /v3/... .";
  if (!label && !path.startsWith("/v3") && !path.startsWith("/apimgmt") && !path.startsWith("/_emulator") && path !== "/")
    return "Hint: REST paths start with /v3 (the default app) or a label such as /{appId}.api-us/v3; see GET /_emulator/apps.";
  return undefined;
}

/** An internal path of the campaigns service (`/@rest/{appId}/{region}/v3/campaigns/...`, docs/campaigns.md). */
export const isCampaignsPath = (path: string): boolean => /^\/@rest\/[^/]+\/[^/]+\/v3\/campaigns(\/|$)/.test(path);

/** The API path as a user wrote it relative to the plane ("/v3/users/superhero1"), for journal and rules. */
export function apiPath(internal: string): string {
  if (internal.startsWith("/@mgmt")) return internal.slice(6) || "/";
  if (internal.startsWith("/@rest/") || internal.startsWith("/@calls/") || internal.startsWith("/@client/")) {
    const third = internal.indexOf("/", internal.indexOf("/", internal.indexOf("/", 2) + 1) + 1);
    return third === -1 ? "/" : internal.slice(third);
  }
  return internal;
}

/** The API path of a URL as the caller wrote it (`/v3.0/users` stays so): what rules match and the journal shows. */
export function callerPath(url: string): string {
  return apiPath(internalPath(url, true));
}
