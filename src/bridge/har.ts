import { closeSync, openSync, writeSync } from "node:fs";
import { createHmac, randomBytes } from "node:crypto";
import { VERSION } from "../version.js";

/**
 * HAR 1.2 (the format browsers' DevTools export): the types `record` writes and `compare` reads, the redaction of
 * secrets, and a file that is a whole HAR document after every exchange.
 */

export interface HarHeader {
  name: string;
  value: string;
}

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    headers: HarHeader[];
    queryString: HarHeader[];
    cookies: unknown[];
    headersSize: number;
    bodySize: number;
    postData?: { mimeType: string; text: string };
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    headers: HarHeader[];
    cookies: unknown[];
    content: { size: number; mimeType: string; text?: string; encoding?: string };
    redirectURL: string;
    headersSize: number;
    bodySize: number;
  };
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
  _resourceType?: string;
}

export interface Har {
  log: { version: string; creator: { name: string; version: string }; entries: HarEntry[] };
}

/** Headers, query parameters and JSON keys whose values are secrets. */
const SECRET_HEADERS = new Set(["apikey", "authtoken", "authorization", "key", "secret", "cookie", "set-cookie", "x-emulator-token", "proxy-authorization"]);
const SECRET_KEY = /^(api_?key|rest_?api_?key|auth_?key|auth_?token|access_?token|refresh_?token|call_?token|token|password|secret)$/i;

/**
 * Replaces secrets with stand-ins `REDACTED-<hmac>`: the same secret gives the same stand-in within one recording
 * (so `compare` can follow a token from the answer that made it to the requests that use it), and the key of the
 * HMAC is never written, so no stand-in can be traced back to its secret.
 */
export class Redactor {
  private readonly key = randomBytes(32);

  value(secret: string): string {
    if (secret.startsWith("REDACTED-") || secret === "") return secret;
    return `REDACTED-${createHmac("sha256", this.key).update(secret).digest("hex").slice(0, 16)}`;
  }

  headers(headers: HarHeader[]): HarHeader[] {
    return headers.map((h) => (SECRET_HEADERS.has(h.name.toLowerCase()) ? { name: h.name, value: this.value(h.value) } : h));
  }

  /** A URL with its secret query parameters (`apikey=`, `authToken=`) redacted. */
  url(raw: string): string {
    const url = new URL(raw);
    for (const [k, v] of [...url.searchParams]) if (SECRET_KEY.test(k)) url.searchParams.set(k, this.value(v));
    return url.toString();
  }

  /** A body's text: JSON with its secret keys redacted at any depth (other texts as they are). */
  body(text: string, mimeType: string): string {
    if (!/json/i.test(mimeType) && !/^\s*[[{]/.test(text)) return text;
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      return text;
    }
    return JSON.stringify(this.json(doc));
  }

  private json(v: unknown): unknown {
    if (Array.isArray(v)) return v.map((x) => this.json(x));
    if (typeof v !== "object" || v === null) return v;
    return Object.fromEntries(
      Object.entries(v).map(([k, x]) => [k, SECRET_KEY.test(k) && typeof x === "string" ? this.value(x) : this.json(x)]),
    );
  }
}

/**
 * A HAR file appended one entry at a time, a whole document after each: the entries end with the document's
 * closing, which each new entry overwrites and writes again after itself.
 */
export class HarWriter {
  private readonly fd: number;
  private offset: number;
  private count = 0;
  private static readonly CLOSING = "\n]}}\n";

  constructor(path: string) {
    this.fd = openSync(path, "w");
    const head = JSON.stringify({ log: { version: "1.2", creator: { name: "chat-emulator record", version: VERSION }, entries: [] } });
    const open = head.slice(0, head.lastIndexOf("[]") + 1);
    writeSync(this.fd, open + HarWriter.CLOSING, 0);
    this.offset = Buffer.byteLength(open);
  }

  get entries(): number {
    return this.count;
  }

  append(entry: HarEntry): void {
    const text = `${this.count === 0 ? "\n" : ",\n"}${JSON.stringify(entry)}`;
    const bytes = Buffer.from(text + HarWriter.CLOSING);
    writeSync(this.fd, bytes, 0, bytes.length, this.offset);
    this.offset += Buffer.byteLength(text);
    this.count++;
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** Headers of a fetch `Headers` or a Node header object, as HAR lists them. */
export function harHeaders(headers: Headers | Record<string, string | string[] | undefined>): HarHeader[] {
  if (headers instanceof Headers) return [...headers].map(([name, value]) => ({ name, value }));
  return Object.entries(headers).flatMap(([name, v]) => (v === undefined ? [] : (Array.isArray(v) ? v : [v]).map((value) => ({ name, value }))));
}
