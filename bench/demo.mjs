// Demo data at scale (issue 24): `chat-emulator demo` with 10,000 users, 1,000 groups and 1,000,000 messages,
// written to a temporary file as the CLI writes it. Reports the time, the file's size and the peak memory (RSS) of
// the generation; with --load, also how long the emulator takes to start from the file (--import).
// Usage: npm run bench:demo [-- --users 10000 --groups 1000 --messages 1000000] [-- --load]
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mb, runCli as run } from "./lib.mjs";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : process.argv[i + 1];
};
const sizes = ["--users", arg("users", "10000"), "--groups", arg("groups", "1000"), "--messages", arg("messages", "1000000")];
const dir = mkdtempSync(join(tmpdir(), "chat-emulator-demo-bench-"));
const file = join(dir, "demo.json");

try {
  const gen = await run(["demo", ...sizes, "--until", "2026-01-01", "--out", file]);
  console.log(`demo ${sizes.join(" ")}: ${(gen.ms / 1000).toFixed(1)} s, file ${mb(statSync(file).size)}, peak RSS ${mb(gen.peak)}`);
  console.log(gen.out.trim().split("\n")[0]);
  if (process.argv.includes("--load")) {
    const load = await run(["--port", "0", "--import", file], /listening on/);
    console.log(`start with --import: ${(load.ms / 1000).toFixed(1)} s, peak RSS ${mb(load.peak)}`);
    load.child.kill("SIGKILL");
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
