import { createHash, randomBytes } from "node:crypto";
import { closeSync, fstatSync, linkSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { makeFolders, PersistenceError } from "./persistence.js";
import { commandOf, running, startOf } from "../util/processes.js";

/**
 * One process owns a data file: `FILE.lock` beside it names the owner, and is taken before anything of the file is
 * read. A second process finds the lock of a live owner and refuses, touching nothing; a lock whose process is gone
 * (kill -9, a power cut, a zombie not yet reaped) is taken over, and that is said. The lock is removed at a clean
 * stop and when the process exits.
 *
 * Races between processes starting at once cannot give two owners:
 * - A lock file appears whole or not at all: it is written aside, then hard-linked into place, which fails when a
 *   lock is there (`place`). An empty or unparsable lock (a filesystem without hard links, or a crash before the
 *   disk held its bytes) is only taken for a stale one once it is older than any write of it takes (PARTIAL_MS).
 * - A stale lock is removed only by the holder of a takeover file named after its content
 *   (`FILE.lock.takeover-<hash>`, taken the same way), after checking that the lock is still that very file. Every
 *   lock carries a nonce, so a lock taken since has another content: it cannot be removed by a taker that judged
 *   the one before. A takeover file whose taker died is itself stale, and removed the same way.
 */

export interface DataLock {
  readonly path: string;
  release(): void;
}

interface Owner {
  pid: number;
  host?: string;
  /** The process's start as Linux counts it: a pid reused after a restart is not the owner. */
  started?: string;
  since?: string;
  /** A hash of its command line (Linux): tells whether the pid still runs what took the lock, without writing the line out. */
  command?: string;
}

/** A file as one read saw it: its content and its inode (a file put in its place since has another). */
interface Seen {
  text: string;
  ino: number;
  mtimeMs: number;
}

export const lockPath = (data: string) => `${data}.lock`;

/** An empty or unparsable lock younger than this may be one being written: it is waited for, never removed. */
const PARTIAL_MS = 2000;
/** How long a start waits for other processes' takeovers or partial locks before it gives up. */
const WAIT_MS = 5000;
/** Takeover files of takeover files whose takers died, one after the other: more than this is refused. */
const MAX_DEPTH = 8;

const hash = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 16);

/** What this process writes in a lock or takeover file; the nonce makes each file's content its own. */
function identity(): string {
  const command = commandOf(process.pid);
  const owner = { pid: process.pid, host: hostname(), started: startOf(process.pid), since: new Date().toISOString(), command: command && hash(command) };
  return JSON.stringify({ ...owner, nonce: randomBytes(8).toString("hex") }) + "\n";
}

function parseOwner(text: string): Owner | undefined {
  try {
    const owner = JSON.parse(text) as Owner;
    return Number.isSafeInteger(owner?.pid) ? owner : undefined;
  } catch {
    return undefined;
  }
}

function look(path: string): Seen | undefined {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (e) {
    // No lock: none there, or its folder is not a folder (the target cannot be written; whoever writes it says so).
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw e;
  }
  try {
    const { ino, mtimeMs } = fstatSync(fd);
    return { text: readFileSync(fd, "utf8"), ino, mtimeMs };
  } finally {
    closeSync(fd);
  }
}

/** Link errors of filesystems without hard links (some network and FUSE mounts, FAT). */
const NO_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS"]);

/**
 * Puts a file holding `text` at `path` unless one is there (false): written aside first, then linked into place, so
 * that nobody ever reads it partly written. Where hard links are not supported it is created exclusively and
 * written (a reader may then see it empty for a moment: see PARTIAL_MS).
 */
function place(path: string, text: string): boolean {
  const temp = `${path}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`;
  writeFileSync(temp, text, { flag: "wx" });
  try {
    linkSync(temp, path);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? "";
    if (code === "EEXIST") return false;
    if (!NO_LINKS.has(code)) throw e;
  } finally {
    rmSync(temp, { force: true });
  }
  let fd: number;
  try {
    fd = openSync(path, "wx");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw e;
  }
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  return true;
}

type Verdict = { live: Owner } | { stale: string } | { partial: true };

/** Whether the file seen at `path` belongs to a live process (the lock of this one: only while it is held). */
function judge(path: string, seen: Seen): Verdict {
  const owner = parseOwner(seen.text);
  if (!owner) return Date.now() - seen.mtimeMs < PARTIAL_MS ? { partial: true } : { stale: "a process that stopped while taking it" };
  const live = owner.pid === process.pid ? held.get(path) === seen.text : running(owner.pid, owner.started);
  return live ? { live: owner } : { stale: `pid ${owner.pid}, which is no longer running` };
}

/**
 * Removes the stale file `seen` at `path` unless it was replaced meanwhile: answers `removed`, `changed` (it is
 * not there any more: look again), or `busy` (another process is taking it over: wait).
 */
function removeStale(lock: string, path: string, seen: Seen, depth = 0): "removed" | "changed" | "busy" {
  if (depth > MAX_DEPTH) throw new PersistenceError(`${lock}: cannot be taken over: too many takeover files of stopped processes beside it.`);
  const takeover = `${lock}.takeover-${hash(seen.text)}`;
  while (!place(takeover, identity())) {
    const other = look(takeover);
    if (!other) continue;
    if (!("stale" in judge(takeover, other))) return "busy";
    if (removeStale(lock, takeover, other, depth + 1) === "busy") return "busy";
  }
  try {
    // Only the holder of this takeover file removes a file with this content: if it is still there, it stays there.
    const now = look(path);
    if (!now || now.ino !== seen.ino || now.text !== seen.text) return "changed";
    rmSync(path);
    return "removed";
  } finally {
    rmSync(takeover, { force: true });
  }
}

