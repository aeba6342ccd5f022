import { Command, InvalidArgumentError, Option } from "commander";
import { pull } from "../bridge/pull.js";
import { Progress } from "../bridge/progress.js";
import { HttpError } from "../bridge/client.js";
import { ResumeError } from "../bridge/resume.js";
import { readDocumentFile } from "../store/state-reader.js";
import { documentKind } from "../store/seed.js";
import { fail, intArg, parseCommand, urlArg } from "./args.js";
import { checkOut } from "./out-file.js";

/**
 * `chat-emulator pull --app-id ID --api-key KEY [--region R] [--base-url URL] --out FILE`: a real app (or any
 * emulator) read into a state file. GET requests only.
 */

function pullCommand(): Command {
  return new Command("chat-emulator pull")
    .description("Read an app through its REST API into a state file for --seed, --import or --data. It only sends GET requests: it never changes the app it reads.")
    .addOption(new Option("--app-id <id>", "the app to read").env("COMETCHAT_APP_ID").argParser(appIdArg))
    .addOption(new Option("--region <region>", "its region").env("COMETCHAT_REGION").choices(["us", "eu", "in"]).default("us"))
    .addOption(new Option("--api-key <key>", "a REST API key of the app (fullAccess)").env("COMETCHAT_API_KEY"))
    .addOption(new Option("--base-url <url>", "REST base URL (default: https://{appId}.api-{region}.cometchat.io/v3)").env("COMETCHAT_BASE_URL").argParser(urlArg("--base-url")))
    .addOption(new Option("--management-key <key>", "management API key: with --management-secret, webhooks are read too").env("COMETCHAT_MANAGEMENT_KEY"))
    .addOption(new Option("--management-secret <secret>", "management API secret").env("COMETCHAT_MANAGEMENT_SECRET"))
    .addOption(new Option("--management-url <url>", "management API base URL").env("COMETCHAT_MANAGEMENT_URL").default("https://apimgmt.cometchat.io").argParser(urlArg("--management-url")))
    .addOption(new Option("--messages <n>", "latest messages per conversation and per thread (0: none)").default(100).argParser(intArg("--messages", 0, 1_000_000)))
    .option("--anonymize", "replace names, avatars, metadata and message texts with stand-ins (the same for the same value)")
    .addOption(new Option("--salt <text>", "with --anonymize: the key of the stand-ins (another salt, other stand-ins)").env("CHAT_EMULATOR_ANONYMIZE_SALT").default("chat-emulator"))
    .addOption(new Option("--concurrency <n>", "requests in flight at once").default(8).argParser(intArg("--concurrency", 1, 64)))
    .requiredOption("-o, --out <file>", "state file to write (its progress is kept in FILE.pull-progress until done)")
    .option("-q, --quiet", "print nothing but errors")
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s.startsWith("error:") ? `chat-emulator pull: ${s}` : s) });
}

function appIdArg(value: string): string {
  if (!/^[a-z0-9]+$/i.test(value)) throw new InvalidArgumentError("--app-id must be the app's id: letters and numbers.");
  return value.toLowerCase();
}

interface PullFlags {
  appId?: string;
  region: string;
  apiKey?: string;
  baseUrl?: string;
  managementKey?: string;
  managementSecret?: string;
  managementUrl: string;
  messages: number;
  anonymize?: boolean;
  salt: string;
  concurrency: number;
  out: string;
  quiet?: boolean;
}

export async function runPull(args: string[]): Promise<void> {
  const program = pullCommand();
  parseCommand(program, args);
  const o = program.opts<PullFlags>();
  if (!o.appId) fail("pull: give the app's id: --app-id ID (or COMETCHAT_APP_ID).");
  if (!o.apiKey) fail("pull: give a REST API key of the app: --api-key KEY (or COMETCHAT_API_KEY).");
  if ((o.managementKey === undefined) !== (o.managementSecret === undefined)) fail("pull: --management-key and --management-secret go together.");
  await refuseForeignOut(o.out);
  await checkOut("pull", o.out);
  const progress = new Progress(process.stderr, o.quiet);
  const baseUrl = o.baseUrl ?? `https://${o.appId}.api-${o.region}.cometchat.io/v3`;
  // A base URL that names its region (`.../{appId}.api-eu/v3`) gives the app's region, unless --region is given.
  const named = /[./]api-(us|eu|in)[./]/.exec(baseUrl)?.[1];
  const region = program.getOptionValueSource("region") === "default" && named ? named : o.region;
  const started = performance.now();
  // Every finished piece is on disk already (resume.ts): an interrupted pull says how to go on.
  const interrupted = () => {
    process.stderr.write(`\nchat-emulator: pull interrupted; what was read is kept in ${o.out}.pull-progress: run the same command again to continue.\n`);
    process.exit(130);
  };
  process.once("SIGINT", interrupted);
  process.once("SIGTERM", interrupted);
  let summary;
  try {
    summary = await pull({
      baseUrl,
      appId: o.appId,
      region,
      apiKey: o.apiKey,
      management: o.managementKey ? { url: o.managementUrl, key: o.managementKey, secret: o.managementSecret! } : undefined,
      messages: o.messages,
      anonymize: o.anonymize ? { salt: o.salt } : undefined,
      concurrency: o.concurrency,
      out: o.out,
      progress,
    });
  } catch (e) {
    if (e instanceof ResumeError) fail(`pull: ${e.message}`);
    const hint = e instanceof HttpError && e.status === 401 ? " (check --app-id, --region, --api-key and --base-url)" : "";
    fail(`pull: ${(e as Error).message}${hint}. What was read so far is kept in ${o.out}.pull-progress: run the same command again to continue.`, 1);
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (o.quiet) return;
  const counts = Object.entries(summary.counts).map(([k, v]) => `${v} ${k}`).join(", ");
  const resumed = summary.resumedPieces > 0 ? `, ${summary.resumedPieces} pieces taken up from the last run` : "";
  process.stderr.write(
    `chat-emulator: pulled ${o.appId} (${counts}) to ${o.out} in ${seconds} s: ${summary.requests} GET requests, ${summary.waits} waits${resumed}.\n` +
      summary.notes.map((n) => `  note: ${n}\n`).join("") +
      `Start from it with: chat-emulator --seed ${o.out}\n`,
  );
}

/**
 * `--out` as `--data` takes its file: a missing or empty file, or a chat-emulator seed or state file (a former pull);
 * anything else is not ours to overwrite.
 */
async function refuseForeignOut(path: string): Promise<void> {
  let doc: unknown;
  try {
    doc = await readDocumentFile(path);
  } catch (e) {
    if (["ENOENT", "ENOTDIR"].includes((e as NodeJS.ErrnoException).code ?? "")) return;
    fail(`pull: ${path}: ${(e as Error).message}; the file was left untouched.`);
  }
  if (doc !== undefined && documentKind(doc) === undefined)
    fail(`pull: ${path}: is not a chat-emulator seed or state file, and --out overwrites its file; the file was left untouched.`);
}
