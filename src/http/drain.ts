import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * Request bodies nobody read: a request refused before its body (wrong key, unknown route) still has it on the
 * wire, and Node reads and drops the rest after the answer to keep the connection, however much is declared (a
 * client could make the emulator read a gigabyte). Every request of the server (the lane and the adapter alike)
 * goes through `boundUnreadBody`: a body declared larger than DRAIN_BYTES gets its answer with `Connection:
 * close`, and the connection closes once the answer is out; any other unread body is drained up to DRAIN_BYTES
 * for up to DRAIN_MS, then the connection closes.
 */

export const DRAIN_BYTES = 64 * 1024 * 1024;
const DRAIN_MS = 500;

export function boundUnreadBody(req: IncomingMessage, res: ServerResponse): void {
  const declared = req.headers["content-length"];
  if (declared === undefined && req.headers["transfer-encoding"] === undefined) return; // no body
  if (Number(declared) > DRAIN_BYTES) {
    res.shouldKeepAlive = false; // Node answers with Connection: close and ends the connection after the answer
    res.once("finish", () => req.readableEnded || req.socket?.destroySoon());
    return;
  }
  res.once("finish", () => req.readableEnded || drain(req));
}

/** Reads and drops what is left of a request body so the connection can serve the next request; closes it past the bounds. */
function drain(req: IncomingMessage): void {
  if (req.destroyed) return;
  let read = 0;
  const close = () => {
    cleanup();
    req.socket?.destroySoon();
  };
  const timer = setTimeout(close, DRAIN_MS).unref();
  const onData = (chunk: Buffer) => {
    read += chunk.length;
    if (read > DRAIN_BYTES) close();
  };
  const cleanup = () => {
    clearTimeout(timer);
    req.off("data", onData).off("end", cleanup).off("error", cleanup);
  };
  req.on("data", onData).on("end", cleanup).on("error", cleanup).resume();
}
