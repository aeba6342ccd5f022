import { open, rename, rm } from "node:fs/promises";
import type { StateData } from "./types.js";

/** Records serialized between two yields to the event loop: a few milliseconds of work. */
const CHUNK = 2000;
/** Bytes gathered before a write to the file. */
const FLUSH_BYTES = 1 << 20;

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Writes the whole state as compact JSON without blocking the event loop: big arrays are serialized a chunk at a
 * time with a yield in between and streamed to a temporary file, which then replaces `path` atomically (a crash
 * never leaves a half-written file). The top-level arrays are copied first, so records added or removed while
 * writing do not tear the document; a change made meanwhile is caught by the next write.
 */
export async function writeStateFile(path: string, data: StateData): Promise<void> {
  const temp = `${path}.${process.pid}.tmp`;
  const file = await open(temp, "w");
  let pending: string[] = [];
  let size = 0;
  const out = async (s: string) => {
    pending.push(s);
    size += s.length;
    if (size >= FLUSH_BYTES) await drain();
  };
  const drain = async () => {
    const text = pending.join("");
    pending = [];
    size = 0;
    if (text) await file.write(text);
  };
  try {
    await out(`{"format":${JSON.stringify(data.format)},"apps":[`);
    for (const [i, app] of data.apps.entries()) {
      const entries = Object.entries(app).map(([k, v]) => [k, Array.isArray(v) ? [...v] : v] as const);
      await out(i === 0 ? "{" : ",{");
      for (const [j, [key, value]] of entries.entries()) {
        await out(`${j === 0 ? "" : ","}${JSON.stringify(key)}:`);
        if (!Array.isArray(value)) {
          await out(JSON.stringify(value));
          continue;
        }
        await out("[");
        for (let at = 0; at < value.length; at += CHUNK) {
          const part = JSON.stringify(value.slice(at, at + CHUNK));
          await out((at === 0 ? "" : ",") + part.slice(1, -1));
          if (value.length > CHUNK) await tick();
        }
        await out("]");
      }
      await out("}");
    }
    await out("]}");
    await drain();
    await file.close();
    await rename(temp, path);
  } catch (e) {
    await file.close().catch(() => undefined);
    await rm(temp, { force: true });
    throw e;
  }
}
