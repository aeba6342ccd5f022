import { mkdir, open as openFile, stat } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { ChangeLog, listLogs, replayLogs, ReplayError, SetAside, unappliable, type Gathered, type LinePlace, type LogFile, type Unapplied } from "./change-log.js";
import { ChangeTracker, Replay, type Change } from "./change-tracker.js";
import { acquireDataLock, type DataLock } from "./data-lock.js";
import { documentKind, newerFormat, parseSavedState, SeedError } from "./seed.js";
import { DocumentError, materialize, readDocumentFile } from "./state-reader.js";
import { probeWritable, removeStaleTemps, writeStateFile, writeStateFileSync } from "./state-writer.js";
import type { Store } from "./store.js";
import type { StateData } from "./types.js";
import { waiting, type Waiting } from "../util/waiting.js";

export class PersistenceError extends Error {}

/**
 * A write that cannot be kept, so not made: the change log (or the checkpoint a bulk change waits for) could not
 * be written. `file` names what could not be written, `why` the system's code for it (ENOSPC, EACCES, EROFS, ...).
 */
export class WriteRefused extends Error {
  constructor(
    readonly file: string,
    readonly why: string,
  ) {
    super(`${file} cannot be written (${why})`);
  }
}

const whyOf = (e: unknown) => (e as NodeJS.ErrnoException).code ?? (e as Error).message ?? String(e);

interface OpenOptions {
  now: number;
  delayMs?: number;
  log?: (line: string) => void;
  fsync?: boolean;
  /** `verify` (tests): see ChangeTracker. */
  verify?: boolean;
  /** Set aside the change-log lines that cannot be applied instead of refusing the start (`--recover`). */
  recover?: boolean;
}

/** Writes the lines a replay set aside, byte for byte, to the first free `FILE.damaged-<n>`; answers its name. */
async function keepAside(path: string, lines: Unapplied[]): Promise<string> {
  for (let n = 1; ; n++) {
    const name = `${path}.damaged-${n}`;
    const file = await openFile(name, "wx").catch((e: NodeJS.ErrnoException) => {
      if (e.code === "EEXIST") return undefined;
      throw new PersistenceError(`${name}: cannot be written (${e.message}); nothing was changed.`);
    });
    if (!file) continue;
    try {
      for (const u of lines) await file.write(u.bytes);
      await file.sync();
    } finally {
      await file.close();
    }
    return name;
  }
}

/**
 * Makes sure the state can be written to `path` later (missing folders created, temporary files a killed run left
 * beside it removed); refuses with PersistenceError at once rather than when the state is due.
 */
export async function prepareWritable(path: string): Promise<void> {
  try {
    await makeFolders(dirname(path));
    await removeStaleTemps(path);
    await probeWritable(path);
  } catch (e) {
    throw new PersistenceError(`${path}: cannot be written (${(e as Error).message}).`);
  }
}

/**
 * `mkdir -p`, a level at a time: Node's recursive mkdir never returns on some paths (`/proc/nope` spins at 100 %
 * CPU), where this fails at the first level that cannot be made.
 */
export async function makeFolders(dir: string): Promise<void> {
  const missing: string[] = [];
  for (let at = dir; ; at = dirname(at)) {
    const found = await stat(at).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== "ENOENT" || dirname(at) === at) throw e;
      return undefined;
    });
    if (found?.isDirectory()) break;
    if (found) throw new Error(`${at} is not a folder`);
    missing.push(at);
  }
  for (const folder of missing.reverse())
    await mkdir(folder).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== "EEXIST") throw e;
    });
}

/**
 * What `--data` finds at `path`: nothing to load (a missing or empty file) or a state file's document. Anything
 * else is refused with PersistenceError before anything is written: --data overwrites the file, so it only takes
 * one that is ours.
 */
