import { createApp } from "./app.js";
import type { Emulator } from "./emulator.js";
import { ApiError } from "./http/errors.js";
import { detailsLine } from "./control/input.js";
import type { JournalEntry, JournalFilter } from "./control/journal.js";
import type { CoverageReport } from "./control/coverage.js";
import { ControlPlane, type ControlOptions } from "./control/plane.js";
import type { RateLimits } from "./control/rate-limit.js";
import type { RuleInput, RuleView } from "./control/rules.js";
import type { SnapshotInfo } from "./control/snapshots.js";
import { isLoopback } from "./control/token.js";
import { Clock } from "./store/clock.js";
import { Persistence, PersistenceError, prepareWritable } from "./store/persistence.js";
import { refuseOwnedTarget } from "./store/data-lock.js";
import { sameFile } from "./util/same-file.js";
import { waiting } from "./util/waiting.js";
import { FileStore } from "./store/files.js";
import { writeStateFile } from "./store/state-writer.js";
import { checkUnknownFields, DEFAULT_SEED_PATH, parseState, readSeedFile, type UnknownFieldsPolicy } from "./store/seed.js";
import { Store, type CreateAppOptions } from "./store/store.js";
import type { AppData, Region } from "./store/types.js";
import { listen } from "./server.js";
import { requestLogger, type LogFormat } from "./log.js";
import { resolveTls, type TlsMaterial } from "./tls.js";
import { VERSION } from "./version.js";
import { seedRandom } from "./util/random.js";
import { Dispatcher } from "./webhooks/dispatcher.js";
import { botRelay } from "./bots/relay.js";
import { Outbox, type Notification, type NotificationFilter } from "./notifications/outbox.js";
import { CampaignScheduler } from "./resources/campaigns/scheduler.js";
import { Jwt } from "./client/jwt.js";
import { Realtime } from "./realtime/realtime.js";

export { SeedError } from "./store/seed.js";
export { PersistenceError } from "./store/persistence.js";
export { TlsError } from "./tls.js";
export { emulatorEnv } from "./env.js";
export type { LogFormat } from "./log.js";
export type { StateData, AppData, Region } from "./store/types.js";
export type { JournalEntry, JournalFilter } from "./control/journal.js";
export type { CoverageReport, OperationCoverage, AreaCoverage } from "./control/coverage.js";
export type { Notification, NotificationFilter } from "./notifications/outbox.js";
export type { RuleInput, RuleView, RuleMatch, RuleEffect } from "./control/rules.js";
export type { SnapshotInfo } from "./control/snapshots.js";
export type { Limits } from "./control/rate-limit.js";

export interface EmulatorOptions extends ControlOptions {
  /** Port to listen on; 0 (the default here) picks a free one. The CLI defaults to 4780. */
  port?: number;
  host?: string;
  /** JSON data file: loaded at start (created if missing), saved after changes, flushed on close. */
  data?: string;
  /**
   * With `data`: wait until the disk has each committed change (fsync of the change log) before answering, so a
   * power cut loses nothing acknowledged either (a kill of the process never does). See docs/durability.md.
   */
  fsync?: boolean;
  /** Seed file path, "none" for no apps, or seed data itself. Default: the bundled Default App. */
  seed?: string | { apps: unknown[] };
  managementKey?: string;
  managementSecret?: string;
  /** Makes generated ids and keys repeatable. */
  randomSeed?: number;
  /** Where log lines go (default stderr); `quiet` silences them. */
  log?: (line: string) => void;
  quiet?: boolean;
  /** Serve HTTPS with the local CA's server certificate, kept in the configuration folder across starts (see `tls.certPath`). */
  https?: boolean;
  /** PEM certificate and key files to serve HTTPS with (imply `https`). */
  cert?: string;
  key?: string;
  /** Where request log lines go (one per request); no request log when absent. */
  requestLog?: (line: string) => void;
  /** Request log format (default "text"). */
  logFormat?: LogFormat;
  /**
   * Writes the whole state to this file on `close()` (a clean stop), like `GET /_emulator/state`. Missing folders
   * are created at start; a file that cannot be written refuses the start with PersistenceError.
   */
  exportOnExit?: string;
  /**
   * With `data`: change-log lines that cannot be applied are moved to `FILE.damaged-<n>` (byte for byte) and left
   * out, instead of refusing the start.
   */
  recover?: boolean;
}

