import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach } from "vitest";

/** One request a receiver got: its JSON body and headers. */
export interface Received {
  body: any;
  headers: IncomingMessage["headers"];
}

export type Answer = (req: Received, res: ServerResponse) => void;

/** A real local HTTP receiver (a webhook endpoint, a bot's server): records every request; `answer` replies. */
export async function startReceiver(path: string, answer: Answer) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let text = "";
    req.on("data", (d) => (text += d));
    req.on("end", () => {
      const r = { body: JSON.parse(text), headers: req.headers };
      received.push(r);
      answer(r, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    received,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Polls a delivery log (`{deliveries}`) until it lists at least `n` entries, and returns them. */
export async function pollDeliveries(list: () => Promise<{ body: any }>, n: number): Promise<any[]> {
  for (let i = 0; i < 300; i++) {
    const { deliveries } = (await list()).body;
    if (deliveries.length >= n) return deliveries;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`fewer than ${n} deliveries`);
}

/**
 * A receiver started before each test of the file and closed after it. `answer` starts as `initial` in each test
 * and may be replaced; `url` and `received` belong to the current test's receiver.
 */
export function useReceiver(path: string, initial: Answer) {
  const rx = { url: "", received: [] as Received[], answer: initial, close: async () => {} };
  beforeEach(async () => {
    rx.answer = initial;
    Object.assign(rx, await startReceiver(path, (r, res) => rx.answer(r, res)));
  });
  afterEach(() => rx.close());
  return rx;
}
