import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Command, CommanderError, Option } from "commander";
import { fail, urlArg } from "./args.js";
import { checkOut, writeOut } from "./out-file.js";

/**
 * `chat-emulator export [--url URL] [--out FILE] [--control-token T]`: saves a running emulator's whole state
 * (`GET /_emulator/state`) to a file that `--import`, `--seed` and `--data` load. The file is written beside its
 * name and renamed at the end, so a failed export leaves no half file.
 */

export async function runExport(args: string[]): Promise<void> {
  const program = new Command("chat-emulator export")
    .description("Save a running emulator's state to a file (for --import)")
    .addOption(new Option("--url <url>", "the emulator's address").env("CHAT_EMULATOR_URL").default("http://127.0.0.1:4780").argParser(urlArg("--url")))
    .option("-o, --out <file>", "file to write (default: stdout)")
    .addOption(new Option("--control-token <token>", "the emulator's control token, if it was started with one").env("CHAT_EMULATOR_CONTROL_TOKEN"))
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s.startsWith("error:") ? `chat-emulator export: ${s}` : s) });
  try {
    program.parse(args, { from: "user" });
  } catch (e) {
    if (e instanceof CommanderError) process.exit(e.exitCode === 0 ? 0 : 2);
    throw e;
  }
  const o = program.opts<{ url: string; out?: string; controlToken?: string }>();
  await checkOut("export", o.out);
  const url = `${o.url}/_emulator/state`;
  let res: Response;
  try {
    res = await fetch(url, { headers: o.controlToken ? { "x-emulator-token": o.controlToken } : {} });
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    fail(`export: cannot reach ${o.url} (${cause?.code ?? cause?.message ?? (e as Error).message}). Is the emulator running there?`, 1);
  }
  if (!res.ok || !res.body) {
    const body = (await res.json().catch(() => undefined)) as { error?: { message?: string } } | undefined;
    fail(`export: ${url} answered ${res.status}${body?.error?.message ? `: ${body.error.message}` : ""}`, 1);
  }
  const body = Readable.fromWeb(res.body as import("node:stream/web").ReadableStream);
  await writeOut("export", o.out, (out) => pipeline(body, out, { end: false }));
  if (o.out) process.stderr.write(`chat-emulator: state of ${o.url} saved to ${o.out}\n`);
}
