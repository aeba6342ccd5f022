import { createHash } from "node:crypto";
import fc from "fast-check";
import { request as httpRequest } from "node:http";
import { createEmulator } from "../src/index.js";
import { listen } from "../src/server.js";
import { ChangeTracker } from "../src/store/change-tracker.js";
import { APP_ID, MGMT, REST_KEY } from "./helpers.js";

/**
 * A property-based fuzzer over every route of every plane, enumerated from the Hono app itself (so routes added
 * later are covered without touching this file). Each request is built from a route with odd path parameters,
 * queries, headers, content types and bodies, and must hold these properties:
 *   - no 5xx, and every status >= 400 comes in the platform's error envelope;
 *   - a refused request (status >= 400) changes nothing in the stored state;
 *   - the emulator keeps answering its health probe, and Object.prototype is untouched.
 */

export interface FuzzStats {
  requests: number;
  serverErrors: number;
  nonEnvelope: number;
  refusedButChanged: number;
  routes: number;
  byStatus: Record<number, number>;
  /** Error codes answered, for a look at what the run reached. */
  byCode: Record<string, number>;
  failures: string[];
}

interface Route {
  method: string;
  path: string;
}

/** Routes that wait or stream by design. */
const SKIPPED = [/\/stream$/, /\/requests\/wait$/];

/**
 * Routes whose job is to inject faults: fuzzed like the others, then their rules and limits are cleared before the
 * next request (a 500 that a rule injects on purpose is not a bug).
 */
const FAULTS = /^\/_emulator\/(rules|rate-limits)/;

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];

/** Real values for path parameters, so that requests reach deep into handlers, next to hostile ones. */
const KNOWN: Record<string, string[]> = {
  uid: ["superhero1", "superhero2", "SuperHero3"],
  guid: ["supergroup", "nosuchgroup"],
  appId: [APP_ID],
  region: ["us"],
  apiKey: [REST_KEY],
  role: ["default", "admin"],
  scope: ["participant", "admin", "moderator"],
  reaction: ["👍", "heart"],
  conversationId: ["superhero1_user_superhero2", "group_supergroup"],
  id: ["1", "2", "100", "0"],
  name: ["snap"],
};

const hostile = fc.oneof(
  fc.constantFrom(
    "../",
    "../../_emulator/reset",
    "..%2F..%2F",
    "%00",
    "\u0000",
    "\uD800",
    "\uDFFF",
    "\u202Eevil",
    "a".repeat(1000),
    "__proto__",
    "constructor",
    "toString",
    " ",
    "",
    "%",
    "%E0%A4%A",
    "-1",
    "1e309",
    "NaN",
    "null",
    "[]",
    "{}",
  ),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 20 }),
  fc.integer().map(String),
);

/** encodeURIComponent, but lone surrogates (which it refuses) go out as the invalid UTF-8 they would be. */
function encode(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return [...s].map((ch) => (/[\uD800-\uDFFF]/.test(ch) ? "%ED%A0%80" : encodeURIComponent(ch))).join("");
  }
}

const FIELDS = [
  "uid", "name", "guid", "type", "receiver", "receiverType", "category", "data", "text", "metadata", "customData",
  "tags", "role", "scope", "participants", "admins", "moderators", "members", "blockedUids", "accepted", "uidsToActivate",
  "uidsToDeactivate", "password", "owner", "status", "messageId", "withAuthToken", "appId", "to", "mode", "now",
  "seconds", "enabled", "core", "standard", "url", "triggers", "settings", "permissions", "description", "icon", "avatar",
  "link", "statusMessage", "muid", "parentId", "tagIds", "quotedMessageId", "region", "apps", "format", "force", "scope",
];

const deepJson = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

