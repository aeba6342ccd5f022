// Demo data at scale (issue 24): `chat-emulator demo` with 10,000 users, 1,000 groups and 1,000,000 messages,
// written to a temporary file as the CLI writes it. Reports the time, the file's size and the peak memory (RSS) of
// the generation; with --load, also how long the emulator takes to start from the file (--import).
// Usage: npm run bench:demo [-- --users 10000 --groups 1000 --messages 1000000] [-- --load]
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const BIN = fileURLToPath(new URL("../bin/chat-emulator.js", import.meta.url));
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : process.argv[i + 1];
};
const sizes = ["--users", arg("users", "10000"), "--groups", arg("groups", "1000"), "--messages", arg("messages", "1000000")];
const dir = mkdtempSync(join(tmpdir(), "chat-emulator-demo-bench-"));
const file = join(dir, "demo.json");

/** Runs the CLI to its end (or until its output matches `until`); resolves with the wall time and its peak RSS (Linux). */
function run(args, until) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let peak = 0;
    const sample = setInterval(() => {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
        peak = Math.max(peak, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024);
      } catch {}
    }, 100);
    const onData = (d) => {
      out += d;
      if (until && until.test(out)) {
        clearInterval(sample);
        resolve({ ms: performance.now() - started, peak, out, child });
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("exit", (code) => {
      clearInterval(sample);
      if (code !== 0 && !until) return reject(new Error(out));
      resolve({ ms: performance.now() - started, peak, out, child });
    });
  });
}

try {
  const gen = await run(["demo", ...sizes, "--until", "2026-01-01", "--out", file]);
  const mb = (n) => `${(n / 1024 / 1024).toFixed(0)} MB`;
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
