import { startEmulator } from "../index.js";
import type { Har, HarEntry } from "./har.js";
import { diffAnswers, IdMap, rewrite, trim, type Difference } from "./diff.js";

/**
 * `chat-emulator compare`: replays a HAR recording, in order, against a fresh emulator and compares each answer with
 * the recorded one (diff.ts says how). Ids the platform generated are learned from the answers as they come and
 * rewritten into the later requests that use them; the recording's secrets (redacted, or real in a DevTools HAR)
 * are replaced by the emulator's keys.
 */

export interface CompareOptions {
  har: Har;
  /** Seed or state file of the emulator (default: the bundled Default App). */
  seed?: string;
}

export interface Exchange {
  index: number;
  method: string;
  /** The operation's path as recorded (query included). */
  path: string;
  request: { method: string; url: string; body?: string };
  recorded: { status: number; body: unknown };
  emulator: { status: number; body: unknown };
  differences: Difference[];
}

export interface CompareReport {
  replayed: number;
  skipped: number;
  /** The exchanges that differ, in recording order. */
  exchanges: Exchange[];
  notes: string[];
}

/** Where a recorded request went: its plane, app and region, and the path below the plane's address. */
interface Address {
  plane: "api" | "apiclient" | "call" | "mgmt" | "default";
  appId?: string;
  region?: string;
  path: string;
}

const HOST_LABEL = /^([a-z0-9]+)\.(api|apiclient|call)-(us|eu|in)(?:\.|$)/i;
const PATH_LABEL = /^\/([a-z0-9]+)\.(api|apiclient|call)-(us|eu|in)(\/.*)$/i;

/** The platform address of a recorded URL, or undefined for what is no platform call (a page, a script, the control API). */
export function addressOf(raw: string): Address | undefined {
  const url = new URL(raw);
  const path = url.pathname + url.search;
  const host = HOST_LABEL.exec(url.hostname);
  if (host) return { plane: host[2].toLowerCase() as Address["plane"], appId: host[1].toLowerCase(), region: host[3].toLowerCase(), path };
  if (/^apimgmt\./i.test(url.hostname)) return { plane: "mgmt", path };
  const label = PATH_LABEL.exec(path);
  if (label) return { plane: label[2].toLowerCase() as Address["plane"], appId: label[1].toLowerCase(), region: label[3].toLowerCase(), path: label[4] };
  if (/^\/apimgmt(\/|$)/i.test(path)) return { plane: "mgmt", path: path.slice("/apimgmt".length) || "/" };
  if (/^\/v3(\.0)?(\/|$)/.test(path)) return { plane: "default", path };
  return undefined;
}

/** Headers a replay never sends as recorded: the transport's own, and the credentials (replaced by the emulator's). */
const DROP = new Set(["host", "content-length", "connection", "keep-alive", "transfer-encoding", "accept-encoding", "cookie", "apikey", "key", "secret", "appid", "authtoken", "authorization", "x-emulator-token"]);

function bodyText(entry: HarEntry): string | undefined {
  const content = entry.response.content;
  if (content?.text === undefined) return undefined;
  return content.encoding === "base64" ? Buffer.from(content.text, "base64").toString("utf8") : content.text;
}

function parse(text: string | undefined): unknown {
  if (text === undefined || text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export async function compare(o: CompareOptions): Promise<CompareReport> {
  const emulator = await startEmulator({ port: 0, quiet: true, seed: o.seed, journalSize: 0 });
  const notes: string[] = [];
  try {
    const apps = (await (await fetch(`${emulator.url}/_emulator/apps`)).json()) as {
      defaultAppId: string | null;
      management: { key: string; secret: string };
      apps: { appId: string; region: string; apiKeys: { apiKey: string; scope: string }[] }[];
    };
    const fallback = apps.apps.find((a) => a.appId === apps.defaultAppId) ?? apps.apps[0];
    const ids = new IdMap();
    const appFor = new Map<string, (typeof apps.apps)[number]>();
    const appOf = (appId: string | undefined) => {
      if (appId === undefined) return fallback;
      let app = appFor.get(appId);
      if (!app) {
        app = apps.apps.find((a) => a.appId === appId) ?? fallback;
        appFor.set(appId, app);
        if (app && app.appId !== appId) {
          notes.push(`The recording's app ${appId} is not in the emulator's seed: it was replayed against ${app.appId} (give --seed with a pulled file to replay against the same app).`);
          ids.learn(appId, app.appId);
        }
      }
      return app;
    };

    const report: CompareReport = { replayed: 0, skipped: 0, exchanges: [], notes };
    const entries = o.har.log.entries;
    for (let index = 0; index < entries.length; index++) {
      const entry = entries[index];
      const address = addressOf(entry.request.url);
      const type = entry._resourceType;
      if (!address || entry.request.method === "OPTIONS" || entry.response.status === 0 || type === "websocket" || type === "preflight") {
        report.skipped++;
        continue;
      }
      // A management path names its app: /apps/{appId}/...
      const app = appOf(address.appId ?? /^\/apps\/([a-z0-9]+)(\/|$)/i.exec(address.path)?.[1]?.toLowerCase());
      const path = ids.rewritePath(address.path);
      const base =
        address.plane === "mgmt"
          ? `${emulator.url}/apimgmt`
          : address.plane === "default" || !app
            ? emulator.url
            : `${emulator.url}/${app.appId}.${address.plane}-${app.region}`;
      const headers = new Headers();
      for (const h of entry.request.headers) {
        const name = h.name.toLowerCase();
        if (name.startsWith(":") || DROP.has(name)) continue;
        headers.set(h.name, ids.rewriteText(h.value));
      }
      const recorded = new Map(entry.request.headers.map((h) => [h.name.toLowerCase(), h.value]));
      if (recorded.has("apikey") && app) headers.set("apikey", (app.apiKeys.find((k) => k.scope === "fullAccess") ?? app.apiKeys[0])?.apiKey ?? "");
      if (recorded.has("appid") && app) headers.set("appid", app.appId);
      if (recorded.has("authtoken")) headers.set("authtoken", ids.rewriteText(recorded.get("authtoken")!));
      if (recorded.has("key")) headers.set("key", apps.management.key);
      if (recorded.has("secret")) headers.set("secret", apps.management.secret);
      const sent = entry.request.postData?.text;
      const body = sent === undefined ? undefined : rewrite(parse(sent), ids);
      const bodyOut = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
      const url = `${base}${path}`;
      let status: number;
      let answer: unknown;
      try {
        const res = await fetch(url, {
          method: entry.request.method,
          headers,
          body: entry.request.method === "GET" || entry.request.method === "HEAD" ? undefined : bodyOut,
          redirect: "manual",
        });
        status = res.status;
        answer = parse(await res.text());
      } catch (e) {
        status = 0;
        answer = `no answer: ${(e as Error).message}`;
      }
      report.replayed++;
      const recordedBody = parse(bodyText(entry));
      const differences = diffAnswers({ status: entry.response.status, body: recordedBody }, { status, body: answer }, ids);
      if (differences.length > 0)
        report.exchanges.push({
          index: index + 1,
          method: entry.request.method,
          path: address.path,
          request: { method: entry.request.method, url: path, ...(bodyOut !== undefined ? { body: bodyOut } : {}) },
          recorded: { status: entry.response.status, body: trim(recordedBody, 4000) },
          emulator: { status, body: trim(answer, 4000) },
          differences,
        });
    }
    return report;
  } finally {
    await emulator.close();
  }
}