const jsonValue = fc.oneof(
  { depthSize: "small" },
  fc.jsonValue({ maxDepth: 3 }),
  hostile,
  fc.constantFrom(null, true, 0, -1, 1e308, 2 ** 53 + 1, [], {}, "x".repeat(20_000)),
  fc.array(hostile, { maxLength: 5 }),
  fc.dictionary(hostile, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
);

/** A body as text: mostly objects of known field names with odd values; sometimes malformed or deep. */
const bodyText = fc.oneof(
  { weight: 6, arbitrary: fc.dictionary(fc.oneof(fc.constantFrom(...FIELDS), hostile), jsonValue, { maxKeys: 6 }).map((o) => JSON.stringify(o)) },
  { weight: 1, arbitrary: fc.constantFrom('{"uid":', "{", "[1,2]", '"text"', "null", "{}{}", '{"a":1,}', deepJson(70), `{"data":${deepJson(5000)}}`, "\u0000") },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 200 }) },
);

const contentType = fc.oneof(
  { weight: 8, arbitrary: fc.constant("application/json") },
  { weight: 1, arbitrary: fc.constantFrom("text/plain", "text/plain;a=json", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/json; charset=utf-16", "application/vnd.api+json", "", "\u0000") },
);

const QUERY_KEYS = ["perPage", "page", "per_page", "limit", "affix", "id", "searchKey", "status", "uid", "guid", "type", "types", "category", "categories", "onlyDeactivated", "withTags", "tags", "hideMessagesFromBlockedUsers", "sentAt", "updatedAt", "timeMs", "path", "appId", "method", "since", "afterId", "cursor", "conversationType", "unread", "token"];

const query = fc.array(fc.tuple(fc.oneof(fc.constantFrom(...QUERY_KEYS), hostile), hostile), { maxLength: 4 });

interface Case {
  route: Route;
  method: string;
  params: string[];
  query: [string, string][];
  body: string | undefined;
  contentType: string;
  onBehalfOf: string | undefined;
  keyed: boolean;
}

function caseOf(routes: Route[]): fc.Arbitrary<Case> {
  return fc
    .record({
      route: fc.constantFrom(...routes),
      otherMethod: fc.oneof({ weight: 6, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom(...METHODS) }),
      params: fc.array(fc.tuple(fc.nat(9).map((n) => n < 7), hostile, fc.nat(10)), { minLength: 6, maxLength: 6 }),
      query: fc.option(query, { freq: 2 }),
      body: fc.option(bodyText, { freq: 5 }),
      contentType,
      onBehalfOf: fc.option(fc.oneof(fc.constantFrom("superhero1", "superhero2", "superhero5"), hostile), { freq: 3 }),
      keyed: fc.nat(9).map((n) => n < 9),
    })
    .map(({ route, otherMethod, params, query, body, contentType, onBehalfOf, keyed }) => {
      const names = route.path.match(/:\w+/g) ?? [];
      const values = names.map((n, i) => {
        const [real, bad, pick] = params[i % params.length];
        const known = KNOWN[n.slice(1)];
        return real && known ? known[pick % known.length] : bad;
      });
      return { route, method: otherMethod ?? route.method, params: values, query: query ?? [], body: body ?? undefined, contentType, onBehalfOf: onBehalfOf ?? undefined, keyed };
    });
}

/** The URL a caller would use for an internal route path, with `values` in place of its parameters. */
function urlOf(c: Case): string {
  let i = 0;
  const fill = (p: string) => p.replace(/:\w+(\{[^}]*\})?/g, () => encode(c.params[i++] ?? "x")).replace(/\*/g, "assets/x.js");
  const path = c.route.path;
  let external: string;
  const m = /^\/@(rest|calls|client)\/:appId\/:region(\/.*)?$/.exec(path);
  if (m) {
    i = 2; // appId and region are the app's own
    const label = m[1] === "rest" ? "api" : m[1] === "calls" ? "call" : "apiclient";
    external = `/${APP_ID}.${label}-us${fill(m[2] ?? "")}`;
  } else if (path.startsWith("/@mgmt")) external = "/apimgmt" + fill(path.slice(6));
  else external = fill(path);
  const q = c.query.map(([k, v]) => `${encode(k)}=${encode(v)}`).join("&");
  return `http://localhost${external}${q ? "?" + q : ""}`;
}

function headersOf(c: Case, authToken: string): Record<string, string> {
  const h: Record<string, string> = {};
  const safe = (v: string) => v.replace(/[^\x20-\x7e]/g, "?"); // header values must be ASCII
  if (c.keyed) {
    h.apikey = REST_KEY;
    Object.assign(h, MGMT);
    h.appid = APP_ID;
    h.authtoken = authToken;
  }
  if (c.onBehalfOf !== undefined) h.onbehalfof = safe(c.onBehalfOf);
  if (c.body !== undefined && c.contentType !== "") h["content-type"] = safe(c.contentType);
  return h;
}

const digest = (value: unknown) => createHash("sha1").update(JSON.stringify(value)).digest("hex");

function isEnvelope(text: string): boolean {
  try {
    const e = JSON.parse(text)?.error;
    return !!e && ["message", "devMessage", "source", "code"].every((k) => typeof e[k] === "string");
  } catch {
    return false;
  }
}

/**
 * A fresh in-process emulator, its routes (enumerated from the app) and the checks every request must pass; goes
 * back to the seed every 100 requests (the state stays small, and an app or token a request deleted comes back).
 */
async function harness(overHttp = false) {
  const { app, emulator } = await createEmulator({ quiet: true, log: () => {} });
  const server = overHttp ? await listen(app, 0, "127.0.0.1") : undefined;
  const request = server ? (url: string, init: RequestInit) => viaSocket(server.port, url, init) : async (url: string, init: RequestInit) => {
    const res = await app.request(url, init);
    return { status: res.status, text: await res.text() };
  };
  const protoBefore = Object.getOwnPropertyNames(Object.prototype).join();
  const routes: Route[] = [];
  const seen = new Set<string>();
  for (const r of app.routes) {
    const key = `${r.method} ${r.path}`;
    if (r.method === "ALL" || seen.has(key) || SKIPPED.some((re) => re.test(r.path))) continue;
    seen.add(key);
    routes.push({ method: r.method, path: r.path });
  }
  const newToken = async () => {
    const res = await app.request(`http://localhost/v3/users/superhero1/auth_tokens`, { method: "POST", headers: { apikey: REST_KEY } });
    return ((await res.json()) as { data: { authToken: string } }).data.authToken;
  };
  let authToken = await newToken();
  // What the change log would take after each request, checking that every change of what is taken by a count
  // (the moderation data) moved its count.
  const tracker = new ChangeTracker(emulator.store, true);

  const stats: FuzzStats = { requests: 0, serverErrors: 0, nonEnvelope: 0, refusedButChanged: 0, routes: routes.length, byStatus: {}, byCode: {}, failures: [] };
  const fail = (what: string, c: Case, status: number, text: string) => {
    if (stats.failures.length < 20) stats.failures.push(`${what}: ${c.method} ${urlOf(c).slice(0, 300)} -> ${status} ${text.slice(0, 300)}`);
  };

  /** Sends one request and checks its properties. */
  async function send(c: Case): Promise<void> {
    if (stats.requests > 0 && stats.requests % 100 === 0) {
      emulator.store.reset({ to: "seed" });
      authToken = await newToken();
    }
    const before = digest(emulator.store.toData());
    let status: number;
    let text: string;
    try {
      ({ status, text } = await request(urlOf(c), { method: c.method, headers: headersOf(c, authToken), body: c.body === undefined || c.method === "GET" || c.method === "HEAD" ? undefined : c.body }));
    } catch (err) {
      status = 599;
      text = String(err);
    }
    if (FAULTS.test(c.route.path)) {
      emulator.control.rules.clear();
      emulator.control.rateLimits.enabled = false;
      emulator.control.rateLimits.forget();
    }
    stats.requests++;
    stats.byStatus[status] = (stats.byStatus[status] ?? 0) + 1;
    const code = status >= 400 ? /"code":"(\w+)"/.exec(text)?.[1] : undefined;
    if (code) stats.byCode[code] = (stats.byCode[code] ?? 0) + 1;
    if (status >= 500) {
      stats.serverErrors++;
      fail("5xx", c, status, text);
    }
    const html = c.route.path.startsWith("/_emulator/ui") && text.startsWith("<!doctype html>");
    if (status >= 400 && c.method !== "HEAD" && !html && !isEnvelope(text)) {
      stats.nonEnvelope++;
      fail("not in the envelope", c, status, text);
    }
    if (status >= 400 && digest(emulator.store.toData()) !== before) {
      stats.refusedButChanged++;
      fail("refused but changed the state", c, status, text);
    }
    try {
      tracker.take();
    } catch (e) {
      fail("a change the change log would miss", c, status, (e as Error).message);
    }
  }

  /** The last checks: the health probe answers and Object.prototype is untouched. */
  async function finish(): Promise<FuzzStats> {
    const health = await request("http://localhost/_emulator/health", { method: "GET" });
    if (health.status !== 200) stats.failures.push(`health answered ${health.status}`);
    await server?.close();
    if (Object.getOwnPropertyNames(Object.prototype).join() !== protoBefore || ({} as Record<string, unknown>).polluted !== undefined)
      stats.failures.push("Object.prototype changed");
    return stats;
  }

  return { routes, send, finish };
}

/**
 * One request over a real socket, its path sent as written (so the server, not the client, meets odd paths: Node's
 * server and the platform lane, src/http/lane.ts); a request Node's client refuses to send is answered 400 here.
 */
function viaSocket(port: number, url: string, init: RequestInit): Promise<{ status: number; text: string }> {
  const path = url.slice("http://localhost".length) || "/";
  return new Promise((resolve, reject) => {
    let req;
    try {
      const body = init.body as string | undefined;
      // A length for every body: Node's client sends a DELETE or OPTIONS body unframed otherwise.
      const length = body === undefined ? {} : { "content-length": String(Buffer.byteLength(body)) };
      req = httpRequest({ host: "127.0.0.1", port, path, method: init.method, headers: { ...(init.headers as Record<string, string>), ...length, host: "localhost" } }, (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (d) => (text += d)).on("end", () => resolve({ status: res.statusCode!, text }));
      });
    } catch {
      return resolve({ status: 400, text: '{"error":{"message":"","devMessage":"","source":"client","code":"CLIENT_REFUSED"}}' });
    }
    req.on("error", reject).end(init.body as string | undefined);
  });
}

