import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type RequestListener, type Server } from "node:http";
import type { Duplex } from "node:stream";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import type { Hono } from "hono";
import type { Env } from "./http/context.js";
import { CorsResponse, withCors } from "./http/cors.js";
import { ANSWER_HELD, laneFor, type AnswerHold } from "./http/lane.js";

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
  /** What answers wait for (persistence: the committed changes written to the change log). */
  hold?: AnswerHold;
}

/**
 * Node's response (with CORS) that makes sure of `hold` ahead of writing its head, so ahead of any byte of the
 * answer: at once (`now`) unless the lane already waited for it (`ANSWER_HELD`).
 */
function answeringAfter(hold: AnswerHold): typeof CorsResponse {
  return class AnsweringAfter extends CorsResponse {
    override writeHead(statusCode: number, reason?: unknown, headers?: unknown): this {
      if (!(this as { [ANSWER_HELD]?: boolean })[ANSWER_HELD]) hold.now();
      return super.writeHead(statusCode, reason as string, headers as OutgoingHttpHeaders);
    }
  } as typeof CorsResponse;
}

/** Serves the Hono app over node:http (or node:https); `port: 0` takes a free port. */
export async function listen(app: Hono<Env>, port: number, host: string, options: ListenOptions = {}): Promise<Listening> {
  const adapter = getRequestListener(app.fetch) as RequestListener;
  const lane = laneFor(app, options.hold); // after the adapter: it probes the adapter's Response
  const base = withCors(lane ? (req, res) => void (lane(req, res) || adapter(req, res)) : adapter) as RequestListener;
  const listener = options.wrap ? options.wrap(base) : base;
  const ServerResponse = options.hold ? answeringAfter(options.hold) : CorsResponse;
  const server: Server = options.tls
    ? createHttpsServer({ ...options.tls, ServerResponse }, listener)
    : createServer({ ServerResponse }, listener);
  server.keepAliveTimeout = 5_000;
  if (options.upgrade) server.on("upgrade", options.upgrade);
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