export interface AppInfo {
  appId: string;
  region: Region;
  restApiKey: string;
  authKey: string;
}

export interface RunningEmulator {
  /** http://host:port (https:// with `https`) */
  url: string;
  port: number;
  /** The default app (first of the seed), or undefined when started without apps. */
  defaultApp: AppInfo | undefined;
  /** REST base URL of an app (default app when omitted): `{url}/{appId}.api-{region}/v3`. */
  baseUrl(appId?: string): string;
  management: { url: string; key: string; secret: string };
  /** With `https`: the certificate chain served (PEM) and the file clients trust: the local CA, or `--cert`. */
  tls: { cert: string; certPath: string } | undefined;
  createApp(opts?: Partial<CreateAppOptions>): AppInfo;
  reset(opts?: { appId?: string; to?: "seed" | "empty" }): void;
  /** Flushes the data file (if any) and stops listening. */
  close(): Promise<void>;
  /** In-process access for tests: `emulator.app.request(...)` skips the network. */
  app: ReturnType<typeof createApp>;
  store: Store;
  /** Real or frozen time for every timestamp the emulator writes: `freeze(atMs?)`, `advance(seconds)`, `useReal()`. */
  clock: Clock;
  /** Fault and latency rules, as `/_emulator/rules`. */
  rules: RulesApi;
  /** The request journal, as `/_emulator/requests`. */
  journal: JournalApi;
  /** The notification outbox, as `/_emulator/notifications`. */
  notifications: NotificationsApi;
  /** Per-app rate limits: `enabled`, `limits`, `override(appId, limits)`, `forget(appId?)`. */
  rateLimits: RateLimits;
  /** Takes (or retakes) a named in-memory snapshot of the whole store. */
  snapshot(name: string): SnapshotInfo;
  /** Puts the store back to a snapshot; throws when there is none of that name. */
  restore(name: string): SnapshotInfo;
  /** Calls per documented operation, as `/_emulator/coverage`: `report(appId?)`, `clear()`. */
  coverage: CoverageApi;
}

export interface CoverageApi {
  /** Every documented operation with its calls, statuses and codes, for one app or all of them. */
  report(appId?: string): CoverageReport;
  clear(): void;
}

export interface RulesApi {
  /** Adds a rule at the end of the list; throws with every problem of an invalid rule. */
  add(rule: RuleInput): RuleView;
  list(): RuleView[];
  get(id: string): RuleView | undefined;
  remove(id: string): boolean;
  clear(): void;
}

export interface NotificationsApi {
  /** Matching notifications, oldest first. */
  list(filter?: NotificationFilter): Notification[];
  /** The matching notifications as soon as there is one; none after `timeoutMs` (default 5000). */
  waitFor(filter?: NotificationFilter, timeoutMs?: number): Promise<Notification[]>;
  clear(): void;
}

export interface JournalApi {
  /** Matching entries, oldest first (`limit`: the newest N). */
  list(filter?: JournalFilter): JournalEntry[];
  clear(): void;
  /** The first matching request, journaled already or the next to arrive; rejects after `timeoutMs` (default 5000). */
  waitFor(filter?: JournalFilter, timeoutMs?: number): Promise<JournalEntry>;
}

export const DEFAULT_MANAGEMENT_KEY = "chat-emulator-management-key";
export const DEFAULT_MANAGEMENT_SECRET = "chat-emulator-management-secret";

/** The seed: the bundled one, none, a file or a document; a seed's unknown fields are said (or refused: `unknown.strict`). */
async function loadSeed(seed: EmulatorOptions["seed"], now: number, unknown: UnknownFieldsPolicy): Promise<AppData[]> {
  if (seed === "none") return [];
  if (seed === undefined) return readSeedFile(DEFAULT_SEED_PATH, now);
  if (typeof seed === "string") return readSeedFile(seed, now, unknown);
  checkUnknownFields(seed, "seed", unknown);
  return parseState(seed, now, "seed");
}