/** Runs `requests` fuzzed requests against a fresh emulator, in-process or (`overHttp`) over a socket. */
export async function fuzz(requests: number, seed: number, overHttp = false): Promise<FuzzStats> {
  const { routes, send, finish } = await harness(overHttp);
  await fc.assert(
    fc.asyncProperty(caseOf(routes), send),
    { numRuns: requests, seed, endOnFailure: true, verbose: 0, interruptAfterTimeLimit: 10 * 60_000 },
  ).catch(() => undefined); // the properties are counted by send(); fast-check only drives the generation
  return finish();
}

/** Names of Object.prototype's properties, which a plain object "has" without being given them. */
export const PROTOTYPE_NAMES = ["__proto__", "constructor", "toString"];

/**
 * Not random: every route with each prototype name as a body key (at the top, inside every known field), as the
 * value of every known field, as every path parameter and as query keys and values. A key or id named like one
 * of Object's properties must be a plain name everywhere: refused with details, or kept, never a 500.
 */
export async function prototypeSweep(): Promise<FuzzStats> {
  const { routes, send, finish } = await harness();
  const known = (path: string) => (path.match(/:\w+/g) ?? []).map((n) => KNOWN[n.slice(1)]?.[0] ?? "x");
  /** A body giving every known field the same value (JSON text). */
  const everyField = (value: string) => `{${FIELDS.map((f) => `${JSON.stringify(f)}:${value}`).join(",")}}`;
  for (const route of routes)
    for (const name of PROTOTYPE_NAMES) {
      const key = JSON.stringify(name);
      const bodies = [`{${key}:{${key}:1}}`, everyField(`{${key}:1}`).replace("{", `{${key}:1,`), everyField(key), everyField(`[${key}]`)];
      const base: Case = { route, method: route.method, params: known(route.path), query: [["uid", "superhero1"]], body: undefined, contentType: "application/json", onBehalfOf: "superhero1", keyed: true };
      for (const body of bodies) await send({ ...base, body });
      await send({ ...base, params: base.params.map(() => name), onBehalfOf: name, body: bodies[1] });
      await send({ ...base, query: [[name, "1"], [name, "2"], ...QUERY_KEYS.map((k): [string, string] => [k, name])] });
    }
  return finish();
}
