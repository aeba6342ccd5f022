import { closeSync, existsSync, fdatasync, fdatasyncSync, fstatSync, fsyncSync, ftruncateSync, openSync, readdirSync, readFileSync, rmSync, watch, write as fsWrite, writeSync, type FSWatcher } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { Change } from "./change-tracker.js";

/** A log file beside the data file `F`: `F.changes-<n>`, numbered from 1 up, one per checkpoint period. */
const LOG_NAME = /^\.changes-(\d+)$/;

export interface LogFile {
  n: number;
  file: string;
}

/** The change logs beside `path`, oldest first. */
export function listLogs(path: string): LogFile[] {
  const prefix = basename(path);
  let names: string[];
  try {
    names = readdirSync(dirname(path));
  } catch {
    return [];
  }
  const out: LogFile[] = [];
  for (const name of names) {
    const m = name.startsWith(prefix) ? LOG_NAME.exec(name.slice(prefix.length)) : null;
    if (m) out.push({ n: Number(m[1]), file: join(dirname(path), name) });
  }
  return out.sort((a, b) => a.n - b.n);
}

/**
 * The first line of every log file: its format. A file without it (written before formats were numbered) is read
 * as format 1; a newer format is refused, never read in part.
 */
export const LOG_FORMAT = "chat-emulator/changes@1";
const HEADER = Buffer.from(JSON.stringify({ format: LOG_FORMAT }) + "\n");
const KNOWN_FORMAT = /^chat-emulator\/changes@(\d+)$/;

/** A log that cannot be replayed: the start is refused and every file left as it was. */
export class ReplayError extends Error {}

/** A line that could not be applied, kept byte for byte (see `--recover`). */
export interface Unapplied {
  file: string;
  line: number;
  bytes: Buffer;
  why: string;
}

/** Where a line of a log is: its file and its number (from 1). */
export interface LinePlace {
  file: string;
  line: number;
}

const placeKey = (at: LinePlace) => `${at.line} ${at.file}`;

/** Lines set aside before a replay, with why: the lines with which the state would not load (see Persistence). */
export class SetAside extends Map<string, string> {
  add(at: LinePlace, why: string): void {
    this.set(placeKey(at), why);
  }
  why(at: LinePlace): string | undefined {
    return this.get(placeKey(at));
  }
}

/** The refusal of a line that cannot be applied. */
export const unappliable = (at: LinePlace, why: string) =>
  new ReplayError(
    `${at.file}, line ${at.line}: cannot be applied (${why}). Nothing was changed; --recover moves what cannot be applied aside (byte for byte) and starts without it.`,
  );

/**
 * Replays the logs' lines (one JSON list of changes each) in order through `apply`, which answers why a line
 * cannot be applied, or undefined. A last line without its end of line is what a crash in the middle of an append
 * leaves (its request was never answered): it is ignored and reported through `warn`. Any other line that does
 * not parse or apply throws ReplayError naming the file, the line and why; with `recover` it is set aside instead
 * (returned, for the caller to keep) and the replay goes on. The lines in `aside` are set aside the same way
 * without being applied; `until` ends the replay after that line; `applied` collects the places of the lines applied.
 */
export function replayLogs(
  logs: LogFile[],
  apply: (changes: unknown) => string | undefined,
  opts: { warn: (line: string) => void; recover?: boolean; aside?: SetAside; until?: LinePlace; applied?: LinePlace[] },
): Unapplied[] {
  const unapplied: Unapplied[] = [];
  for (const { file } of logs) {
    const bytes = readFileSync(file);
    let at = 0;
    for (let line = 1; at < bytes.length; line++) {
      const end = bytes.indexOf(0x0a, at);
      if (end === -1) {
        opts.warn(
          `chat-emulator: warning: ${file}: the last line (${line}, ${bytes.length - at} bytes) has no end of line: a crash cut it off while it was written, before its request was answered; it is ignored.`,
        );
        break;
      }
      // NUL bytes where a line starts are a write that a crash kept from landing while a later one did (positional
      // writes): its request was never answered; what follows them is the later write.
      let from = at;
      while (bytes[from] === 0 && from < end) from++;
      if (from > at) opts.warn(`chat-emulator: warning: ${file}, line ${line}: ${from - at} bytes of an unfinished write (never answered) are ignored.`);
      const text = bytes.toString("utf8", from, end);
      const header = line === 1 && text.startsWith('{"format"');
      const why = opts.aside?.why({ file, line }) ?? (header ? formatProblem(text) : applyLine(text, apply));
      if (why === FORMAT_TOO_NEW) throw new ReplayError(`${file}: ${why}`);
      if (why) {
        if (!opts.recover) throw unappliable({ file, line }, why);
        unapplied.push({ file, line, bytes: bytes.subarray(at, end + 1), why });
      } else if (!header) opts.applied?.push({ file, line });
      if (opts.until?.file === file && opts.until.line === line) return unapplied;
      at = end + 1;
    }
  }
  return unapplied;
}

