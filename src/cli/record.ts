import { Command, Option } from "commander";
import { readFile } from "node:fs/promises";
import { startRecorder } from "../bridge/record.js";
import { fail, intArg, parseCommand, urlArg } from "./args.js";
import { checkOut } from "./out-file.js";

/** `chat-emulator record --target URL --out FILE.har [--port N]`: the recording proxy (bridge/record.ts). */

function recordCommand(): Command {
  return new Command("chat-emulator record")
    .description(
      "A proxy that forwards each request to --target unchanged and writes every exchange to a HAR 1.2 file, with API keys, auth tokens and passwords redacted. Point your code's base URL at the address it prints.",
    )
    .requiredOption("--target <url>", "where requests go: https://{appId}.api-{region}.cometchat.io, https://cometchat.io (path labels pick the host) or an emulator", urlArg("--target"))
    .requiredOption("-o, --out <file>", "HAR file to write (whole after every exchange)")
    .addOption(new Option("-p, --port <port>", "port to listen on (0 = a free port)").default(4790).argParser(intArg("--port", 0, 65535)))
    .addOption(new Option("--host <host>", "interface to bind").default("127.0.0.1"))
    .option("-q, --quiet", "print only the address and errors, not each exchange")
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s.startsWith("error:") ? `chat-emulator record: ${s}` : s) });
}

export async function runRecord(args: string[]): Promise<void> {
  const program = recordCommand();
  parseCommand(program, args);
  const o = program.opts<{ target: string; out: string; port: number; host: string; quiet?: boolean }>();
  await refuseForeignHar(o.out);
  await checkOut("record", o.out);
  let recorder;
  try {
    recorder = await startRecorder({
      target: o.target,
      out: o.out,
      port: o.port,
      host: o.host,
      onExchange: o.quiet ? undefined : (line) => process.stdout.write(line + "\n"),
    });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === "EADDRINUSE") fail(`record: port ${o.port} on ${o.host} is already in use (try --port 0 for a free one).`);
    throw e;
  }
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void recorder.close().then(() => {
      process.stderr.write(`chat-emulator: recorded ${recorder.entries()} exchanges to ${o.out}.\n`);
      process.exit(0);
    });
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  process.stdout.write(`chat-emulator record is listening on ${recorder.url}\n  forwarding to ${o.target}\n  writing ${o.out}\n`);
}

/** An existing --out is overwritten only when it is a HAR file (a former recording) or empty. */
async function refuseForeignHar(path: string): Promise<void> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    if (["ENOENT", "ENOTDIR"].includes((e as NodeJS.ErrnoException).code ?? "")) return;
    fail(`record: ${path}: cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)}); the file was left untouched.`);
  }
  if (text.trim() === "") return;
  let doc: { log?: { entries?: unknown } } | undefined;
  try {
    doc = JSON.parse(text) as typeof doc;
  } catch {
    doc = undefined;
  }
  if (!Array.isArray(doc?.log?.entries)) fail(`record: ${path}: is not a HAR file, and --out overwrites its file; the file was left untouched.`);
}
