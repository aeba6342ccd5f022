import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { isIP } from "node:net";
import { HarWriter, Redactor, harHeaders, type HarEntry } from "./har.js";

/**
 * `chat-emulator record`: a proxy in front of the platform (or an emulator). Each request is forwarded to the target
 * as it came (method, path, query, headers, body), its answer is returned as it came, and the exchange is appended
 * to a HAR file with the secrets redacted (har.ts). Only what the proxy must change is changed: hop-by-hop headers,
 * and the content encoding, as the answer is passed on decoded.
 */

export interface RecordOptions {
  target: string;
  out: string;
  port: number;
  host: string;
  /** Told about each exchange (method, path, status, ms), for the log. */
  onExchange?: (line: string) => void;
}

export interface Recorder {
  url: string;
  entries(): number;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(["host", "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te", "trailer", "content-length", "expect", "accept-encoding"]);
const ANSWER_DROPS = new Set(["connection", "keep-alive", "transfer-encoding", "content-encoding", "content-length"]);
const MAX_BODY = 64 * 1024 * 1024;
/** A path label of the emulator's address forms: `/{appId}.api-us/...`, `/apimgmt/...`. */
const PATH_LABEL = /^\/([a-z0-9]+\.(?:api|apiclient|call)-(?:us|eu|in)|apimgmt)(\/.*|$)/i;

/**
 * Where a request goes. A target on a loopback or IP address is an emulator: the path goes as it is (its path labels
 * reach every plane through one proxy). A platform domain (`--target https://cometchat.io`) takes a path label as
 * the host's first label, so one proxy reaches every plane there too; a target with a full host takes the path as
 * it is.
 */
export function forwardUrl(target: string, path: string): string {
  const t = new URL(target);
  const label = PATH_LABEL.exec(path);
  const local = isIP(t.hostname.replace(/^\[|\]$/g, "")) !== 0 || t.hostname === "localhost";
  if (label && !local && t.hostname.split(".").length === 2) return `${t.protocol}//${label[1]}.${t.host}${label[2] || "/"}`;
  return `${target.replace(/\/+$/, "")}${path}`;
}

const isText = (mime: string) => /json|text|xml|javascript|x-www-form-urlencoded/i.test(mime) || mime === "";

export async function startRecorder(o: RecordOptions): Promise<Recorder> {
  const har = new HarWriter(o.out);
  const redact = new Redactor();
  // Exchanges are appended in the order they finish; a write is synchronous, so the file is whole between two.
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const started = new Date();
    const t0 = performance.now();
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY) {
        res.writeHead(413, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "chat-emulator record: the request body is over 64 MiB." } }));
        return;
      }
      chunks.push(chunk as Buffer);
    }
    const body = Buffer.concat(chunks);
    const url = forwardUrl(o.target, req.url ?? "/");
    const headers = new Headers();
    for (const h of harHeaders(req.headers)) if (!HOP_BY_HOP.has(h.name.toLowerCase())) headers.append(h.name, h.value);
    let answer: Response;
    try {
      answer = await fetch(url, {
        method: req.method,
        headers,
        body: req.method === "GET" || req.method === "HEAD" || body.length === 0 ? undefined : body,
        redirect: "manual",
      });
    } catch (e) {
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code ?? cause?.message ?? (e as Error).message;
      o.onExchange?.(`${req.method} ${req.url} -> could not reach ${url} (${why}); not recorded`);
      res.writeHead(502, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: `chat-emulator record could not reach ${url} (${why}).` } }));
      return;
    }
    const answerBody = Buffer.from(await answer.arrayBuffer());
    const answerHeaders = harHeaders(answer.headers).filter((h) => !ANSWER_DROPS.has(h.name.toLowerCase()));
    res.writeHead(answer.status, answer.statusText, answerHeaders.map((h) => [h.name, h.value]).flat());
    res.end(answerBody);
    const ms = performance.now() - t0;
    const reqMime = req.headers["content-type"] ?? "";
    const resMime = answer.headers.get("content-type") ?? "";
    const u = new URL(url);
    const entry: HarEntry = {
      startedDateTime: started.toISOString(),
      time: ms,
      request: {
        method: req.method ?? "GET",
        url: redact.url(url),
        httpVersion: "HTTP/1.1",
        headers: redact.headers(harHeaders(req.headers).filter((h) => h.name.toLowerCase() !== "host").concat({ name: "host", value: u.host })),
        queryString: [...new URL(redact.url(url)).searchParams].map(([name, value]) => ({ name, value })),
        cookies: [],
        headersSize: -1,
        bodySize: body.length,
        ...(body.length > 0 ? { postData: { mimeType: reqMime, text: isText(reqMime) ? redact.body(body.toString("utf8"), reqMime) : body.toString("base64") } } : {}),
      },
      response: {
        status: answer.status,
        statusText: answer.statusText,
        httpVersion: "HTTP/1.1",
        headers: redact.headers(answerHeaders),
        cookies: [],
        content: isText(resMime)
          ? { size: answerBody.length, mimeType: resMime, text: redact.body(answerBody.toString("utf8"), resMime) }
          : { size: answerBody.length, mimeType: resMime, text: answerBody.toString("base64"), encoding: "base64" },
        redirectURL: answer.headers.get("location") ?? "",
        headersSize: -1,
        bodySize: answerBody.length,
      },
      cache: {},
      timings: { send: 0, wait: ms, receive: 0 },
    };
    har.append(entry);
    o.onExchange?.(`${entry.request.method} ${u.pathname} ${answer.status} ${ms.toFixed(1)}ms`);
  };
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e: Error) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `chat-emulator record: ${e.message}` } }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, o.host, () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  const shown = o.host === "0.0.0.0" || o.host === "::" ? "127.0.0.1" : o.host.includes(":") ? `[${o.host}]` : o.host;
  return {
    url: `http://${shown}:${port}`,
    entries: () => har.entries,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          har.close();
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}
