import { Command, InvalidArgumentError } from "commander";
import { readFile } from "node:fs/promises";
import { compare } from "../bridge/compare.js";
import { compareLines, compareMarkdown } from "../bridge/compare-report.js";
import type { Har } from "../bridge/har.js";
import { SeedError } from "../store/seed.js";
import { reportFileProblem, writeReport } from "../control/report-file.js";
import { fail, parseCommand } from "./args.js";

/**
 * `chat-emulator compare FILE.har [--seed FILE] [--report FILE]`: replays a recording against a fresh emulator
 * (bridge/compare.ts). Exit code 0: nothing differs; 1: something does; 2: bad usage or an unreadable file.
 */

function compareCommand(): Command {
  return new Command("chat-emulator compare")
    .description(
      "Replay a HAR recording (chat-emulator record, or DevTools) in order against a fresh emulator and report where its answers differ. Exit code 0: none differ; 1: some do.",
    )
    .argument("<file>", "the HAR file")
    .option("--seed <file>", "seed or state file of the emulator (a pulled app; default: the bundled Default App)")
    .option("--report <file>", "write the report to FILE: JSON (.json) or Markdown (.md)", (value: string) => {
      const problem = reportFileProblem("report", value);
      if (problem) throw new InvalidArgumentError(problem);
      return value;
    })
    .option("-q, --quiet", "print nothing (the exit code and --report say it)")
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s.startsWith("error:") ? `chat-emulator compare: ${s}` : s) });
}

export async function runCompare(args: string[]): Promise<void> {
  const program = compareCommand();
  parseCommand(program, args);
  const file = program.args[0];
  const o = program.opts<{ seed?: string; report?: string; quiet?: boolean }>();
  let har: Har;
  try {
    har = JSON.parse(await readFile(file, "utf8")) as Har;
  } catch (e) {
    fail(`compare: ${file}: ${(e as NodeJS.ErrnoException).code ? `cannot be read (${(e as NodeJS.ErrnoException).code})` : `is not valid JSON (${(e as Error).message})`}.`);
  }
  if (!Array.isArray(har?.log?.entries)) fail(`compare: ${file}: is not a HAR file (it has no log.entries).`);
  let report;
  try {
    report = await compare({ har, seed: o.seed });
  } catch (e) {
    if (e instanceof SeedError) fail(`compare: ${e.message}`);
    throw e;
  }
  try {
    await writeReport(o.report, report, compareMarkdown(report, file));
  } catch (e) {
    fail(`compare: could not write the report to ${o.report}: ${(e as Error).message}`, 2);
  }
  if (!o.quiet) process.stdout.write(compareLines(report, file));
  process.exit(report.exchanges.length === 0 ? 0 : 1);
}
