import { Command, CommanderError, Option } from "commander";
import { DEMO_DEFAULTS, defaultUntil, type DemoOptions } from "../demo/generate.js";
import { writeDemo } from "../demo/write.js";
import { fail, intArg, timeArg } from "./args.js";
import { checkOut, writeOut } from "./out-file.js";

/**
 * `chat-emulator demo [--users N] [--groups N] [--messages N] [--random-seed S] [--days N] [--until T] --out FILE`:
 * writes a generated demo app as a state file, to start from with `--import FILE`. `--out -` (or no `--out` when
 * stdout is not a terminal) writes to stdout; a terminal is spared megabytes of JSON.
 */

export function demoCommand(): Command {
  return new Command("chat-emulator demo")
    .description("Write a generated demo app (users, groups, conversations, calls) as a state file for --import")
    .addOption(new Option("--users <n>", "users").default(DEMO_DEFAULTS.users).argParser(intArg("--users", 2, 1_000_000)))
    .addOption(new Option("--groups <n>", "groups").default(DEMO_DEFAULTS.groups).argParser(intArg("--groups", 0, 100_000)))
    .addOption(new Option("--messages <n>", "messages, call messages included").default(DEMO_DEFAULTS.messages).argParser(intArg("--messages", 0, 100_000_000)))
    .addOption(new Option("--random-seed <n>", "the same random seed (and --until) gives the same file").default(DEMO_DEFAULTS.seed).argParser(intArg("--random-seed", 0, 2 ** 32 - 1)))
    // The old spelling; --seed of the emulator itself names a seed file, so the random seed got its own name.
    .addOption(new Option("--seed <n>").hideHelp().argParser(intArg("--seed", 0, 2 ** 32 - 1)))
    .addOption(new Option("--days <n>", "days of history the messages and calls spread over").default(DEMO_DEFAULTS.days).argParser(intArg("--days", 1, 3650)))
    .addOption(new Option("--until <time>", "when the history ends: Unix seconds or an ISO date (default: now, to the hour)").argParser(timeArg("--until")))
    .option("-o, --out <file>", 'file to write; "-" for stdout (the default when stdout is not a terminal)')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s.startsWith("error:") ? `chat-emulator demo: ${s}` : s) });
}

export async function runDemo(args: string[]): Promise<void> {
  const program = demoCommand();
  try {
    program.parse(args, { from: "user" });
  } catch (e) {
    if (e instanceof CommanderError) process.exit(e.exitCode === 0 ? 0 : 2);
    throw e;
  }
  const o = program.opts<Omit<DemoOptions, "until" | "seed"> & { randomSeed: number; seed?: number; until?: number; out?: string }>();
  if (o.out === undefined && process.stdout.isTTY)
    fail("demo: the state file is megabytes of JSON; give --out FILE (then chat-emulator --import FILE), or --out - to write it here anyway.");
  const out = o.out === "-" ? undefined : o.out;
  const seed = o.seed ?? o.randomSeed;
  const options: DemoOptions = { users: o.users, groups: o.groups, messages: o.messages, seed, days: o.days, until: o.until ?? defaultUntil() };
  await checkOut("demo", out);
  const started = performance.now();
  const summary = await writeOut("demo", out, (stream) => writeDemo(stream, options));
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const counts = `${summary.users} users, ${summary.groups} groups, ${summary.messages} messages, ${summary.reactions} reactions, ${summary.calls} calls`;
  process.stderr.write(
    `chat-emulator: demo app ${summary.appId} (${counts}) written ${out ? `to ${out} ` : ""}in ${seconds} s.\n` +
      (out ? `Start from it with: chat-emulator --import ${out}   (REST API key ${summary.restApiKey})\n` : ""),
  );
}
