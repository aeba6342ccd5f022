import { closeSync, fdatasync, fdatasyncSync, fsyncSync, openSync, readdirSync, readFileSync, rmSync, write as fsWrite, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { Change } from "./change-tracker.js";
import { waiting, type Waiting } from "../util/waiting.js";

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
 * Reads the logs' records (one JSON line per batch of changes). A last record without its end of line, or that
 * does not parse, is what a crash in the middle of an append leaves: it is ignored and reported through `warn`,
 * as is anything after a damaged record inside a file (which only damage to the file itself leaves).
 */
export function readLogs(logs: LogFile[], warn: (line: string) => void): Change[][] {
  const batches: Change[][] = [];
  for (const { file } of logs) {
    const text = readFileSync(file, "utf8");
    let at = 0;
    let record = 0;
    while (at < text.length) {
      const end = text.indexOf("\n", at);
      record++;
      const line = end === -1 ? text.slice(at) : text.slice(at, end);
      let batch: Change[] | undefined;
      try {
        batch = end === -1 ? undefined : (JSON.parse(line) as Change[]);
      } catch {
        batch = undefined;
      }
      if (!Array.isArray(batch)) {
        const last = end === -1 || end === text.length - 1;
        warn(
          last
            ? `chat-emulator: warning: ${file}: the last change record (${record}, ${line.length} bytes) is incomplete, cut off by a crash while it was written; it is ignored (the request it belonged to was never answered).`
            : `chat-emulator: warning: ${file}: change record ${record} is damaged; it and the ${text.length - at} bytes after it are ignored.`,
        );
        break;
      }
      batches.push(batch);
      at = end + 1;
    }
  }
  return batches;
}

/**
 * The append-only change log of a data file. `written()` collects the changes made since the last write (from
 * `collect`) and hands them to a write in the background (Node's thread pool, so the event loop never waits on
 * the disk); its promise, which answers wait for, resolves once they are in the operating system's hands (with
 * `fsync`, on the disk): from then on a kill of the process cannot lose them. While a write is in flight, callers
 * wait for the next one, which collects everything changed meanwhile: one look for changes and one write for them all.
 * `writeNow()` does the same at once, for callers that cannot wait.
 * Each batch has its place in the file from the moment it is appended (positional writes), so writes that
 * complete out of order, or a batch written twice, leave the same file. `rotate` starts a new file for what
 * follows; once a checkpoint holding everything before the rotation is on disk, `dropUpTo` deletes the files it
 * covers. A file is created at its first append only.
 */
export class ChangeLog {
  private fd: number | undefined;
  /** Bytes appended to the current file (the place of the next batch). */
  size = 0;
  /** Batches appended but not yet known to be written, from the file's place `from`. */
  private queued: Buffer[] = [];
  private from = 0;
  /** The write in flight, and the promise that the queue as it stands will be written. */
  private inFlight: Promise<void> | undefined;
  private next: Waiting | undefined;
  /** Why the last write failed (reported by the owner; the batches stay queued for the next write). */
  onError: (e: unknown) => void = () => {};

  constructor(
    private readonly path: string,
    private n: number,
    private readonly fsync: boolean,
    /** The changes made since it was last called (none: an empty list). */
    private readonly collect: () => Change[],
  ) {}

  /** The file the next append goes to. */
  get file(): string {
    return `${this.path}.changes-${this.n}`;
  }

  /** Queues the changes made since the last call as one batch (one line of the file). */
  private gather(): void {
    const changes = this.collect();
    if (changes.length === 0) return;
    const bytes = Buffer.from(JSON.stringify(changes) + "\n");
    this.queued.push(bytes);
    this.size += bytes.length;
  }

  /** Resolves once every change made so far is written; undefined when there is nothing to wait for. */
  written(): Promise<void> | undefined {
    if (!this.inFlight) {
      this.gather();
      if (this.queued.length === 0) return undefined;
    }
    this.next ??= waiting();
    const { promise } = this.next;
    if (!this.inFlight) this.start();
    return promise;
  }

  /** Writes what is queued (and what changed since), from the thread pool; then starts the next write if one is awaited. */
  private start(): void {
    const done = this.next;
    this.next = undefined;
    this.gather();
    if (this.queued.length === 0) return done?.resolve();
    const bytes = this.take();
    this.inFlight = new Promise<void>((resolve) => {
      const finish = (e: unknown) => {
        if (e) {
          this.onError(e);
          this.queued.unshift(bytes.data); // written again with the next batch, at the same place
          this.from = bytes.at;
        }
        resolve();
      };
      let fd: number;
      try {
        fd = this.open();
      } catch (e) {
        finish(e);
        return;
      }
      write(fd, bytes.data, bytes.at, (e) => {
        if (e || !this.fsync) return finish(e);
        fdatasync(fd, finish);
      });
    }).then(() => {
      this.inFlight = undefined;
      done?.resolve();
      if (this.next) this.start();
    });
  }

  /** The queued bytes and their place in the file; the queue is empty after. */
  private take(): { data: Buffer; at: number } {
    const data = this.queued.length === 1 ? this.queued[0] : Buffer.concat(this.queued);
    const at = this.from;
    this.queued = [];
    this.from += data.length;
    return { data, at };
  }

  /** Writes every change made so far before returning (a write in flight may land again on the same bytes). */
  writeNow(): void {
    this.gather();
    if (this.queued.length === 0) return;
    const fd = this.open();
    const bytes = this.take();
    for (let done = 0; done < bytes.data.length; ) done += writeSync(fd, bytes.data, done, bytes.data.length - done, bytes.at + done);
    if (this.fsync) fdatasyncSync(fd);
    const next = this.next;
    this.next = undefined;
    next?.resolve();
  }

  private open(): number {
    if (this.fd === undefined) {
      this.fd = openSync(this.file, "w");
      if (this.fsync) syncFolder(this.path);
    }
    return this.fd;
  }

  /** Writes every change made so far, then closes the current file: what follows goes to a new one. Resolves with the number of the file closed. */
  async rotate(): Promise<number> {
    while (this.inFlight) await this.inFlight;
    this.writeNow();
    this.close();
    this.size = 0;
    this.from = 0;
    return this.n++;
  }

  /** Deletes the files numbered `n` and below (a checkpoint now holds what they held). */
  dropUpTo(n: number): void {
    for (const log of listLogs(this.path)) if (log.n <= n) rmSync(log.file, { force: true });
  }

  close(): void {
    if (this.fd === undefined) return;
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