const FORMAT_TOO_NEW = `it was written by a newer chat-emulator (its format is newer than ${LOG_FORMAT}): start it with that version`;

function formatProblem(text: string): string | undefined {
  let format: unknown;
  try {
    format = (JSON.parse(text) as { format?: unknown }).format;
  } catch {
    return "its format line does not parse";
  }
  const m = typeof format === "string" ? KNOWN_FORMAT.exec(format) : null;
  if (!m) return `its format ${JSON.stringify(String(format).slice(0, 60))} is not a chat-emulator change log's`;
  return Number(m[1]) > 1 ? FORMAT_TOO_NEW : undefined;
}

function applyLine(text: string, apply: (changes: unknown) => string | undefined): string | undefined {
  let changes: unknown;
  try {
    changes = JSON.parse(text);
  } catch {
    return "it is not JSON";
  }
  try {
    return apply(changes);
  } catch (e) {
    return `applying it failed: ${(e as Error).message ?? String(e)}`;
  }
}

/** What a write takes (see ChangeLog): the changes gathered, and what to tell once they are written or refused. */
export interface Gathered {
  changes: Change[];
  /** Called once: without an error when the changes are written, with the write's error when they are not. */
  settle(e?: unknown): void;
}

interface Batch {
  data: Buffer;
  /** Its place in the file. */
  at: number;
  settle(e?: unknown): void;
}

/**
 * The append-only change log of a data file. A write takes the changes made since the last one (from `collect`)
 * as one batch (one line of the file) and tells their `settle` how it went: `writeSoon()` writes from the thread
 * pool (Node's, so the event loop never waits on the disk), once the bytes are in the operating system's hands
 * (with `fsync`, on the disk): from then on a kill of the process cannot lose them. While a write is in flight,
 * the next one waits for it and takes everything changed meanwhile: one look for changes and one write for them all.
 * `writeNow()` does the same at once, for callers that cannot wait.
 * Each batch has its place in the file from the moment it is taken (positional writes), so writes that complete
 * out of order leave the same file. A batch that fails is not written again: its changes are refused (see
 * persistence.ts), what of it landed is cut off, and its place goes to the next batch. `rotate` starts a new file
 * for what follows; once a checkpoint holding everything before the rotation is on disk, `dropUpTo` deletes the
 * files it covers. A file is created at its first append only.
 */