/**
 * Builds the store, app and persistence without listening: the in-process core of `startEmulator`. With `data`,
 * persistence starts at once (`startEmulator` starts it once its port is bound); `persistence.close()` gives the
 * data file up.
 */
export async function createEmulator(options: EmulatorOptions = {}) {
  const built = await buildEmulator(options);
  try {
    await built.persistence?.start();
  } catch (e) {
    built.release();
    throw e;
  }
  return built;
}

async function buildEmulator(options: EmulatorOptions) {
  seedRandom(options.randomSeed);
  const errorLog = options.log ?? ((line: string) => process.stderr.write(line + "\n"));
  // Quiet silences the chatter, never a failed save: acknowledged writes that are not on disk must be seen.
  const log = options.quiet ? () => {} : errorLog;
  const clock = new Clock();
  const store = new Store(clock);
  store.seed(await loadSeed(options.seed, clock.now(), { strict: options.strict, warn: log }));
  const persistence = options.data
    ? await Persistence.load(options.data, store, { now: clock.now(), log: errorLog, fsync: options.fsync, recover: options.recover })
    : undefined;
  const control = new ControlPlane(store, clock, options);
  const jwt = new Jwt();
  const emulator: Emulator = {
    store,
    clock,
    control,
    version: VERSION,
    startedAtMs: Date.now(),
    management: {
      key: options.managementKey ?? DEFAULT_MANAGEMENT_KEY,
      secret: options.managementSecret ?? DEFAULT_MANAGEMENT_SECRET,
    },
    webhooks: new Dispatcher(clock),
    notifications: new Outbox(clock),
    jwt,
    realtime: new Realtime(store, clock, jwt, control.journal, control.rules),
    persistence,
    // Next to the data file, in a folder named after it: the only place besides the file itself we write to.
    files: new FileStore(options.data ? `${options.data}.files` : undefined),
    campaigns: new CampaignScheduler(store, clock),
  };
  store.events.subscribe((e) => emulator.webhooks.enqueue(e.app, e.trigger, () => e.data()));
  store.events.subscribe((e) => emulator.realtime.publish(e));
  store.events.subscribe(botRelay(emulator.webhooks));
  store.events.subscribe((e) => emulator.control.extensionCalls.observe(e));
  store.events.subscribe((e) => emulator.notifications.handle(e));
  const notifications: NotificationsApi = {
    list: (filter = {}) => emulator.notifications.list(filter),
    waitFor: (filter = {}, timeoutMs = 5000) => emulator.notifications.waitFor(filter, timeoutMs),
    clear: () => emulator.notifications.clear(),
  };
  /** Stops saving and gives up the data file's lock (after a failed start, or at the end of `close`). */
  const release = () => persistence?.close();
  return { emulator, app: createApp(emulator, log), persistence, release, log, notifications, ...controlApi(emulator.control) };
}

/** The control plane for programmatic callers: the same operations as the control API. */
function controlApi(control: ControlPlane) {
  const { rules, journal, snapshots } = control;
  const rulesApi: RulesApi = {
    add(rule) {
      try {
        return rules.add(rule);
      } catch (e) {
        if (e instanceof ApiError) throw new Error(`chat-emulator: invalid rule: ${detailsLine(e.details)}`);
        throw e;
      }
    },
    list: () => rules.list(),
    get: (id) => rules.get(id),
    remove: (id) => rules.remove(id),
    clear: () => rules.clear(),
  };
  const journalApi: JournalApi = {
    list: (filter) => journal.list(filter),
    clear: () => journal.clear(),
    waitFor: (filter, timeoutMs) => journal.waitFor(filter, timeoutMs),
  };
  return {
    rules: rulesApi,
    journal: journalApi,
    coverage: { report: (appId?: string) => control.coverage.report(appId), clear: () => control.coverage.clear() } satisfies CoverageApi,
    rateLimits: control.rateLimits,
    snapshot: (name: string) => snapshots.take(name),
    restore(name: string): SnapshotInfo {
      const info = snapshots.restore(name);
      if (!info) throw new Error(`chat-emulator: no snapshot named ${name}`);
      return info;
    },
  };
}

