import type { Directory } from "./api";
import type { JournalEntry } from "./live";

/**
 * A journaled request as one you can send again: "copy as curl" and "replay" in the requests view. The journal keeps
 * secrets masked (`1f9f0*****feb6`); the real value is put back only on request, and only when the page knows it
 * (an app's API key, the management key and secret); otherwise the command says `<header>` for you to fill in.
 */

/** Headers the journal masks. */
export const SECRET_HEADERS = new Set(["apikey", "authtoken", "key", "secret", "authorization", "x-emulator-token"]);

/** Headers a client library sets by itself, or that the browser and Node set: not part of what the code sent. */
const LEFT_OUT = /^(host|content-length|connection|accept-encoding|user-agent|cookie|origin|referer|x-emulator-inspector|sec-.*|transfer-encoding|keep-alive|accept-language|priority|pragma|cache-control)$/;

export interface Replayable {
  method: string;
  url: string;
  headers: [string, string][];
  body: string | undefined;
  /** Secret headers left as placeholders: masked, and unknown to the page (or keys not asked for). */
  placeholders: string[];
}

/** The same masking as the journal's (src/http/errors.ts maskKey), to recognise a key the page knows. */
function mask(key: string): string {
  if (key.length <= 10) return "*".repeat(key.length);
  return key.slice(0, 5) + "*".repeat(key.length - 10) + key.slice(-5);
}

function knownSecrets(dir: Directory): string[] {
  return [...dir.apps.flatMap((a) => a.apiKeys.map((k) => k.apiKey)), dir.management.key, dir.management.secret];
}

/** The address the request was sent to, on this emulator: the plane's path label, the path and the query. */
export function requestUrl(entry: JournalEntry, dir: Directory, origin: string): string {
  const region = dir.apps.find((a) => a.appId === entry.appId)?.region ?? "us";
  const label: Record<string, string> = { rest: "api", calls: "call", client: "apiclient" };
  const prefix = entry.plane === "mgmt" ? "/apimgmt" : entry.plane && entry.appId ? `/${entry.appId}.${label[entry.plane]}-${region}` : "";
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(entry.query)) for (const one of Array.isArray(v) ? v : [v]) query.append(k, one);
  const qs = query.toString();
  return `${origin}${prefix}${entry.path}${qs ? `?${qs}` : ""}`;
}

export function replayable(entry: JournalEntry, dir: Directory, origin: string, withKeys: boolean): Replayable {
  const secrets = withKeys ? knownSecrets(dir) : [];
  const headers: [string, string][] = [];
  const placeholders: string[] = [];
  for (const [name, value] of Object.entries(entry.requestHeaders)) {
    if (LEFT_OUT.test(name) || (name === "accept" && value === "*/*")) continue;
    if (!SECRET_HEADERS.has(name)) {
      headers.push([name, value]);
      continue;
    }
    const real = secrets.find((s) => mask(s) === value);
    if (real === undefined) placeholders.push(name);
    headers.push([name, real ?? `<${name}>`]);
  }
  const b = entry.requestBody;
  const body = b === null || b === undefined || b === "" ? undefined : typeof b === "string" ? b : JSON.stringify(b);
  return { method: entry.method, url: requestUrl(entry, dir, origin), headers, body, placeholders };
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A POSIX shell command line. */
export function curlCommand(r: Replayable): string {
  const parts = ["curl", "-sS"];
  if (r.method !== "GET" || r.body !== undefined) parts.push("-X", r.method);
  parts.push(quote(r.url));
  for (const [k, v] of r.headers) parts.push("-H", quote(`${k}: ${v}`));
  if (r.body !== undefined) parts.push("--data-raw", quote(r.body));
  return parts.join(" ");
}
