import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { dirname, resolve } from "node:path";
import { makeFolders, PersistenceError } from "./persistence.js";

/**
 * One process owns a data file: `FILE.lock` beside it holds the owner's pid, created exclusively (O_EXCL) before
 * anything of the file is read. A second process finds the lock of a live owner and refuses, touching nothing; a
 * lock whose process is gone (kill -9, a power cut) is taken over, and that is said. The lock is removed at a
 * clean stop and when the process exits.
 */

export interface DataLock {
  readonly path: string;
  release(): void;
}

interface Owner {
  pid: number;
  host?: string;
  /** The process's start as Linux counts it (/proc/PID/stat): a pid reused after a restart is not the owner. */
  started?: string;
  since?: string;
}

export const lockPath = (data: string) => `${data}.lock`;

/** When a process started, in clock ticks since boot (Linux only: undefined elsewhere or when it is gone). */
function startOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

/** Whether the process that wrote `owner` still runs on this machine (EPERM: it runs, as another user). */
function alive(owner: Owner): boolean {
  try {
    process.kill(owner.pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  const started = owner.started === undefined ? undefined : startOf(owner.pid);
  return started === undefined || started === owner.started;
}

function readOwner(lock: string): Owner | undefined {
  try {
    const owner = JSON.parse(readFileSync(lock, "utf8")) as Owner;
    return Number.isSafeInteger(owner?.pid) ? owner : undefined;
  } catch {
    return undefined; // unreadable, or half written by a process killed while creating it
  }
}

/**
 * The live process other than this one that owns `data`, if any. Liveness is judged on this machine: a container
 * recreated over the same volume has another host name, and its old owner is gone.
 */
export function otherOwner(data: string): Owner | undefined {
  const owner = readOwner(lockPath(data));
  return owner && owner.pid !== process.pid && alive(owner) ? owner : undefined;
}

const held = new Set<string>();
let exitHook = false;

/**
 * Takes the lock of `data` or refuses with PersistenceError. Missing folders are made for it (the data file's own
 * checks come later, once the port is bound).
 */
export async function acquireDataLock(data: string, log: (line: string) => void): Promise<DataLock> {
  const lock = resolve(lockPath(data));
  const mine = JSON.stringify({ pid: process.pid, host: hostname(), started: startOf(process.pid), since: new Date().toISOString() }) + "\n";
  for (let attempt = 0; attempt < 4; attempt++) {
    let fd: number;
    try {
      fd = openSync(lock, "wx");
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ENOENT" && attempt === 0) {
        await makeFolders(dirname(lock)).catch((why: Error) => {
          throw new PersistenceError(`${data}: cannot be written (${why.message}).`);
        });
        continue;
      }
      if (code !== "EEXIST") throw new PersistenceError(`${data}: cannot be written (its lock ${lock}: ${code ?? String(e)}).`);
      const owner = readOwner(lock);
      if (owner && (owner.pid === process.pid ? held.has(lock) : otherOwner(data)))
        throw new PersistenceError(
          `${data} is in use by another chat-emulator (pid ${owner.pid}; lock ${lock}): ` +
            "stop that one first, or give this one another --data file.",
        );
      // The owner is gone: its lock is stale.
      rmSync(lock, { force: true });
      log(`chat-emulator: took over the lock of ${data} left by ${owner ? `pid ${owner.pid}, which is no longer running` : "a process that stopped while taking it"}.`);
      continue;
    }
    try {
      writeSync(fd, mine);
    } finally {
      closeSync(fd);
    }
    held.add(lock);
    if (!exitHook) {
      exitHook = true;
      process.on("exit", () => {
        for (const path of held) releaseIfMine(path);
      });
    }
    return {
      path: lock,
      release() {
        if (held.delete(lock)) releaseIfMine(lock);
      },
    };
  }
  throw new PersistenceError(`${data}: cannot take its lock ${lock}: other processes keep taking it.`);
}

function releaseIfMine(lock: string): void {
  if (readOwner(lock)?.pid === process.pid) rmSync(lock, { force: true });
}

/** Refuses an export target that is the data file of another running emulator. */
export function refuseOwnedTarget(target: string, what: string): void {
  const owner = otherOwner(target);
  if (owner)
    throw new PersistenceError(
      `${what} ${target} is the data file of a running chat-emulator (pid ${owner.pid}): writing it would overwrite that emulator's state; choose another file.`,
    );
}
