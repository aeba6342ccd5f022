// `chat-emulator pull` at scale (issue 51): a demo app of 10,000 users, 1,000 groups and 100,000 messages, served by
// a second emulator (`--import`), pulled with `--messages 1000`. Reports the pull's time, its summary line (requests,
// waits) and its peak memory (RSS).
// Usage: npm run bench:pull [-- --users 10000 --groups 1000 --messages 100000 --per-conversation 1000]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mb, runCli } from "./lib.mjs";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : process.argv[i + 1];
};
const sizes = ["--users", arg("users", "10000"), "--groups", arg("groups", "1000"), "--messages", arg("messages", "100000")];
const dir = mkdtempSync(join(tmpdir(), "chat-emulator-pull-bench-"));
const demo = join(dir, "demo.json");
let platform;
try {
  await runCli(["demo", ...sizes, "--until", "2026-01-01", "--out", demo]);
  platform = await runCli(["--port", "0", "--journal-size", "0", "--import", demo], /REST API Key\s+\w+/);
  const url = /listening on (\S+)/.exec(platform.out)[1];
  const apps = await (await fetch(`${url}/_emulator/apps`)).json();
  const app = apps.apps[0];
  const key = app.apiKeys.find((k) => k.scope === "fullAccess").apiKey;
  const out = join(dir, "pulled.json");
  const perConversation = arg("per-conversation", "1000");
  const pull = await runCli(["pull", "--app-id", app.appId, "--api-key", key, "--base-url", `${url}${app.restPath}`, "--messages", perConversation, "--out", out]);
  console.log(`pull of demo ${sizes.join(" ")} with --messages ${perConversation}: ${(pull.ms / 1000).toFixed(1)} s, peak RSS ${mb(pull.peak)}`);
  console.log(pull.out.trim().split("\n").find((l) => l.startsWith("chat-emulator: pulled")));
} finally {
  platform?.child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
}
