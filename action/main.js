// The GitHub Action's main step (action.yml): starts chat-emulator in the background, waits until it listens, and
// exports the same variables as `chat-emulator exec` (src/env.ts, and NODE_EXTRA_CA_CERTS with HTTPS) through
// GITHUB_ENV and the step's outputs. Plain JavaScript without dependencies. Every failure is one `::error::` line.
import { execFileSync, spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, openSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { fail, input } from "./runner.js";

const temp = process.env.RUNNER_TEMP || process.env.TMPDIR || "/tmp";
/** The Action's own copy: the repository at the ref of `uses:`, which the runner has checked out (sources only). */
const own = process.env.GITHUB_ACTION_PATH || resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Runs npm, its output in the step's log; a failure ends the step with what npm said last. */
function npm(args, cwd) {
  try {
    execFileSync("npm", args, { cwd, stdio: ["ignore", "inherit", "pipe"] });
  } catch (e) {
    fail(`npm ${args[0]} failed (exit ${e.status ?? e.signal}): ${String(e.stderr ?? "").trim().split("\n").slice(-10).join("\n")}`);
  }
}

/**
 * The emulator's launcher. Default: the Action's own copy, built where the runner checked it out (`npm ci` there
 * installs it and runs its build, once per job); so `uses: <owner>/chat-emulator@<ref>` works whether or not a
 * release is published. Otherwise a local checkout (built), a tarball, or a registry version.
 */
function launcher(version) {
  if (!version) {
    if (!existsSync(join(own, "dist/cli.cjs"))) {
      console.log(`Building chat-emulator at ${own} (npm ci)`);
      npm(["ci", "--no-audit", "--no-fund"], own);
    }
    return join(own, "bin/chat-emulator.js");
  }
  const local = version.startsWith(".") || version.startsWith("/") || version.endsWith(".tgz");
  if (local && !existsSync(version)) fail(`version: ${version} does not exist (a registry version, or the path of a built checkout or a tarball).`);
  if (local && statSync(version).isDirectory()) return resolve(version, "bin/chat-emulator.js");
  const prefix = join(temp, "chat-emulator-action");
  mkdirSync(prefix, { recursive: true });
  npm(["install", "--no-save", "--no-audit", "--no-fund", "--prefix", prefix, local ? resolve(version) : `chat-emulator@${version}`]);
  return join(prefix, "node_modules/chat-emulator/bin/chat-emulator.js");
}

const bin = launcher(input("version"));
if (!existsSync(bin)) fail(`no launcher at ${bin}: is the checkout built (npm install runs the build)?`);
const args = [bin, "--log-format", "json", "--port", input("port") || "4780"];
if (input("seed")) args.push("--seed", input("seed"));
if (input("data")) args.push("--data", input("data"));
if (input("https") === "true") args.push("--https");
const coverage = input("coverage") && resolve(input("coverage"));
if (coverage) args.push("--coverage", coverage);

// Its output goes to a file the post step prints; the process outlives this step. This step's summary file is
// closed when the step ends: the post step writes the coverage to its own. Nor is it run under npm, even when this
// step is (npm_* variables): under npm the CLI stops once its parent goes, which this step's process does at once.
const log = join(temp, `chat-emulator-${process.pid}.log`);
const out = openSync(log, "a");
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
delete env.GITHUB_STEP_SUMMARY;
const child = spawn(process.execPath, args, { detached: true, stdio: ["ignore", out, out], env });
child.unref();
appendFileSync(process.env.GITHUB_STATE, `pid=${child.pid}\nlog=${log}\nbin=${bin}\ncoverage=${coverage}\n`);

/** The JSON banner (`"event":"listening"`) once it is written, within 60 s. */
async function banner() {
  for (let waited = 0; waited < 60_000; waited += 100) {
    const text = existsSync(log) ? readFileSync(log, "utf8") : "";
    const line = text.split("\n").find((l) => l.includes('"event":"listening"'));
    if (line) return JSON.parse(line);
    if (child.exitCode !== null) fail(`it exited with ${child.exitCode}:\n${text.trim()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  fail(`it did not start within 60 s:\n${readFileSync(log, "utf8").trim()}`);
}

/** NODE_EXTRA_CA_CERTS as `exec` sets it: the local CA, joined with a bundle the job already names. */
function extraCaCerts(certificate) {
  const existing = process.env.NODE_EXTRA_CA_CERTS;
  if (!existing || !existsSync(existing)) return certificate;
  const bundle = join(temp, "chat-emulator-ca-bundle.pem");
  writeFileSync(bundle, `${readFileSync(existing, "utf8").trimEnd()}\n${readFileSync(certificate, "utf8")}`);
  return bundle;
}

const b = await banner();
const vars = { CHAT_EMULATOR_URL: b.url, CHAT_EMULATOR_MANAGEMENT_URL: b.management.url };
if (b.defaultApp) {
  vars.CHAT_EMULATOR_APP_ID = b.defaultApp.appId;
  vars.CHAT_EMULATOR_REGION = b.defaultApp.region;
  vars.CHAT_EMULATOR_API_KEY = b.defaultApp.restApiKey;
  vars.CHAT_EMULATOR_AUTH_KEY = b.defaultApp.authKey;
  vars.CHAT_EMULATOR_BASE_URL = b.baseUrl;
}
if (b.certificate) {
  vars.CHAT_EMULATOR_CA_CERT = b.certificate;
  vars.NODE_EXTRA_CA_CERTS = extraCaCerts(b.certificate);
}
appendFileSync(process.env.GITHUB_ENV, Object.entries(vars).map(([k, v]) => `${k}=${v}\n`).join(""));
const outputs = { url: vars.CHAT_EMULATOR_URL, "base-url": vars.CHAT_EMULATOR_BASE_URL ?? "", "app-id": vars.CHAT_EMULATOR_APP_ID ?? "", "api-key": vars.CHAT_EMULATOR_API_KEY ?? "" };
appendFileSync(process.env.GITHUB_OUTPUT, Object.entries(outputs).map(([k, v]) => `${k}=${v}\n`).join(""));
console.log(`chat-emulator ${b.version} is listening on ${b.url}`);
