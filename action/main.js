// The GitHub Action's main step (action.yml): starts chat-emulator in the background, waits until it listens, and
// exports the same CHAT_EMULATOR_* variables as `chat-emulator exec` (src/env.ts) through GITHUB_ENV and the step's
// outputs. Plain JavaScript without dependencies: nothing is installed or built on the runner but the emulator.
import { execFileSync, spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, openSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

const input = (name) => (process.env[`INPUT_${name.toUpperCase()}`] ?? "").trim();
const temp = process.env.RUNNER_TEMP || process.env.TMPDIR || "/tmp";
const fail = (message) => {
  console.log(`::error::chat-emulator: ${message}`);
  process.exit(1);
};

/** The emulator's launcher: a local checkout's (built), or the one of a package installed from a tarball or the registry. */
function launcher(version) {
  const local = version.startsWith(".") || version.startsWith("/") || version.endsWith(".tgz");
  if (local && existsSync(version) && statSync(version).isDirectory()) return resolve(version, "bin/chat-emulator.js");
  const prefix = join(temp, "chat-emulator-action");
  mkdirSync(prefix, { recursive: true });
  const spec = local ? resolve(version) : `chat-emulator@${version || "latest"}`;
  execFileSync("npm", ["install", "--no-save", "--no-audit", "--no-fund", "--prefix", prefix, spec], { stdio: "inherit" });
  return join(prefix, "node_modules/chat-emulator/bin/chat-emulator.js");
}

const bin = launcher(input("version"));
if (!existsSync(bin)) fail(`no launcher at ${bin}: is the checkout built (npm install runs the build)?`);
const args = [bin, "--log-format", "json", "--port", input("port") || "4780"];
if (input("seed")) args.push("--seed", input("seed"));
if (input("data")) args.push("--data", input("data"));
if (input("https") === "true") args.push("--https");

// Its output goes to a file the post step prints; the process outlives this step.
const log = join(temp, `chat-emulator-${process.pid}.log`);
const out = openSync(log, "a");
const child = spawn(process.execPath, args, { detached: true, stdio: ["ignore", out, out] });
child.unref();
appendFileSync(process.env.GITHUB_STATE, `pid=${child.pid}\nlog=${log}\n`);

/** The JSON banner (`"event":"listening"`) once it is written, within 60 s. */
async function banner() {
  for (let waited = 0; waited < 60_000; waited += 100) {
    const text = existsSync(log) ? readFileSync(log, "utf8") : "";
    const line = text.split("\n").find((l) => l.includes('"event":"listening"'));
    if (line) return JSON.parse(line);
    if (child.exitCode !== null) fail(`it exited with ${child.exitCode}:\n${text}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  fail(`it did not start within 60 s:\n${readFileSync(log, "utf8")}`);
}

const b = await banner();
const env = { CHAT_EMULATOR_URL: b.url, CHAT_EMULATOR_MANAGEMENT_URL: b.management.url };
if (b.defaultApp) {
  env.CHAT_EMULATOR_APP_ID = b.defaultApp.appId;
  env.CHAT_EMULATOR_REGION = b.defaultApp.region;
  env.CHAT_EMULATOR_API_KEY = b.defaultApp.restApiKey;
  env.CHAT_EMULATOR_AUTH_KEY = b.defaultApp.authKey;
  env.CHAT_EMULATOR_BASE_URL = b.baseUrl;
}
if (b.certificate) env.CHAT_EMULATOR_CA_CERT = b.certificate;
appendFileSync(process.env.GITHUB_ENV, Object.entries(env).map(([k, v]) => `${k}=${v}\n`).join(""));
const outputs = { url: env.CHAT_EMULATOR_URL, "base-url": env.CHAT_EMULATOR_BASE_URL ?? "", "app-id": env.CHAT_EMULATOR_APP_ID ?? "", "api-key": env.CHAT_EMULATOR_API_KEY ?? "" };
appendFileSync(process.env.GITHUB_OUTPUT, Object.entries(outputs).map(([k, v]) => `${k}=${v}\n`).join(""));
console.log(`chat-emulator ${b.version} is listening on ${b.url}`);