export class ChangeLog {
  private fd: number | undefined;
  /**
   * Watches the open file for its deletion (its folder removed): a write would go to a file no start finds. A
   * watch costs nothing per write, where an fstat before each batch cost a persisted POST some 5% of its CPU.
   * Where a filesystem cannot be watched, each batch checks the file itself.
   */
  private watcher: FSWatcher | undefined;
  private deleted = false;
  /** Bytes appended to the current file (the place of the next batch). */
  size = 0;
  /** The write in flight, and whether another was asked for meanwhile. */
  private inFlight: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly path: string,
    private n: number,
    private readonly fsync: boolean,
    /** The changes made since it was last called (undefined: nothing to take). */
    private readonly collect: () => Gathered | undefined,
  ) {}

  /** The file the next append goes to. */
  get file(): string {
    return `${this.path}.changes-${this.n}`;
  }

  /** The changes made since the last call as one batch, placed at the end of the file; none without changes. */
  private gather(): Batch | undefined {
    const gathered = this.collect();
    if (!gathered) return undefined;
    if (gathered.changes.length === 0) return void gathered.settle();
    const line = Buffer.from(JSON.stringify(gathered.changes) + "\n");
    // A file's first line is its format (see LOG_FORMAT).
    const data = this.size === 0 ? Buffer.concat([HEADER, line]) : line;
    const batch = { data, at: this.size, settle: gathered.settle };
    this.size += data.length;
    return batch;
  }

  /** Writes the changes made so far from the thread pool; while a write is in flight, once it is done. */
  writeSoon(): void {
    if (this.inFlight) {
      this.again = true;
      return;
    }
    const batch = this.gather();
    if (!batch) return;
    this.inFlight = new Promise<void>((resolve) => {
      const finish = (e?: unknown) => {
        this.finished(batch, e);
        resolve();
      };
      let fd: number;
      try {
        fd = this.open();
      } catch (e) {
        return finish(e);
      }
      write(fd, batch.data, batch.at, (e) => {
        if (e || !this.fsync) return finish(e);
        fdatasync(fd, finish);
      });
    }).then(() => {
      this.inFlight = undefined;
      if (!this.again) return;
      this.again = false;
      this.writeSoon();
    });
  }

  /** Writes every change made so far before returning (a write in flight completes on its own). */
  writeNow(): void {
    const batch = this.gather();
    if (!batch) return;
    try {
      const fd = this.open();
      for (let done = 0; done < batch.data.length; ) done += writeSync(fd, batch.data, done, batch.data.length - done, batch.at + done);
      if (this.fsync) fdatasyncSync(fd);
    } catch (e) {
      return this.finished(batch, e);
    }
    this.finished(batch);
  }

  /**
   * A batch written, or failed: then what of it may have landed is cut off (when nothing was placed after it), so
   * that neither a replay nor the next batch, which takes its place, finds it.
   */
  private finished(batch: Batch, e?: unknown): void {
    if (e && batch.at + batch.data.length === this.size) {
      this.size = batch.at;
      if (this.fd !== undefined)
        try {
          ftruncateSync(this.fd, batch.at);
        } catch {
          // the next batch writes over it; a checkpoint deletes the file
        }
    }
    batch.settle(e ?? undefined);
  }

  private open(): number {
    if (this.fd === undefined) {
      this.fd = openSync(this.file, "w");
      if (this.fsync) syncFolder(this.path);
      this.deleted = false;
      try {
        const file = this.file;
        this.watcher = watch(file, { persistent: false }, (event) => {
          if (event === "rename" && !existsSync(file)) this.deleted = true;
        });
        this.watcher.on("error", () => (this.watcher = undefined));
      } catch {
        this.watcher = undefined;
      }
    } else if (this.deleted || (this.watcher === undefined && fstatSync(this.fd).nlink === 0)) {
      // Deleted under us (its folder removed): it would take writes that no start finds.
      throw Object.assign(new Error(`${this.file} was deleted`), { code: "ENOENT" });
    }
    return this.fd;
  }

  /** Writes every change made so far, then closes the current file: what follows goes to a new one. Resolves with the number of the file closed. */
  async rotate(): Promise<number> {
    while (this.inFlight) await this.inFlight;
    this.writeNow();
    this.close();
    this.size = 0;
    return this.n++;
  }

  /** Deletes the files numbered `n` and below (a checkpoint now holds what they held). */
  dropUpTo(n: number): void {
    for (const log of listLogs(this.path)) if (log.n <= n) rmSync(log.file, { force: true });
  }

  close(): void {
    if (this.fd === undefined) return;
    this.watcher?.close();
    this.watcher = undefined;
    closeSync(this.fd);
    this.fd = undefined;
  }
}

/** Writes all of `data` at `position` of `fd` (from the thread pool). */
function write(fd: number, data: Buffer, position: number, done: (e: NodeJS.ErrnoException | null) => void): void {
  fsWrite(fd, data, 0, data.length, position, (e, n) => {
    if (e || n === data.length) return done(e);
    write(fd, data.subarray(n), position + n, done);
  });
}

/** Makes a new file's name durable; folders cannot be opened for syncing everywhere (Windows), where this does nothing. */
function syncFolder(path: string): void {
  try {
    const fd = openSync(dirname(path), "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // not supported here
  }
}
