import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type RequestListener, type Server, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";
import { getRequestListener } from "@hono/node-server";
import type { Hono } from "hono";
import type { Env } from "./http/context.js";
import { CorsResponse, withCors } from "./http/cors.js";
import { apiError } from "./http/errors.js";
import { ANSWER_HELD, laneFor, type AnswerHold } from "./http/lane.js";
import { boundUnreadBody } from "./http/drain.js";

/**
 * How long a client may take to send a request's headers, and the whole request (body included), before Node
 * answers 408 and closes: a slow sender otherwise holds a connection for Node's defaults (a minute, five). They
 * count the request only: a WebSocket upgraded, a long poll or a stream being answered is not cut off.
 */
export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 120_000;

export interface Listening {
  server: Server;
  port: number;
  close(): Promise<void>;
}

export interface ListenOptions {
  /** Serve HTTPS with this PEM certificate and key. */
  tls?: { cert: string; key: string };
  /** Wraps the request listener (the request log). */
  wrap?: (listener: RequestListener) => RequestListener;
  /** Takes connection upgrades (the WebSocket). */
  upgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
  /** Overrides HEADERS_TIMEOUT_MS and REQUEST_TIMEOUT_MS (tests), and how often Node checks them. */
  timeouts?: { headersMs: number; requestMs: number; checkEveryMs: number };
  /** What answers wait for (persistence: the committed changes written to the change log). */
  hold?: AnswerHold;
  /** Requests and upgrades that arrive before this resolves wait for it (the data file being started). */
  ready?: Promise<void>;
}

/**
 * Handles the requests of one connection one after the other: a request pipelined behind another (HTTP/1.1 lets a
 * client send the next before the answer) starts once the one before has been answered, so after its change is
 * committed, and sees it; Node would run it at once, while the first still reads its body. Node keeps such a
 * request's response without its socket until the answer before it is written (`assignSocket` then emits
 * "socket"): that is the sign, and the moment to start. A request alone on its connection costs one check.
 */
function inOrder(handle: RequestListener): RequestListener {
  return (req, res) => (res.socket ? handle(req, res) : void res.once("socket", () => handle(req, res)));
}

/** `handle`, but what arrives before `ready` resolves waits for it; after, a plain call. */
function afterReady<A extends unknown[]>(ready: Promise<void> | undefined, handle: (...args: A) => void): (...args: A) => void {
  if (!ready) return handle;
  let waiting = true;
  void ready.then(() => (waiting = false));
  return (...args) => (waiting ? void ready.then(() => handle(...args)) : handle(...args));
}

/**
 * Node's response (with CORS) whose head says `Connection: close` when Node will end the connection after it: the
 * client closed its side (see answerHalfClosed), and Node marked this answer the connection's last.
 */
class ServerAnswer<Request extends IncomingMessage = IncomingMessage> extends CorsResponse<Request> {
  override writeHead(statusCode: number, reason?: unknown, headers?: unknown): this {
    if ((this as { _last?: boolean })._last) this.shouldKeepAlive = false;
    return super.writeHead(statusCode, reason, headers);
  }
}

/**
 * Node's response (as ServerAnswer) that makes sure of `hold` ahead of writing its head, so ahead of any byte of
 * the answer: at once (`now`) unless the lane already waited for it (`ANSWER_HELD`).
 */
function answeringAfter(hold: AnswerHold): typeof CorsResponse {
  return class AnsweringAfter extends ServerAnswer {
    override writeHead(statusCode: number, reason?: unknown, headers?: unknown): this {
      if (!(this as { [ANSWER_HELD]?: boolean })[ANSWER_HELD]) hold.now();
      return super.writeHead(statusCode, reason as string, headers as OutgoingHttpHeaders);
    }
  } as typeof CorsResponse;
}

const HTTPS_REQUIRED = JSON.stringify(apiError("ERR_HTTPS_REQUIRED").toBody("emulator"));

/**
 * A plain-HTTP request on the HTTPS port would see its connection closed without a word: it gets a short 400
 * saying to use https, written on the raw socket that the TLS layer refused.
 */
function answerPlainHttp(server: Server): void {
  server.on("tlsClientError", (err: NodeJS.ErrnoException, socket: Duplex) => {
    const raw = (socket as { _parent?: Duplex })._parent;
    if (err.code !== "ERR_SSL_HTTP_REQUEST" || !raw?.writable) return;
    raw.end(
      `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(HTTPS_REQUIRED)}\r\nConnection: close\r\n\r\n${HTTPS_REQUIRED}`,
    );
  });
}

