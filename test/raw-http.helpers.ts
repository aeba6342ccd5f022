import { connect as connectTcp, type Socket } from "node:net";
import { connect as connectTls } from "node:tls";

/** One answer as it came on the wire: status, headers (lower-case names) and body. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A request as a client writes it (Host: localhost; a body gets its content type and length). */
export function wire(method: string, path: string, headers: Record<string, string> = {}, body?: unknown): string {
  const text = body === undefined ? "" : JSON.stringify(body);
  const all = { host: "localhost", ...headers, ...(body === undefined ? {} : { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)) }) };
  return `${method} ${path} HTTP/1.1\r\n${Object.entries(all).map(([k, v]) => `${k}: ${v}\r\n`).join("")}\r\n${text}`;
}

/** The answers in `bytes`, one after the other (each with a Content-Length); what is left over follows them. */
export function parseAnswers(bytes: Buffer): { answers: RawAnswer[]; rest: string } {
  const answers: RawAnswer[] = [];
  let at = 0;
  for (;;) {
    const headEnd = bytes.indexOf("\r\n\r\n", at);
    if (headEnd < 0) break;
    const [statusLine, ...lines] = bytes.subarray(at, headEnd).toString("latin1").split("\r\n");
    const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
    const length = Number(headers["content-length"] ?? NaN);
    if (!/^HTTP\/1\.1 \d{3} /.test(statusLine) || !Number.isInteger(length) || headEnd + 4 + length > bytes.length) break;
    answers.push({ status: Number(statusLine.slice(9, 12)), headers, body: bytes.subarray(headEnd + 4, headEnd + 4 + length).toString("utf8") });
    at = headEnd + 4 + length;
  }
  return { answers, rest: bytes.subarray(at).toString("utf8") };
}

/**
 * Writes `requests` (one or more, as on the wire) to a new connection to `url` and closes the client's side at once:
 * the requests and the FIN together, as an HTTP/1.0-style client or a script over a raw socket does. Resolves with
 * the answers read until the server closes the connection (over TLS trusting `ca` when the URL is https).
 * `then(socket)` runs after the FIN is sent (to reset the connection, say).
 */
export function halfClosed(url: string, requests: string, options: { ca?: string; then?: (socket: Socket) => void } = {}) {
  const { protocol, port } = new URL(url);
  const socket: Socket =
    protocol === "https:"
      ? connectTls({ host: "127.0.0.1", port: Number(port), servername: "localhost", ca: options.ca })
      : connectTcp(Number(port), "127.0.0.1");
  return new Promise<{ answers: RawAnswer[]; rest: string; error?: string }>((resolve) => {
    const chunks: Buffer[] = [];
    let error: string | undefined;
    socket.on("data", (d: Buffer) => chunks.push(d));
    socket.on("error", (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
    socket.on("close", () => resolve({ ...parseAnswers(Buffer.concat(chunks)), ...(error ? { error } : {}) }));
    socket.end(requests);
    options.then?.(socket);
  });
}
