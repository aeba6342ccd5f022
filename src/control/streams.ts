import type { IncomingMessage } from "node:http";
import { Hono } from "hono";
import type { Ctx, Env } from "../http/context.js";
import { Query } from "../http/validate.js";
import { matches as deliveryMatches } from "../webhooks/dispatcher.js";
import { entryView, matcher } from "./journal.js";
import { filterFrom, liveJournal } from "./journal-routes.js";
import { deliveryFilter } from "./webhooks.js";
import { matchesNotification } from "../notifications/outbox.js";
import { notificationFilter } from "./notifications.js";

/**
 * Live streams as server-sent events (what the inspector watches; `EventSource` in a browser, or `curl -N`):
 *   GET /_emulator/requests/stream             event `request`, id = journal id: the journal's matching entries,
 *                                              then each new one as it is answered. A reconnect resumes after
 *                                              `Last-Event-ID`.
 *   GET /_emulator/webhooks/deliveries/stream  event `delivery`: the matching deliveries, then a delivery each
 *                                              time one is added or changes (an attempt, its status).
 *   GET /_emulator/notifications/stream        event `notification`: the outbox's matching notifications, then
 *                                              each one as it is computed or changes (a digest sent, a delivery).
 * A comment line every 15 s keeps idle connections open; a client that stops reading falls behind by at most
 * MAX_QUEUED events, then it is disconnected (an EventSource reconnects and resumes).
 */

const HEARTBEAT_MS = 15_000;
const MAX_QUEUED = 10_000;

interface SseEvent {
  event: string;
  id?: number;
  data: unknown;
}

type Send = (e: SseEvent) => void;

/**
 * An event-stream response. `start` sends what is there already and subscribes; it returns the unsubscribe,
 * called when the client goes away (or the emulator closes the connection).
 */
function eventStream(c: Ctx, start: (send: Send) => () => void): Response {
  const encoder = new TextEncoder();
  let stop = () => {};
  // A reader that closes its side of the connection has gone (an aborted fetch, a closed EventSource). The server
  // keeps a half-closed connection open for its answers (server.ts), and a stream has no end of its own: it would
  // find out only at its next write, after up to HEARTBEAT_MS.
  const clientSide = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let open = true;
      const close = () => {
        if (!open) return;
        open = false;
        clearInterval(heartbeat);
        c.req.raw.signal.removeEventListener("abort", close);
        clientSide?.off("end", close);
        unsubscribe();
        try {
          controller.close();
        } catch {
          // already cancelled by the reader
        }
      };
      const write = (text: string) => {
        if (!open) return;
        if ((controller.desiredSize ?? 0) < -MAX_QUEUED) return close();
        controller.enqueue(encoder.encode(text));
      };
      const send: Send = (e) => write(`event: ${e.event}\n${e.id === undefined ? "" : `id: ${e.id}\n`}data: ${JSON.stringify(e.data)}\n\n`);
      write("retry: 1000\n\n");
      const heartbeat = setInterval(() => write(": keep-alive\n\n"), HEARTBEAT_MS);
      heartbeat.unref?.();
      const unsubscribe = start(send);
      stop = close;
      c.req.raw.signal.addEventListener("abort", close);
      clientSide?.once("end", close);
    },
    cancel() {
      stop();
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      "x-accel-buffering": "no",
    },
  });
}

export const streams = new Hono<Env>()
  .get("/requests/stream", (c) => {
    const q = new Query(c);
    const filter = filterFrom(q);
    const limit = q.int("limit", { def: 0, min: 1 });
    q.done();
    const journal = liveJournal(c);
    const lastEventId = Number(c.req.header("last-event-id"));
    if (Number.isInteger(lastEventId) && lastEventId > (filter.afterId ?? 0)) filter.afterId = lastEventId;
    const matches = matcher(filter);
    return eventStream(c, (send) => {
      for (const entry of journal.list(limit > 0 ? { ...filter, limit } : filter)) send({ event: "request", id: entry.id, data: entry });
      return journal.subscribe((r) => {
        if (matches(r)) send({ event: "request", id: r.id, data: entryView(r) });
      });
    });
  })

  .get("/webhooks/deliveries/stream", (c) => {
    const q = new Query(c);
    const filter = deliveryFilter(q);
    q.done();
    const { webhooks } = c.get("emulator");
    return eventStream(c, (send) => {
      for (const d of webhooks.list(filter)) send({ event: "delivery", data: d });
      return webhooks.subscribe((d) => {
        if (deliveryMatches(d, filter)) send({ event: "delivery", data: d });
      });
    });
  })
  .get("/notifications/stream", (c) => {
    const q = new Query(c);
    const filter = notificationFilter(q);
    q.done();
    const { notifications } = c.get("emulator");
    return eventStream(c, (send) => {
      for (const n of notifications.list(filter)) send({ event: "notification", id: n.id, data: n });
      return notifications.subscribe((n) => {
        if (matchesNotification(n, filter)) send({ event: "notification", id: n.id, data: n });
      });
    });
  });
