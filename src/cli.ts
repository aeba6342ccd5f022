import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { DEFAULT_MANAGEMENT_KEY, DEFAULT_MANAGEMENT_SECRET, PersistenceError, SeedError, startEmulator, TlsError, type RunningEmulator } from "./index.js";
import { fail, intArg } from "./cli/args.js";
import { runCert } from "./cli/cert.js";
import { runDemo } from "./cli/demo.js";
import { COMMANDS, commandList, firstWord, unknownCommand, unknownOptions } from "./cli/commands.js";
import { runExec, splitExecArgs } from "./cli/exec.js";
import { runExport } from "./cli/export.js";
import { runPull } from "./cli/pull.js";
import { runRecord } from "./cli/record.js";
import { runCompare } from "./cli/compare.js";
import { addServeOptions, jsonBanner, serveOptions, type ServeFlags } from "./cli/serve-options.js";
import { addStateOptions, stateOptions, stateRows, type StateFlags } from "./cli/state-options.js";
import { MAX_JOURNAL_SIZE } from "./control/journal.js";
import { prepareWritable } from "./store/persistence.js";
import { coverageFileProblem, writeCoverage } from "./control/coverage-file.js";
import { parseLatency } from "./control/plane.js";
import { VERSION } from "./version.js";

/** `chat-emulator`: flags (each also from CHAT_EMULATOR_<NAME>) -> options -> startEmulator. */

/** `--allowed-host NAME`, repeatable; the environment variable holds a comma-separated list. */
function allowedHostArg(value: string, previous: string[] = []): string[] {
  const names = value.split(",").map((s) => s.trim()).filter(Boolean);
  for (const name of names)
    if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/i.test(name))
      throw new InvalidArgumentError(`--allowed-host must be a host name such as emulator.ci.internal, not ${JSON.stringify(name)}.`);
  return [...previous, ...names];
}

function coverageArg(value: string): string {
  const problem = coverageFileProblem(value);
  if (problem) throw new InvalidArgumentError(`--coverage: ${problem}`);
  return value;
}

/** How long the coverage file may take to write at exit before the emulator stops without it. */
const COVERAGE_WRITE_MS = 10_000;

/** `work`, or a rejection once `ms` have passed (the timer does not hold the process). */
function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not done within ${ms / 1000} s`)), ms);
    timer.unref();
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

function latencyArg(value: string): string {
  try {
    parseLatency(value);
  } catch (e) {
    throw new InvalidArgumentError(`--${(e as Error).message}`);
  }
  return value;
}

function banner(e: RunningEmulator, data: string | undefined, guarded: boolean, extra: [string, string][]): string {
  const rows: [string, string][] = [];
  const app = e.defaultApp;
  if (app) {
    rows.push(["REST (default app)", `${e.url}/v3`]);
    rows.push(["REST", e.baseUrl()]);
    rows.push(["Calls", `${e.url}/${app.appId}.call-${app.region}/v3`]);
    rows.push(["App ID", `${app.appId}  (region ${app.region})`]);
    // A seed may give an app no key of a scope: no row then, rather than an empty key.
    if (app.restApiKey) rows.push(["REST API Key", `${app.restApiKey}  (fullAccess)`]);
    if (app.authKey) rows.push(["Auth Key", `${app.authKey}  (authOnly)`]);
  } else rows.push(["Apps", "none (create one through the management API)"]);
  rows.push(["Management", e.management.url]);
  rows.push(["Management key", e.management.key]);
  rows.push(["Management secret", e.management.secret]);
  rows.push(["Control", `${e.url}/_emulator${guarded ? "  (x-emulator-token required)" : ""}`]);
  rows.push(["Inspector", `${e.url}/_emulator/ui${guarded ? "?token=<control token>" : ""}`]);
  rows.push(["Data file", data ?? "none (state lives in memory)"]);
  for (const row of extra) rows.push(row);
  if (e.tls) rows.push(["Certificate", e.tls.certPath]);
  const width = rows.reduce((max, [k]) => Math.max(max, k.length), 0);
  return [
    `chat-emulator ${VERSION} is listening on ${e.url}`,
    "",
    ...rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`),
    "",
  ].join("\n");
}

