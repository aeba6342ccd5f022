import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { Low } from "lowdb";
import { DataFile } from "lowdb/node";
import { ChangeLog, listLogs, readLogs } from "./change-log.js";
import { applyChanges, ChangeTracker } from "./change-tracker.js";
import { parseSavedState, SeedError } from "./seed.js";
import { probeWritable, removeStaleTemps, writeStateFile } from "./state-writer.js";
import type { Store } from "./store.js";
import type { StateData } from "./types.js";

export class PersistenceError extends Error {}

/**
 * Makes sure the state can be written to `path` later (missing folders created, temporary files a killed run left
 * beside it removed); refuses with PersistenceError at once rather than when the state is due.
 */
export async function prepareWritable(path: string): Promise<void> {
  try {
    await mkdir(dirname(path), { recursive: true });
    await removeStaleTemps(path);
    await probeWritable(path);
  } catch (e) {
    throw new PersistenceError(`${path}: cannot be written (${(e as Error).message}).`);
  }
}

/** The longest pause between two writes of a large state. */
const MAX_REST_MS = 2000;
/** After a failed save, the next attempt comes this long after (changes meanwhile do not hurry it). */
const RETRY_MS = 1000;

/**
 * `--data FILE`: loaded through lowdb at start, with the change logs beside it replayed (change-log.ts). Every
 * committed change is then appended to the change log before its answer leaves: `commit()` runs when the first
 * answer of an event-loop turn is written (see server.ts), so the changes of every request of that turn go in
 * one append, and a kill -9 loses nothing acknowledged. The whole state is written in the background as a
 * checkpoint by `writeStateFile` (streamed in chunks so a large state never blocks requests; temp file + rename,
 * so a crash never leaves a half-written file): the log is rotated first, and the log files the checkpoint
 * covers are deleted once it is on disk. Bursts of changes coalesce into one checkpoint; `flush()` waits until
 * everything acknowledged so far is in the data file itself. A failed save is loud: a line on stderr each time
 * (even when quiet), `problem` (health answers `degraded`), a retry every second, and `flush()` (the final save)
 * rejects.
 */
export class Persistence {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  private dirty = false;
  private flushing = false;
  /** Cuts the rest between two writes short (a flush is waiting). */
  private wake: (() => void) | undefined;
  private readonly unsubscribe: () => void;
  /** Why the last save failed; undefined once a save succeeds. */
  problem: string | undefined;
  /** Changes not yet in the change log; `commit()` appends them. */
  private pending = false;
  private committing: NodeJS.Immediate | undefined;
  private tracker: ChangeTracker | undefined;
  private readonly changes: ChangeLog;

  private constructor(
    private readonly path: string,
    private readonly store: Store,
    private readonly delayMs: number,
    private readonly log: (line: string) => void,
    fsync: boolean,
  ) {
    this.changes = new ChangeLog(path, (listLogs(path).at(-1)?.n ?? 0) + 1, fsync);
    this.unsubscribe = store.onChange(() => this.changed());
  }

