// Time from process spawn to a healthy /_emulator/health (seeded default app), median of N runs (default 10).
// Usage: node bench/startup.mjs [N]; also imported by the suite (bench/run.mjs).
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const BIN = fileURLToPath(new URL("../bin/chat-emulator.js", import.meta.url));

async function once() {
  const t0 = performance.now();
  const child = spawn(process.execPath, [BIN, "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  const url = await new Promise((resolve) =>
    child.stdout.on("data", (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    }),
  );
  for (;;) {
    const r = await fetch(`${url}/_emulator/health`).catch(() => null);
    if (r?.ok) break;
  }
  const ms = performance.now() - t0;
  child.kill();
  await new Promise((r) => child.on("exit", r));
  return ms;
}

export async function startupTimes(runs) {
  const times = [];
  for (let i = 0; i < runs; i++) times.push(await once());
  return times;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const runs = Number(process.argv[2] ?? 10);
  const times = (await startupTimes(runs)).sort((a, b) => a - b);
  console.log(JSON.stringify({ runs, medianMs: +times[Math.floor(runs / 2)].toFixed(1), minMs: +times[0].toFixed(1), maxMs: +times[runs - 1].toFixed(1) }));
}