/** What a clean stop did with the state, said as the emulator stops. */
function stoppedLine(data: string | undefined, exportedTo: string | undefined): string {
  const done = [data && `saved to ${data}`, exportedTo && `exported to ${exportedTo}`].filter(Boolean);
  return done.length > 0
    ? `chat-emulator stopped; the state was ${done.join(" and ")}.`
    : "chat-emulator stopped; the state was in memory and is gone (--data FILE keeps it, --export-on-exit FILE writes it at the end).";
}

export async function main(argv = process.argv): Promise<void> {
  // `help` and `help demo` as `--help` and `demo --help` (exec's options are the emulator's: the main help).
  if (argv[2] === "help") {
    const topic = argv[3];
    if (topic !== undefined && !COMMANDS.some((c) => c.name === topic))
      fail(`help: there is no command ${JSON.stringify(topic)}; the commands are ${COMMANDS.map((c) => c.name).join(", ")} (chat-emulator help shows them all).`);
    argv = [...argv.slice(0, 2), ...(topic !== undefined && topic !== "exec" ? [topic] : []), "--help"];
  }
  if (argv[2] === "demo") return runDemo(argv.slice(3));
  if (argv[2] === "export") return runExport(argv.slice(3));
  if (argv[2] === "cert") return runCert(argv.slice(3));
  if (argv[2] === "pull") return runPull(argv.slice(3));
  if (argv[2] === "record") return runRecord(argv.slice(3));
  if (argv[2] === "compare") return runCompare(argv.slice(3));
  const program = new Command("chat-emulator")
    .description("Local emulator of the chat platform's REST API v3")
    .version(VERSION, "-v, --version")
    .addOption(new Option("-p, --port <port>", "port to listen on (0 = a free port)").env("CHAT_EMULATOR_PORT").default(4780).argParser(intArg("--port", 0, 65535)))
    .addOption(new Option("--host <host>", "interface to bind").env("CHAT_EMULATOR_HOST").default("127.0.0.1"))
    .addOption(new Option("--data <file>", "JSON file to load state from and save it to").env("CHAT_EMULATOR_DATA"))
    .addOption(new Option("--fsync", "with --data: answer a write only once the disk has it (survives a power cut; slower)").env("CHAT_EMULATOR_FSYNC"))
    .addOption(new Option("--recover", "with --data: move change-log lines that cannot be applied to FILE.damaged-N, then start without them").env("CHAT_EMULATOR_RECOVER"))
    .addOption(new Option("--seed <file|none>", 'seed file, or "none" for no apps (default: the bundled Default App)').env("CHAT_EMULATOR_SEED"))
    .addOption(new Option("--management-key <key>", "management API key header").env("CHAT_EMULATOR_MANAGEMENT_KEY").default(DEFAULT_MANAGEMENT_KEY))
    .addOption(new Option("--management-secret <secret>", "management API secret header").env("CHAT_EMULATOR_MANAGEMENT_SECRET").default(DEFAULT_MANAGEMENT_SECRET))
    .addOption(new Option("--random-seed <n>", "make generated ids, keys and probabilistic rules repeatable").env("CHAT_EMULATOR_RANDOM_SEED").argParser(intArg("--random-seed", 0, 2 ** 32 - 1)))
    .addOption(new Option("--latency <ms|min-max>", "add this delay (or a random one in MIN-MAX) to every API request").env("CHAT_EMULATOR_LATENCY").argParser(latencyArg))
    .addOption(new Option("--realtime-latency <ms>", "hold every WebSocket frame the emulator sends back MS (or MIN-MAX: a random delay), in order").env("CHAT_EMULATOR_REALTIME_LATENCY").argParser(latencyArg))
    .addOption(new Option("--rate-limit", "enforce the platform's per-app rate limits (core 10000/min, standard 20000/min)").env("CHAT_EMULATOR_RATE_LIMIT"))
    .addOption(new Option("--strict", "refuse requests with request advice (400 ERR_EMULATOR_STRICT, the emulator's own code) and seed files with unknown fields").env("CHAT_EMULATOR_STRICT"))
    .addOption(new Option("--advice-header", "send each request's advice in an x-chat-emulator-advice response header").env("CHAT_EMULATOR_ADVICE_HEADER"))
    .addOption(new Option("--journal-size <n>", "requests kept in the request journal (0 = no journal)").env("CHAT_EMULATOR_JOURNAL_SIZE").default(1000).argParser(intArg("--journal-size", 0, MAX_JOURNAL_SIZE)))
    .addOption(new Option("--coverage <file>", "at exit, write each documented operation's calls, statuses and codes to FILE (.json or .md)").env("CHAT_EMULATOR_COVERAGE").argParser(coverageArg))
    .addOption(new Option("--control-token <token>", "require header x-emulator-token on control calls (all but GET /_emulator/health and /_emulator/schemas/)").env("CHAT_EMULATOR_CONTROL_TOKEN"))
    .addOption(new Option("--allowed-host <name>", "also answer the control API and inspector under this host name (repeatable)").env("CHAT_EMULATOR_ALLOWED_HOSTS").argParser(allowedHostArg))
    .addOption(new Option("-q, --quiet", "print nothing but errors").env("CHAT_EMULATOR_QUIET"))
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s.startsWith("error:") ? `chat-emulator: ${s}` : s) });
  addStateOptions(addServeOptions(program)).addHelpText(
    "after",
    [
      "",
      "Commands (each but exec has its own --help: chat-emulator help demo):",
      commandList(),
      "",
      "exec runs the command after -- against a fresh emulator, then stops it and exits with the command's",
      "exit code; the emulator's options may stand before or after the word exec. The command gets",
      "CHAT_EMULATOR_URL, CHAT_EMULATOR_BASE_URL, CHAT_EMULATOR_APP_ID, CHAT_EMULATOR_REGION,",
      "CHAT_EMULATOR_API_KEY and CHAT_EMULATOR_AUTH_KEY in its environment.",
    ].join("\n"),
  );

  const takesValue = (flag: string) => program.options.some((opt) => (opt.long === flag || opt.short === flag) && (opt.required || opt.optional));
  const exec = splitExecArgs(argv, takesValue);
  if (exec.withoutDashDash) fail(`exec needs -- before the command (the command's own options are not the emulator's): chat-emulator ${exec.withoutDashDash}`);
  unknownOptions(exec.argv.slice(2), [...program.options.flatMap((opt) => (opt.long ? [opt.long] : [])), "--help", "--version"]);
  const word = firstWord(exec.argv.slice(2), takesValue);
  if (word) unknownCommand(word.word, COMMANDS.some((c) => c.name === word.word));
  try {
    program.parse(exec.argv);
  } catch (e) {
    if (e instanceof CommanderError) process.exit(e.exitCode === 0 ? 0 : 2);
    throw e;
  }
  const o = program.opts<{
    port: number;
    host: string;
    data?: string;
    fsync?: boolean;
    recover?: boolean;
    seed?: string;
    managementKey?: string;
    managementSecret?: string;
    randomSeed?: number;
    latency?: string;
    realtimeLatency?: string;
    rateLimit?: boolean;
    strict?: boolean;
    adviceHeader?: boolean;
    journalSize: number;
    coverage?: string;
    controlToken?: string;
    allowedHost?: string[];
    quiet?: boolean;
  } & ServeFlags & StateFlags>();
  if (exec.command?.length === 0) fail("exec needs a command: chat-emulator exec [options] -- <command...>");
  // In exec mode the command owns stdout: the emulator's banner and request log go to stderr.
  const out = exec.command ? process.stderr : process.stdout;

  // The coverage file is checked now, as --export-on-exit's is: a path that cannot be written ends the start.
  if (o.coverage) await prepareWritable(o.coverage).catch((e: Error) => fail(`--coverage: ${e.message}`));
  let emulator: RunningEmulator;
  try {
    emulator = await startEmulator({
      port: o.port,
      host: o.host,
      data: o.data,
      fsync: o.fsync,
      recover: o.recover,
      seed: o.seed,
      managementKey: o.managementKey,
      managementSecret: o.managementSecret,
      randomSeed: o.randomSeed,
      latency: o.latency,
      realtimeLatency: o.realtimeLatency,
      rateLimit: o.rateLimit,
      strict: o.strict,
      adviceHeader: o.adviceHeader,
      journalSize: o.journalSize,
      controlToken: o.controlToken,
      allowedHosts: o.allowedHost,
      quiet: o.quiet,
      ...serveOptions(o, out),
      ...stateOptions(o),
    });
  } catch (e) {
    if (e instanceof SeedError || e instanceof PersistenceError || e instanceof TlsError) fail(e.message);
    const err = e as NodeJS.ErrnoException;
    if (err.code === "EADDRINUSE") fail(`port ${o.port} on ${o.host} is already in use (try --port 0 for a free one).`);
    if (err.code === "EADDRNOTAVAIL" || err.code === "ENOTFOUND") fail(`cannot bind to host ${o.host}.`);
    throw e;
  }
  // Under exec the state's fate is the run's own business: a line about memory being gone would be noise in CI.
  const stopped = o.quiet || (exec.command && !o.data && !o.exportOnExit) ? undefined : stoppedLine(o.data, o.exportOnExit);
  // The run's coverage, written before the emulator stops; a file that cannot be written (or not within
  // COVERAGE_WRITE_MS: a hung file system) fails the exit, and the emulator still stops.
  const coverageOut = o.coverage;
  const writeRunCoverage = coverageOut
    ? () =>
        within(COVERAGE_WRITE_MS, writeCoverage(coverageOut, emulator.coverage.report())).catch((e: Error) => {
          throw new Error(`could not write the coverage to ${coverageOut}: ${e.message}`);
        })
    : undefined;
  // The signal handlers come before the banner: whoever waits for the banner may signal at once.
  if (!exec.command) {
    let stopping = false;
    const stop = () => {
      // A second signal while stopping ends the process at once (what was acknowledged is on disk already).
      if (stopping) {
        process.stderr.write("chat-emulator: stopped before the end of a clean stop (a second signal).\n");
        process.exit(1);
      }
      stopping = true;
      // The coverage first (a failure to write it still stops the emulator, and the exit code says so).
      const written = Promise.resolve(writeRunCoverage?.()).then(
        () => true,
        (e: Error) => (process.stderr.write(`chat-emulator: ${e.message}\n`), false),
      );
      written.then((ok) =>
        emulator.close().then(
          () => {
            if (stopped) out.write(stopped + "\n");
            process.exit(ok ? 0 : 1);
          },
          (e: unknown) => {
            process.stderr.write(`chat-emulator: error while stopping: ${String(e)}\n`);
            process.exit(1);
          },
        ),
      );
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
    // Under npx or `npm start`, a signal to npm does not reach this process (npm runs it through a shell): when npm
    // goes, this process is handed to another parent, and it stops as if signalled.
    if (process.env.npm_command) {
      const parent = process.ppid;
      setInterval(() => process.ppid !== parent && stop(), 500).unref();
    }
  }
  if (!o.quiet) out.write(o.logFormat === "json" ? jsonBanner(emulator, o.data) : banner(emulator, o.data, Boolean(o.controlToken), stateRows(o)));
  if (exec.command) return runExec(emulator, exec.command, (line) => process.stderr.write(line + "\n"), stopped, writeRunCoverage);
}