  /**
   * Loads `path` into the store (a missing or empty file is created from the current state, missing folders
   * included). Refuses with PersistenceError when the file cannot be written; `log` gets the save failures.
   */
  static async open(
    path: string,
    store: Store,
    opts: { now: number; delayMs?: number; log?: (line: string) => void; fsync?: boolean },
  ): Promise<Persistence> {
    await prepareWritable(path);
    const file = new DataFile<StateData | null>(path, {
      parse: (text) => (text.trim() === "" ? null : (JSON.parse(text) as StateData)),
      stringify: (data) => JSON.stringify(data),
    });
    const db = new Low<StateData | null>(file, null);
    try {
      await db.read();
    } catch (e) {
      const reason = e instanceof SyntaxError ? `is not valid JSON (${e.message})` : `cannot be read (${String(e)})`;
      throw new PersistenceError(`${path}: ${reason}; the file was left untouched.`);
    }
    const log = opts.log ?? (() => {});
    const persistence = new Persistence(path, store, opts.delayMs ?? 20, log, opts.fsync ?? false);
    let saved = db.data;
    const logs = listLogs(path);
    if (logs.length > 0) {
      // What the last run acknowledged after its last checkpoint, replayed onto the data file (or, when it never
      // wrote one, onto the state it started from); the checkpoint below then deletes the logs.
      saved ??= JSON.parse(JSON.stringify(store.toData())) as StateData;
      for (const batch of readLogs(logs, log)) applyChanges(saved, batch);
    }
    if (saved) {
      try {
        const { apps, births } = parseSavedState(saved, opts.now, path);
        store.replace(apps, births);
      } catch (e) {
        persistence.close();
        if (e instanceof SeedError) throw new PersistenceError(`${e.message}; the file was left untouched.`);
        throw e;
      }
    }
    persistence.tracker = new ChangeTracker(store);
    persistence.pending = false;
    if (!db.data || logs.length > 0) {
      persistence.dirty = true;
      await persistence.kick();
      if (persistence.problem) {
        persistence.close();
        throw new PersistenceError(`${path}: cannot be written (${persistence.problem}).`);
      }
    }
    return persistence;
  }

  /** A committed change: into the change log before any answer leaves (at the latest at the end of this turn), into a checkpoint later. */
  private changed(): void {
    this.pending = true;
    this.committing ??= setImmediate(() => this.commit());
    this.schedule();
  }

  /**
   * Appends the changes committed since the last call to the change log, in one write. Runs before an answer is
   * written (server.ts) and at the end of every turn with changes; costs nothing when there is nothing to append.
   */
  commit(): void {
    if (!this.pending || !this.tracker) return;
    this.pending = false;
    clearImmediate(this.committing);
    this.committing = undefined;
    try {
      this.changes.append(this.tracker.take());
    } catch (e) {
      // The next checkpoint still writes everything; until one succeeds, a crash would lose these changes.
      this.failed(e); // the error names the log file
    }
  }

  private schedule(): void {
    this.dirty = true;
    if (!this.timer && !this.running) this.timer = setTimeout(() => void this.kick(), this.delayMs);
  }

  private failed(e: unknown): void {
    this.problem = `could not save the data file ${this.path}: ${(e as Error).message ?? String(e)}`;
    this.log(`chat-emulator: error: ${this.problem}; acknowledged writes are not on disk, retrying in ${RETRY_MS / 1000} s.`);
    this.dirty = true;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.kick(), RETRY_MS);
  }

  private kick(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.running ??= this.loop().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async loop(): Promise<void> {
    while (this.dirty) {
      this.dirty = false;
      const started = performance.now();
      try {
        // Everything logged so far goes into this checkpoint; what follows goes to the next log file.
        this.commit();
        const covered = this.changes.rotate();
        await writeStateFile(this.path, this.store.toData());
        this.changes.dropUpTo(covered);
        if (this.problem) this.log(`chat-emulator: the data file ${this.path} is saved again.`);
        this.problem = undefined;
      } catch (e) {
        this.failed(e);
        return; // the retry timer takes over
      }
      // A big state takes a while to write; resting ten times as long before the next write keeps saving to a
      // small share of the CPU under a stream of changes (flush() and close() do not wait for the rest).
      const rest = Math.min(MAX_REST_MS, 10 * (performance.now() - started));
      if (this.dirty && rest > this.delayMs && !this.flushing)
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, rest);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      this.wake = undefined;
    }
  }

  /** Resolves once every change made before the call is written; rejects when that save fails. */
  async flush(): Promise<void> {
    this.commit();
    this.flushing = true;
    this.wake?.();
    try {
      if (this.running) await this.running;
      if (this.dirty) await this.kick();
    } finally {
      this.flushing = false;
    }
    if (this.problem) throw new PersistenceError(this.problem);
  }

  close(): void {
    this.commit();
    clearTimeout(this.timer);
    clearImmediate(this.committing);
    this.unsubscribe();
    this.changes.close();
  }
}
