import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import type { Hono } from "hono";
import type { Env } from "./http/context.js";

export interface Listening {
  server: Server;
  port: number;
  close(): Promise<void>;
}

/** Serves the Hono app over node:http; `port: 0` takes a free port. */
export async function listen(app: Hono<Env>, port: number, host: string): Promise<Listening> {
  const server = createServer(getRequestListener(app.fetch));
  server.keepAliveTimeout = 5_000;
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