/**
 * A client may send its request and close its side of the connection at once (the request and the FIN together:
 * HTTP/1.0-style clients, scripts over raw sockets, `nc -N`). By default Node ends the connection as soon as it reads
 * the FIN, so every answer not yet written is lost: one written on the next turn of the event loop (the lane), one
 * after a latency rule or the change-log write, the second of two pipelined requests. The request itself was read
 * and may well have been applied. With `httpAllowHalfOpen` (Node's own switch on http and https servers, unset by
 * default) Node instead marks the last answer pending on the connection as its last and ends the connection once
 * that is written, or at once when none is pending.
 *
 * Over TLS the socket must also stay writable past the client's close_notify and FIN (http's sockets already do):
 * from the end of the handshake only, since a client that gives up during it (a certificate it does not trust)
 * would otherwise leave a connection nobody ends until the handshake timeout, and `close()` waiting for it.
 */
function answerHalfClosed(server: Server, tls: boolean): void {
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  if (tls) server.on("secureConnection", (socket: TLSSocket) => (socket.allowHalfOpen = true));
}

/** Node's own answers to a request it cannot read (its `clientError` default), by error code; any other: 400. */
const UNREADABLE: Record<string, string> = {
  HPE_HEADER_OVERFLOW: "431 Request Header Fields Too Large",
  HPE_CHUNK_EXTENSIONS_OVERFLOW: "413 Payload Too Large",
  ERR_HTTP_REQUEST_TIMEOUT: "408 Request Timeout",
};

type HttpSocket = Duplex & { parser?: unknown; _httpMessage?: ServerResponse | null };

/**
 * What Node does with a request it cannot read (a malformed one, headers too large, the request timeout): its
 * short answer, then the connection destroyed. With one difference: a request cut short by the client's FIN (its
 * headers or body incomplete) behind complete ones still being answered gets that answer only after theirs, which
 * Node would have lost with the connection.
 */
function answerUnreadable(server: Server): void {
  server.on("clientError", (err: NodeJS.ErrnoException, socket: HttpSocket) => {
    // A TLS connection that failed before HTTP (its handshake): https destroys it, as here.
    if (!socket.parser) return void socket.destroy(err);
    const answer = () => {
      if (socket.writable && !socket._httpMessage?.headersSent)
        socket.write(`HTTP/1.1 ${UNREADABLE[err.code ?? ""] ?? "400 Bad Request"}\r\nConnection: close\r\n\r\n`);
      socket.destroy(err);
    };
    if (err.code === "HPE_INVALID_EOF_STATE") afterCompleteOnes(socket, answer);
    else answer();
  });
}

/** Calls `then` once the answers pending on `socket` to requests read whole are written (or the socket is gone). */
function afterCompleteOnes(socket: HttpSocket, then: () => void): void {
  const pending = socket._httpMessage;
  if (!pending || !pending.req.complete || socket.destroyed) return then();
  let done = false;
  // Node's own listener, added first, has given the socket to the next pending answer by the time this one runs.
  const next = () => done || ((done = true), afterCompleteOnes(socket, then));
  pending.once("finish", next).once("close", next);
}

/** Serves the Hono app over node:http (or node:https); `port: 0` takes a free port. */
export async function listen(app: Hono<Env>, port: number, host: string, options: ListenOptions = {}): Promise<Listening> {
  const adapter = getRequestListener(app.fetch) as RequestListener;
  const lane = laneFor(app, options.hold); // after the adapter: it probes the adapter's Response
  const routed: RequestListener = lane ? (req, res) => void (lane(req, res) || adapter(req, res)) : adapter;
  const base = withCors((req, res) => {
    boundUnreadBody(req, res);
    routed(req, res);
  }) as RequestListener;
  const listener = afterReady(options.ready, inOrder(options.wrap ? options.wrap(base) : base));
  const { headersMs = HEADERS_TIMEOUT_MS, requestMs = REQUEST_TIMEOUT_MS, checkEveryMs = 1_000 } = options.timeouts ?? {};
  const ServerResponse = options.hold ? answeringAfter(options.hold) : ServerAnswer;
  const serverOptions = { ServerResponse, headersTimeout: headersMs, requestTimeout: requestMs, connectionsCheckingInterval: checkEveryMs };
  const server: Server = options.tls ? createHttpsServer({ ...options.tls, ...serverOptions }, listener) : createServer(serverOptions, listener);
  answerHalfClosed(server, options.tls !== undefined);
  answerUnreadable(server);
  server.keepAliveTimeout = 5_000;
  if (options.tls) answerPlainHttp(server);
  if (options.upgrade) server.on("upgrade", afterReady(options.ready, options.upgrade));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