function appInfo(store: Store, appId: string | undefined): AppInfo | undefined {
  const app = appId ? store.apps.get(appId) : undefined;
  if (!app) return undefined;
  const keys = [...app.apiKeys.values()];
  return {
    appId: app.meta.appId,
    region: app.meta.region,
    restApiKey: keys.find((k) => k.scope === "fullAccess")?.apiKey ?? "",
    authKey: keys.find((k) => k.scope === "authOnly")?.apiKey ?? "",
  };
}

/**
 * An export target may not be a file the emulator reads from or another one writes: the seed or imported file, the
 * data file (saved anyway), or the data file of another running emulator.
 */
function refuseExportTarget(target: string, options: EmulatorOptions): void {
  const refuse = (what: string) => {
    throw new PersistenceError(`--export-on-exit ${target} is ${what}: exporting there would overwrite it; choose another file.`);
  };
  if (typeof options.seed === "string" && options.seed !== "none" && sameFile(target, options.seed)) refuse("the file the state is seeded or imported from");
  if (options.data !== undefined && sameFile(target, options.data)) refuse("the --data file, which is saved anyway");
  refuseOwnedTarget(target, "--export-on-exit");
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  if (options.exportOnExit) refuseExportTarget(options.exportOnExit, options);
  const { emulator, app, persistence, release, log, ...control } = await buildEmulator(options);
  const host = options.host ?? "127.0.0.1";
  if (!isLoopback(host) && !emulator.control.token)
    log(
      `chat-emulator: warning: listening on ${host} without --control-token: anyone who can reach this port can ` +
        "reset, replace and read all state through /_emulator. Set --control-token (CHAT_EMULATOR_CONTROL_TOKEN).",
    );
  let listening;
  let tls: TlsMaterial | undefined;
  // Requests that arrive before the data file is started wait for it (see below).
  const ready = waiting();
  try {
    tls = resolveTls(options);
    listening = await listen(app, options.port ?? 0, host, {
      tls,
      wrap: requestLogger(options, () => emulator.store.defaultAppId),
      upgrade: (req, socket, head) => emulator.realtime.upgrade(req, socket, head),
      hold: persistence && { wait: () => persistence.hold(), now: () => persistence.holdNow() },
      ready: persistence && ready.promise,
    });
  } catch (e) {
    release();
    tls?.dispose();
    throw e;
  }
  // Only now, with the lock held and the port bound, is anything beside the data file written: a start that fails
  // to bind (a port in use) leaves every file as it was.
  try {
    await persistence?.start();
    // A file the state cannot be exported to stops the start, not the stop (when the state would be lost).
    if (options.exportOnExit) await prepareWritable(options.exportOnExit);
  } catch (e) {
    await listening.close();
    release();
    tls?.dispose();
    throw e;
  } finally {
    ready.resolve();
  }
  const shownHost = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
  const url = `${tls ? "https" : "http"}://${shownHost}:${listening.port}`;
  const { store, clock, management } = emulator;
  let closed: Promise<void> | undefined;
  return {
    url,
    port: listening.port,
    get defaultApp() {
      return appInfo(store, store.defaultAppId);
    },
    baseUrl(appId?: string) {
      const app = store.apps.get(appId ?? store.defaultAppId ?? "");
      if (!app) throw new Error(`chat-emulator: no app ${appId ?? "(default)"}`);
      return `${url}/${app.meta.appId}.api-${app.meta.region}/v3`;
    },
    management: { url: `${url}/apimgmt`, ...management },
    tls: tls && { cert: tls.cert, certPath: tls.certPath },
    createApp(opts = {}) {
      const created = store.createApp({ name: opts.name ?? "Test App", ...opts });
      return appInfo(store, created.meta.appId)!;
    },
    reset(opts) {
      store.reset(opts);
    },
    close() {
      closed ??= (async () => {
        emulator.webhooks.close();
        emulator.notifications.close();
        emulator.campaigns.close();
        emulator.realtime.shutdown();
        await listening.close();
        try {
          await persistence?.flush(); // rejects when the final save fails: the CLI exits non-zero
        } finally {
          release();
          tls?.dispose();
          if (options.exportOnExit) await writeStateFile(options.exportOnExit, store.toData());
        }
      })();
      return closed;
    },
    app,
    store,
    clock,
    ...control,
  };
}