async function readDataFile(path: string): Promise<unknown> {
  const refuse = (why: string) => new PersistenceError(`${path}: ${why}; the file was left untouched.`);
  let doc: unknown;
  try {
    doc = await readDocumentFile(path);
  } catch (e) {
    // Missing (the folder too, or a file where a folder should be): nothing to load; prepareWritable judges the path.
    if (["ENOENT", "ENOTDIR"].includes((e as NodeJS.ErrnoException).code ?? "")) return undefined;
    if (e instanceof DocumentError) throw refuse(e.message);
    throw refuse(`cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  if (doc === undefined) return undefined;
  const kind = documentKind(doc);
  if (kind === "seed") throw refuse("this is a seed file: did you mean --seed or --import? (--data takes a state file, which it overwrites)");
  const newer = newerFormat(doc);
  if (newer) throw refuse(`was written by a newer chat-emulator (format ${newer}; this version reads chat-emulator/state@1): start it with that version`);
  if (kind !== "state") throw refuse('is not a chat-emulator state file (it has no "format": "chat-emulator/state@1"), and --data overwrites its file');
  return doc;
}

/**
 * A checkpoint is due once the change log since the last one has grown to the size of the data file (at least
 * this many bytes): the cost of rewriting the whole state is then spread over as many bytes of changes as it
 * writes, and a replay after a crash reads at most about as much log as state.
 */
const MIN_LOG_BYTES = 4 * 1024 * 1024;
/** After a checkpoint, one for a pause in the changes waits ten times as long as it took, at most this long. */
const MAX_REST_MS = 2000;
/** After a failed save, the next attempt comes this long after (changes meanwhile do not hurry it). */
const RETRY_MS = 1000;
/**
 * A whole app with more messages than this (created, replaced, restored, reset) is not written to the change log
 * (one line as large as the app, serialized at once): answers wait for a checkpoint holding it instead.
 */
const BULK_MESSAGES = 10_000;

const isBulk = (c: Change) =>
  (c[0] === "app" && c[1].messages.length > BULK_MESSAGES) || (c[0] === "set" && c[2] === "messages" && (c[3] as unknown[]).length > BULK_MESSAGES);

type Loaded = ReturnType<typeof parseSavedState>;

/** The apps of saved state data, or why it does not load (a SeedError or DocumentError naming `source`). */
function loadable(state: unknown, now: number, source: string): Loaded | SeedError | DocumentError {
  try {
    return parseSavedState(state, now, source);
  } catch (e) {
    if (e instanceof SeedError || e instanceof DocumentError) return e;
    throw e;
  }
}

/**
 * The replay of the change logs a killed run left, onto the data file's state (or the state the emulator starts
 * from). A line may apply and still leave a state that does not load (a part of an app of the wrong shape): the
 * first such line is found by replaying part of the logs again (`firstUnloadable`, on a failed start only), and
 * refused, or with `--recover` set aside like any other line that cannot be applied.
 */
class LogReplay {
  private readonly aside = new SetAside();
  constructor(
    private readonly path: string,
    private readonly store: Store,
    private readonly logs: LogFile[],
    /** The document read at start, for the first replay (a replay changes its state in place). */
    private first: unknown,
    private readonly opts: OpenOptions,
  ) {}

  /** The loaded state and the lines set aside, or why the data file itself does not load. */
  async load(warn: (line: string) => void): Promise<{ loaded: Loaded | SeedError | DocumentError; unapplied: Unapplied[] }> {
    for (;; warn = () => {}) {
      let run: Awaited<ReturnType<LogReplay["run"]>>;
      try {
        run = await this.run({ warn });
      } catch (e) {
        if (e instanceof DocumentError) return { loaded: e, unapplied: [] }; // a large part of the file does not parse
        throw e;
      }
      const loaded = loadable(run.state, this.opts.now, this.path);
      if (!(loaded instanceof Error)) return { loaded, unapplied: run.unapplied };
      const culprit = await this.firstUnloadable(run.applied, loaded);
      if (!culprit) return { loaded, unapplied: [] };
      if (!this.opts.recover) throw new PersistenceError(unappliable(culprit.at, culprit.why).message);
      this.aside.add(culprit.at, culprit.why);
    }
  }

  /** A fresh copy of the state the logs apply to. */
  private async base(): Promise<StateData> {
    const doc = this.first ?? (await readDataFile(this.path));
    this.first = undefined;
    return (doc === undefined ? JSON.parse(JSON.stringify(this.store.toData())) : materialize(doc)) as StateData;
  }

  /** The state with the logs' lines replayed onto it (up to `until`), the lines set aside and those applied. */
  private async run(opts: { warn: (line: string) => void; until?: LinePlace }): Promise<{ state: StateData; unapplied: Unapplied[]; applied: LinePlace[] }> {
    const state = await this.base();
    const replay = new Replay(state);
    const applied: LinePlace[] = [];
    let unapplied: Unapplied[];
    try {
      unapplied = replayLogs(this.logs, (changes) => replay.line(changes), { ...opts, recover: this.opts.recover, aside: this.aside, applied });
    } catch (e) {
      if (e instanceof ReplayError) throw new PersistenceError(e.message);
      throw new PersistenceError(`${this.path}: its change logs cannot be read (${(e as Error).message}); the files were left untouched.`);
    }
    replay.finish();
    return { state, unapplied, applied };
  }

  /**
   * Of the lines `applied` (in order), the first with which the state does not load, and why; undefined when it
   * does not load without any of them (the data file itself is at fault). A bisection: each step replays.
   */
  private async firstUnloadable(applied: LinePlace[], why: Error): Promise<{ at: LinePlace; why: string } | undefined> {
    const problem = async (lines: number) => {
      const state = lines === 0 ? await this.base() : (await this.run({ warn: () => {}, until: applied[lines - 1] })).state;
      const loaded = loadable(state, this.opts.now, this.path);
      return loaded instanceof Error ? loaded : undefined;
    };
    if (applied.length === 0 || (await problem(0))) return undefined;
    let good = 0;
    let bad = applied.length;
    while (bad - good > 1) {
      const mid = (good + bad) >> 1;
      const found = await problem(mid);
      if (found) [bad, why] = [mid, found];
      else good = mid;
    }
    const detail = why instanceof SeedError && why.path ? `${why.path} ${why.problem}` : why.message;
    return { at: applied[bad - 1], why: `with it, the state does not load: ${detail}` };
  }
}

/**
 * What is on disk for `path` (the data file with its change logs replayed, as a start reads it), for `undo`: throws
 * when it does not load, or when the data file is gone.
 */
async function onDisk(path: string, store: Store, now: number): Promise<Loaded> {
  const doc = await readDataFile(path);
  if (doc === undefined) throw new Error("the data file is gone");
  const logs = listLogs(path);
  const { loaded } = logs.length > 0 ? await new LogReplay(path, store, logs, doc, { now }).load(() => {}) : { loaded: loadable(doc, now, path) };
  if (loaded instanceof Error) throw loaded;
  return loaded;
}

/**
 * `--data FILE`: loaded at start a part at a time (state-reader.ts), with the change logs beside it replayed (change-log.ts). Every
 * committed change is then written to the change log before its answer leaves: answers wait for `hold()` (see
 * lane.ts and server.ts), and the answers waiting together share one look for changes (change-tracker.ts) and one write,
 * so a kill -9 loses nothing acknowledged. The whole state is written in the background as a
 * checkpoint by `writeStateFile` (streamed in chunks so a large state never blocks requests; temp file + rename,
 * so a crash never leaves a half-written file): the log is rotated first, and the log files the checkpoint
 * covers are deleted once it is on disk. A checkpoint comes when the changes pause (none for `delayMs`, and a
 * rest after the last checkpoint in proportion to what it cost), or under a steady stream of changes when the log
 * has grown to the size of the state (MIN_LOG_BYTES); `flush()` waits until everything acknowledged so far is in
 * the data file itself. A failed save is loud: a line on stderr each time
 * (even when quiet), `problem` (health answers `degraded`), a retry every second, and `flush()` (the final save)
 * rejects.
 *
 * A write the change log cannot hold is not acknowledged, as in a database: its answers are refused
 * (WriteRefused: 503 ERR_STORAGE_UNAVAILABLE), memory goes back to what is on disk (`undo`), and the domain events
 * of its changes, which wait for their write (events.ts), are never sent. Until a checkpoint succeeds again
 * (tried every second), `refusing` says why and every write is refused before it runs (app.ts); reads go on.
 */
export class Persistence {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  private dirty = false;
  private flushing = false;
  /** Changes counted, and the count the timer saw last: equal when the changes paused. */
  private count = 0;
  private seen = 0;
  /** The size of the data file as last written: the change log may grow as large before a checkpoint. */
  private stateBytes = 0;
  /** No checkpoint for a pause before this (performance.now()); see MAX_REST_MS. */
  private restUntil = 0;
  private closed = false;
  private readonly unsubscribe: () => void;
  /** Why the last save failed; undefined once a save succeeds. */
  problem: string | undefined;
  /** A checkpoint every answer waits for (a bulk change, see BULK_MESSAGES). */
  private bulk: Promise<void> | undefined;
  /** Changes not yet in the change log; its next write collects them. */
  private pending = false;
  /** The write at the end of the event-loop turn of the first change not yet written (see `hold`). */
  private committing: NodeJS.Immediate | undefined;
  /** Answers waiting for that write; and those waiting for the write in flight (with `fsync`). */
  private turn: Waiting | undefined;
  private inWrite: Waiting | undefined;
  /** Why writes are refused: a change-log write failed, and no checkpoint has succeeded since. */
  refusing: WriteRefused | undefined;
  /** Answers waiting for changes that were refused: refused once memory is back to what is on disk (`undo`). */
  private refused: [Waiting, WriteRefused][] = [];
  private undoing: Promise<void> | undefined;
  /** While `undo` puts back what is on disk: that is no change to keep. */
  private reloading = false;
  private tracker: ChangeTracker | undefined;
  /** Whether the data file holds a state the change log's records apply to (see `writeBase`). */
  private based = true;
  private readonly changes: ChangeLog;
  /** Whether change logs were replayed at load (a checkpoint at start retires them), and the lines set aside. */
  private replayed = false;
  private unapplied: Unapplied[] = [];
  private lock: DataLock | undefined;

  private constructor(
    private readonly path: string,
    private readonly store: Store,
    private readonly delayMs: number,
    private readonly log: (line: string) => void,
    private readonly fsync: boolean,
    private readonly verify: boolean,
  ) {
    this.changes = new ChangeLog(path, (listLogs(path).at(-1)?.n ?? 0) + 1, fsync, () => this.collect());
    this.unsubscribe = store.onChange(() => this.changed());
    store.events.holdUntilKept(() => this.eventHeld());
  }

  /**
   * Loads `path` into the store and starts saving to it: `load`, then `start` (see both). Refuses with
   * PersistenceError, writing nothing, what `load` refuses.
   */
  static async open(path: string, store: Store, opts: OpenOptions): Promise<Persistence> {
    const persistence = await Persistence.load(path, store, opts);
    try {
      await persistence.start();
    } catch (e) {
      persistence.close(); // and its lock
      throw e;
    }
    return persistence;
  }

  /**
   * Loads `path` into the store, reading only: a state file, or nothing from a missing or empty one, with the change
   * logs a killed run left replayed onto it. Refuses with PersistenceError a file that is not a state file, a state
   * or log of a newer format, and a log line the replay cannot apply (unless `recover`, which sets it aside).
   * It takes the file's lock first (data-lock.ts); nothing else is written until `start()`, which the caller runs
   * once its port is bound.
   */
  static async load(path: string, store: Store, opts: OpenOptions): Promise<Persistence> {
    const log = opts.log ?? (() => {});
    // One process owns a data file: its lock comes before anything of it is read (see data-lock.ts).
    const lock = await acquireDataLock(path, log);
    try {
      const persistence = await Persistence.read(path, store, opts, log);
      persistence.lock = lock;
      return persistence;
    } catch (e) {
      lock.release();
      throw e;
    }
  }

  private static async read(path: string, store: Store, opts: OpenOptions, log: (line: string) => void): Promise<Persistence> {
    const doc = await readDataFile(path);
    const logs = listLogs(path);
    // What the last run acknowledged after its last checkpoint, replayed onto the data file (or, when it never
    // wrote one, onto the state it started from); the checkpoint at start then deletes the logs.
    const { loaded, unapplied } =
      logs.length > 0 ? await new LogReplay(path, store, logs, doc, opts).load(log) : { loaded: doc === undefined ? undefined : loadable(doc, opts.now, path), unapplied: [] };
    if (loaded instanceof SeedError) throw new PersistenceError(`${loaded.message}; the file was left untouched.`);
    if (loaded instanceof DocumentError) throw new PersistenceError(`${path}: ${loaded.message}; the file was left untouched.`);
    if (loaded) store.replace(loaded.apps, loaded.births);
    // Listening starts after the load: the state just read from the file is not a change to write back.
    const persistence = new Persistence(path, store, opts.delayMs ?? 20, log, opts.fsync ?? false, opts.verify ?? false);
    persistence.stateBytes = (await stat(path).catch(() => undefined))?.size ?? 0;
    persistence.tracker = new ChangeTracker(store, opts.verify);
    persistence.based = loaded !== undefined;
    persistence.replayed = logs.length > 0;
    persistence.unapplied = unapplied;
    return persistence;
  }

  /**
   * The first writes: the path made writable (missing folders, temporary files a killed run left), the lines the
   * replay set aside kept in `FILE.damaged-<n>`, and, when logs were replayed, a checkpoint that deletes them.
   * No request may be answered before it ends (server.ts holds them).
   */
  async start(): Promise<void> {
    await prepareWritable(this.path);
    if (this.unapplied.length > 0) {
      const kept = await keepAside(this.path, this.unapplied);
      const lines = this.unapplied.map((u) => `${basename(u.file)} line ${u.line} (${u.why})`).join("; ");
      this.log(`chat-emulator: --recover: ${this.unapplied.length} change-log line(s) that cannot be applied were moved to ${kept}, byte for byte, and left out: ${lines}.`);
      this.unapplied = [];
    }
    if (this.replayed) {
      this.dirty = true;
      await this.kick();
      if (this.problem) {
        this.close();
        throw new PersistenceError(`${this.path}: cannot be written (${this.problem}).`);
      }
    }
  }

  /** A committed change: into the change log before any answer leaves (at the latest at the end of this turn), into a checkpoint later. */
  private changed(): void {
    if (this.reloading) return;
    if (!this.based) return this.writeBase();
    this.pending = true;
    if (this.refusing) return void this.undoSoon();
    this.committing ??= setImmediate(() => this.holdNow());
    this.schedule();
  }

  /**
   * A domain event waits for the write of its changes: one comes at the end of this turn, with or without changes.
   * While refusing, it waits for the end of the refusal, unless its changes are undone (and it with them).
   */
  private eventHeld(): void {
    if (!this.refusing) this.committing ??= setImmediate(() => this.holdNow());
  }

  /**
   * The first change of a run whose data file held no state: the whole state, that change included, is written at
   * once, as the base the change log's later records apply to (another start from the same seed may not give the
   * same state: generated ids). Until this first change the file is left as it was, or absent.
   */
  private writeBase(): void {
    this.tracker?.take(); // in the base
    try {
      this.stateBytes = writeStateFileSync(this.path, this.store.toData());
      this.based = true;
    } catch (e) {
      // Its answers are refused; with nothing on disk to go back to, memory keeps the change (`undo` says so).
      this.pending = true;
      void this.refuse(new WriteRefused(this.path, whyOf(e)));
    }
  }

  /**
   * The changes committed since the last call, for the change log's write that follows at once (synchronously):
   * the answers waiting for them are released (they leave after that write, in a later microtask).
   */
  private collect(): Gathered | undefined {
    clearImmediate(this.committing);
    this.committing = undefined;
    // While refusing, what changes is undone, not written (see `undo`).
    if (this.refusing || !this.tracker) return undefined;
    const events = this.store.events.take();
    if (!this.pending && !this.turn && events.length === 0) return undefined;
    const turn = (this.inWrite = this.turn ?? waiting());
    this.turn = undefined;
    let changes: Change[] = [];
    if (this.pending) {
      this.pending = false;
      changes = this.tracker.take();
      if (changes.some(isBulk)) changes = this.bulkAside(changes);
    }
    // A bulk change not yet in a checkpoint: these answers and events wait for it too.
    const bulk = this.bulk;
    const kept = () => {
      this.store.events.release(events);
      turn.resolve();
    };
    return {
      changes,
      settle: (e) => {
        if (this.inWrite === turn) this.inWrite = undefined;
        if (e) return void this.refuse(new WriteRefused(this.changes.file, whyOf(e)), turn); // its events are never sent
        if (bulk) bulk.then(kept, (refusal) => turn.reject(refusal));
        else kept();
      },
    };
  }

  /**
   * The changes without the bulk ones: until a checkpoint holds those, a replay of the log would miss them, so every
   * answer waits for that checkpoint; one that fails refuses them.
   */
  private bulkAside(changes: Change[]): Change[] {
    const bulk: Promise<void> = (this.bulk ?? Promise.resolve())
      .then(() => this.flush())
      .catch(async (e) => {
        const refusal = new WriteRefused(this.path, whyOf(e));
        await this.refuse(refusal);
        throw refusal;
      })
      .finally(() => {
        if (this.bulk === bulk) this.bulk = undefined;
      });
    bulk.catch(() => {}); // answers that wait for it see the refusal; nothing else does
    this.bulk = bulk;
    return changes.filter((c) => !isBulk(c));
  }

  /**
   * What an answer waits for (server.ts): the changes committed so far written to the change log; undefined when
   * there is nothing to wait for. Without `fsync`, the answers wait for one write at the end of the event-loop
   * turn (an append to the kernel's page cache takes microseconds): the answers of a turn share it, with one look
   * for changes, and leave together. With `fsync` the disk's wait goes to the thread pool, shared by every answer
   * waiting meanwhile. It rejects (WriteRefused) when the write fails: the answer is then a refusal (see `refuse`).
   */
  hold(): Promise<void> | undefined {
    let written: Promise<void> | undefined;
    if (this.pending) {
      written = (this.turn ??= waiting()).promise;
      if (this.fsync && !this.refusing) this.changes.writeSoon();
    } else written = this.inWrite?.promise;
    const bulk = this.bulk;
    if (!bulk) return written;
    return written ? written.then(() => bulk) : bulk;
  }

  /** `hold` for an answer that cannot wait: the changes are written (or refused) before this returns. */
  holdNow(): void {
    this.changes.writeNow();
  }

  /**
   * A write that could not be kept: its answers (`waiter`) are refused once memory is back to what is on disk,
   * and from now on every write is refused before it runs, until a checkpoint succeeds (retried every second).
   * Resolves once the answers are refused.
   */
  private refuse(refusal: WriteRefused, waiter?: Waiting): Promise<void> {
    if (waiter) this.refused.push([waiter, refusal]);
    if (!this.refusing) {
      this.refusing = refusal;
      this.problem = `writes are refused: ${refusal.message}`;
      this.log(
        `chat-emulator: error: could not save the data file ${this.path}: ${refusal.message}; writes are refused (503 ERR_STORAGE_UNAVAILABLE) until it can be written, retrying in ${RETRY_MS / 1000} s.`,
      );
      this.retry();
    }
    return this.undoSoon();
  }

  /** `undo`, once for everything refused so far, after the checkpoint in progress (which does not write it, see `loop`). */
  private undoSoon(): Promise<void> {
    this.undoing ??= (this.running ?? Promise.resolve())
      .then(() => this.undo())
      .finally(() => {
        this.undoing = undefined;
      });
    return this.undoing;
  }

  /**
   * While refusing: memory back to what is on disk, the data file with its change logs read as a start reads them,
   * so that what was refused, and what changed since (a WebSocket receipt, a write already running), is gone with
   * the events waiting for it; then the answers waiting for it are refused. A checkpoint that succeeded meanwhile
   * ended the refusal: what changed since goes to the log as any change.
   */
  private async undo(): Promise<void> {
    if (this.refusing) {
      this.store.events.take(); // never sent
      this.reloading = true;
      try {
        // Before the first change of a data file that held no state, memory was the state the run started from.
        if (!this.based) this.store.reset();
        else {
          const disk = await onDisk(this.path, this.store, this.store.clock.now());
          this.store.replace(disk.apps, disk.births);
        }
      } catch (e) {
        this.log(
          `chat-emulator: error: ${this.path}: the refused changes cannot be undone in memory (what is on disk cannot be read back: ${(e as Error).message}); they stay in memory until the next checkpoint saves them.`,
        );
      } finally {
        this.reloading = false;
      }
      this.tracker = new ChangeTracker(this.store, this.verify);
      this.pending = false;
      this.store.events.take();
      if (this.turn && this.refusing) this.refused.push([this.turn, this.refusing]);
      this.turn = undefined;
    }
    for (const [waiter, refusal] of this.refused.splice(0)) waiter.reject(refusal);
  }

  private schedule(): void {
    this.dirty = true;
    this.count++;
    if (!this.timer && !this.running) this.arm();
  }

  /** Looks again in `delayMs` whether a checkpoint is due (see the class). */
  private arm(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const paused = this.count === this.seen;
      this.seen = this.count;
      if (this.changes.size >= Math.max(MIN_LOG_BYTES, this.stateBytes) || (paused && performance.now() >= this.restUntil)) void this.kick();
      else this.arm();
    }, this.delayMs);
  }

  /** A checkpoint that failed: loud, and tried again. The change log still holds every acknowledged write. */
  private failed(e: unknown): void {
    const problem = `could not save the data file ${this.path}: ${(e as Error).message ?? String(e)}`;
    if (!this.refusing) this.problem = problem;
    this.log(`chat-emulator: error: ${problem}; retrying in ${RETRY_MS / 1000} s.`);
    this.retry();
  }

  private retry(): void {
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
    // Memory is back to what is on disk before a checkpoint writes it (see `undo`).
    const undoing = this.undoing;
    if (undoing) await undoing;
    do {
      this.dirty = false;
      const started = performance.now();
      try {
        // Everything logged so far goes into this checkpoint; what follows goes to the next log file.
        const covered = await this.changes.rotate();
        // A write refused now (or before, with changes since) is undone first: the checkpoint must not hold it.
        if (this.refusing && (this.pending || this.refused.length > 0)) return this.retry();
        this.stateBytes = await writeStateFile(this.path, this.store.toData());
        this.changes.dropUpTo(covered);
        if (this.refusing) {
          this.log(`chat-emulator: the data file ${this.path} can be written again: writes are accepted again.`);
          this.refusing = undefined;
          // What changed during this checkpoint goes to the log as any change; the events waiting go out.
          this.committing ??= setImmediate(() => this.holdNow());
        } else if (this.problem) this.log(`chat-emulator: the data file ${this.path} is saved again.`);
        this.problem = undefined;
      } catch (e) {
        this.failed(e);
        return; // the retry timer takes over
      }
      const ended = performance.now();
      this.restUntil = ended + Math.min(MAX_REST_MS, 10 * (ended - started));
    } while (this.dirty && this.flushing);
    // Changes made meanwhile: the next checkpoint is due as any other (flush() does not wait for it).
    if (this.dirty) this.arm();
  }

  /** Resolves once every change made before the call is written; rejects when that save fails. */
  async flush(): Promise<void> {
    this.flushing = true;
    try {
      if (this.running) await this.running;
      if (this.dirty) await this.kick();
    } finally {
      this.flushing = false;
    }
    if (this.problem) throw new PersistenceError(this.problem);
  }

  close(): void {
    this.closed = true;
    this.holdNow();
    clearTimeout(this.timer);
    clearImmediate(this.committing);
    this.unsubscribe();
    this.store.events.holdUntilKept(undefined);
    this.changes.close();
    this.lock?.release();
  }
}
