import { closeSync, fstatSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { open, readdir, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { StateData } from "./types.js";
import { running } from "../util/processes.js";

/**
 * Records serialized at a time, and bytes gathered before a write: both small enough that their text is an
 * ordinary young object (a large one lives until a full collection, and a million messages make hundreds).
 */
const CHUNK = 200;
const FLUSH_BYTES = 64 * 1024;
/** Serializing runs at most this long before a yield to the event loop. */
const SLICE_MS = 4;

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Where `statePieces` would let other work run. */
const YIELD = Symbol("yield");

/**
 * The whole state as compact JSON, in pieces of about 64 KB; big arrays are serialized a chunk of records at
 * a time, with a YIELD between chunks. The top-level arrays are copied first, so records added or removed
 * meanwhile do not tear the document (a change made meanwhile is caught by the next write).
 */
function* statePieces(data: StateData): Generator<string | typeof YIELD> {
  let pending: string[] = [];
  let size = 0;
  function* out(s: string): Generator<string> {
    pending.push(s);
    size += s.length;
    if (size >= FLUSH_BYTES) yield* drain();
  }
  function* drain(): Generator<string> {
    const text = pending.join("");
    pending = [];
    size = 0;
    if (text) yield text;
  }
  yield* out(`{${data.$schema === undefined ? "" : `"$schema":${JSON.stringify(data.$schema)},`}"format":${JSON.stringify(data.format)},"apps":[`);
  for (const [i, app] of data.apps.entries()) {
    const entries = Object.entries(app).map(([k, v]) => [k, Array.isArray(v) ? v.slice() : v] as const);
    yield* out(i === 0 ? "{" : ",{");
    for (const [j, [key, value]] of entries.entries()) {
      yield* out(`${j === 0 ? "" : ","}${JSON.stringify(key)}:`);
      if (!Array.isArray(value)) {
        yield* out(JSON.stringify(value));
        continue;
      }
      yield* out("[");
      for (let at = 0; at < value.length; at += CHUNK) {
        const part = JSON.stringify(value.slice(at, at + CHUNK));
        yield* out((at === 0 ? "" : ",") + part.slice(1, -1));
        if (value.length > CHUNK) yield YIELD;
      }
      yield* out("]");
    }
    yield* out("}");
  }
  // The births of apps created at run time: their sample data or nothing, small.
  yield* out(data.births ? `],"births":${JSON.stringify(data.births)}}` : "]}");
  yield* drain();
}

/**
 * The whole state as compact JSON (see `statePieces`) without blocking the event loop: a yield to it between two
 * chunks of records. Shared by the data file's writer and `GET /_emulator/state` (exports).
 */
export async function* stateText(data: StateData): AsyncGenerator<string> {
  let since = performance.now();
  for (const piece of statePieces(data)) {
    if (piece !== YIELD) yield piece;
    else if (performance.now() - since >= SLICE_MS) {
      await tick();
      since = performance.now();
    }
  }
}

/**
 * `writeStateFile` at once (the first state of a data file that had none, written with the change that makes it;
 * see persistence.ts): temporary file, sync, rename. Returns the file's size.
 */
export function writeStateFileSync(path: string, data: StateData): number {
  const temp = tempName(path, process.pid);
  const fd = openSync(temp, "w");
  try {
    for (const piece of statePieces(data)) if (piece !== YIELD) for (let at = 0, b = Buffer.from(piece); at < b.length; ) at += writeSync(fd, b, at);
    const size = fstatSync(fd).size;
    fsyncSync(fd);
    closeSync(fd);
    renameSync(temp, path);
    return size;
  } catch (e) {
    try {
      closeSync(fd);
    } catch {
      // closed already
    }
    rmSync(temp, { force: true });
    throw e;
  }
}

/**
 * Writes the whole state (see `stateText`) to a temporary file, which then replaces `path` atomically (a crash
 * never leaves a half-written file). The temporary file is synced to the disk before the rename and the folder
 * after it, so that after a power cut the file is the old or the new state, never an empty one. Resolves with the
 * file's size.
 */
export async function writeStateFile(path: string, data: StateData): Promise<number> {
  const temp = tempName(path, process.pid);
  const file = await open(temp, "w");
  let size = 0;
  try {
    for await (const text of stateText(data)) size += (await file.write(text)).bytesWritten;
    await file.sync();
    await file.close();
    await rename(temp, path);
    await syncFolder(path);
    return size;
  } catch (e) {
    await file.close().catch(() => undefined);
    await rm(temp, { force: true });
    throw e;
  }
}

/** The temporary file a write of `path` by process `pid` goes to before it is renamed. */
export const tempName = (path: string, pid: number) => `${path}.${pid}.tmp`;

/** Makes the rename durable; folders cannot be opened for syncing everywhere (Windows), where this does nothing. */
async function syncFolder(path: string): Promise<void> {
  const folder = await open(dirname(path), "r").catch(() => undefined);
  if (!folder) return;
  await folder.sync().catch(() => undefined);
  await folder.close();
}

/**
 * Removes the temporary files a killed emulator left beside `path` (`state.json.<pid>.tmp`, as large as the state):
 * those of processes that are gone, and our own pid's (in a container every run may be pid 1).
 */
export async function removeStaleTemps(path: string): Promise<void> {
  const prefix = basename(path) + ".";
  const names = await readdir(dirname(path)).catch(() => [] as string[]);
  for (const name of names) {
    const m = name.startsWith(prefix) ? /^(\d+)\.tmp$/.exec(name.slice(prefix.length)) : null;
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid === process.pid || !running(pid)) await rm(join(dirname(path), name), { force: true });
  }
}

/** Throws when a file cannot be created beside `path` (a missing folder, no permission, a read-only disk). */
export async function probeWritable(path: string): Promise<void> {
  const temp = tempName(path, process.pid);
  const file = await open(temp, "w");
  await file.close();
  await rm(temp, { force: true });
}