/** The live process other than this one that owns `data`, if any. Liveness is judged on this machine. */
export function otherOwner(data: string): Owner | undefined {
  const seen = look(lockPath(data));
  const owner = seen && parseOwner(seen.text);
  return owner && owner.pid !== process.pid && running(owner.pid, owner.started) ? owner : undefined;
}

/** The refusal for a lock of a live process: what that process is, and what to do. */
function inUse(data: string, lock: string, owner: Owner): PersistenceError {
  const command = owner.pid === process.pid ? undefined : commandOf(owner.pid);
  const shown = command && (command.length > 200 ? `${command.slice(0, 199)}…` : command);
  // A pid that now runs another command line than the one that took the lock, or none of a chat-emulator.
  const emulator = command === undefined || (owner.command ? owner.command === hash(command) : /chat-emulator/.test(command));
  if (emulator)
    return new PersistenceError(
      `${data} is in use by another chat-emulator (pid ${owner.pid}${shown ? `: ${shown}` : ""}; lock ${lock}): ` +
        "stop that one first, or give this one another --data file.",
    );
  return new PersistenceError(
    `${data} is locked by pid ${owner.pid}, which runs "${shown}": not a chat-emulator, as far as its command line shows (lock ${lock}` +
      `${owner.since ? `, taken ${owner.since}` : ""}). If no chat-emulator uses ${data} (a lock copied with the folder, or its pid reused), ` +
      `delete ${lock} and start again; otherwise stop that process first, or give this one another --data file.`,
  );
}

/** Locks held by this process, with the content each was taken with. */
const held = new Map<string, string>();
let exitHook = false;

/**
 * Takes the lock of `data` or refuses with PersistenceError. Missing folders are made for it (the data file's own
 * checks come later, once the port is bound).
 */
export async function acquireDataLock(data: string, log: (line: string) => void): Promise<DataLock> {
  const lock = resolve(lockPath(data));
  const mine = identity();
  const until = Date.now() + WAIT_MS;
  let foldersMade = false;
  let tookOver: string | undefined;
  for (;;) {
    let done: ReturnType<typeof removeStale>;
    try {
      if (place(lock, mine)) break;
      const seen = look(lock);
      if (!seen) continue; // released meanwhile
      const verdict = judge(lock, seen);
      if ("live" in verdict) throw inUse(data, lock, verdict.live);
      done = "stale" in verdict ? removeStale(lock, lock, seen) : "busy";
      if (done === "removed") tookOver = (verdict as { stale: string }).stale;
    } catch (e) {
      if (e instanceof PersistenceError) throw e;
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" || foldersMade) throw new PersistenceError(`${data}: cannot be written (its lock ${lock}: ${code ?? String(e)}).`);
      foldersMade = true;
      await makeFolders(dirname(lock)).catch((why: Error) => {
        throw new PersistenceError(`${data}: cannot be written (${why.message}).`);
      });
      continue;
    }
    if (done === "busy") {
      if (Date.now() > until) throw new PersistenceError(`${data}: cannot take its lock ${lock}: other processes keep taking it.`);
      await sleep(5);
    }
  }
  held.set(lock, mine);
  if (tookOver) log(`chat-emulator: took over the lock of ${data} left by ${tookOver}.`);
  try {
    tidy(lock);
  } catch {
    // What it leaves is tidied at a later start.
  }
  if (!exitHook) {
    exitHook = true;
    process.on("exit", () => {
      for (const [path, text] of held) releaseIfMine(path, text);
    });
  }
  return {
    path: lock,
    release() {
      const text = held.get(lock);
      if (text === mine && held.delete(lock)) releaseIfMine(lock, text);
    },
  };
}

/** Removes what killed takers left beside the lock: files written aside, takeover files (those of stopped processes). */
function tidy(lock: string): void {
  const prefix = `${basename(lock)}.`;
  let names: string[];
  try {
    names = readdirSync(dirname(lock));
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const path = join(dirname(lock), name);
    const temp = /\.(\d+)-[0-9a-f]{8}\.tmp$/.exec(name);
    // This process writes aside only within `place`, which has returned: one of its pid is another's, gone.
    if (temp) {
      const pid = Number(temp[1]);
      if (pid === process.pid || !running(pid)) rmSync(path, { force: true });
    } else if (name.startsWith(`${prefix}takeover-`)) {
      const seen = look(path);
      if (seen && "stale" in judge(path, seen)) removeStale(lock, path, seen);
    }
  }
}

/** Removes the lock if it is still the one this process took (only its owner or a takeover of a stale one removes it). */
function releaseIfMine(lock: string, text: string): void {
  if (look(lock)?.text === text) rmSync(lock, { force: true });
}

/** Refuses an export target that is the data file of another running emulator. */
export function refuseOwnedTarget(target: string, what: string): void {
  const owner = otherOwner(target);
  if (owner)
    throw new PersistenceError(
      `${what} ${target} is the data file of a running chat-emulator (pid ${owner.pid}): writing it would overwrite that emulator's state; choose another file.`,
    );
}
