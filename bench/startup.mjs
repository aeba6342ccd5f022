// Time from process spawn to a healthy /_emulator/health (seeded default app), median of N runs (default 10), next
// to a bare node:http server started the same way in runs alternating with the emulator's (so drift in the host's
// speed hits both alike). Usage: node bench/startup.mjs [N]; also imported by the suite (bench/run.mjs).
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const BIN = fileURLToPath(new URL("../bin/chat-emulator.js", import.meta.url));
const BARE = fileURLToPath(new URL("./servers/bare-node.mjs", import.meta.url));

async function once(script) {
  const t0 = performance.now();
  const child = spawn(process.execPath, [script, "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
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

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Medians of `runs` alternating starts of the emulator and of the bare server, in ms. */
export async function startupTimes(runs) {
  const emulator = [];
  const bare = [];
  for (let i = 0; i < runs; i++) {
    bare.push(await once(BARE));
    emulator.push(await once(BIN));
  }
  return { emulatorMs: +median(emulator).toFixed(1), bareMs: +median(bare).toFixed(1), ratio: +(median(emulator) / median(bare)).toFixed(2) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify({ runs: Number(process.argv[2] ?? 10), ...(await startupTimes(Number(process.argv[2] ?? 10))) }));
}
