import { closeSync, fdatasyncSync, fsyncSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from "node:fs";
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
 * The append-only change log of a data file. `append` writes a batch of changes with one write() (and, with
 * `fsync`, waits until the disk has it): once it returns, a kill of the process cannot lose the batch. `rotate`
 * starts a new file for what follows; once a checkpoint holding everything before the rotation is on disk,
 * `dropUpTo` deletes the files it covers. A file is created at its first append only.
 */
export class ChangeLog {
  private fd: number | undefined;
  /** Bytes appended to the current file. */
  size = 0;

  constructor(
    private readonly path: string,
    private n: number,
    private readonly fsync: boolean,
  ) {}

  /** The file the next append goes to. */
  get file(): string {
    return `${this.path}.changes-${this.n}`;
  }

  append(changes: Change[]): void {
    if (changes.length === 0) return;
    const bytes = Buffer.from(JSON.stringify(changes) + "\n");
    if (this.fd === undefined) {
      this.fd = openSync(this.file, "a");
      if (this.fsync) syncFolder(this.path);
    }
    for (let at = 0; at < bytes.length; ) at += writeSync(this.fd, bytes, at);
    this.size += bytes.length;
    if (this.fsync) fdatasyncSync(this.fd);
  }

  /** Closes the current file; what follows goes to a new one. Returns the number of the last file closed. */
  rotate(): number {
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
    closeSync(this.fd);
    this.fd = undefined;
  }
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
