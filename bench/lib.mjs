// Shared pieces of the benchmarks: start a server script in its own process (so the load generator and the
// server do not share an event loop), and drive it with autocannon.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { Agent, request as httpRequest } from "node:http";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";

/**
 * Load settings, fixed so runs compare (override with BENCH_CONNECTIONS, BENCH_DURATION seconds per run and
 * BENCH_ROUNDS). Throughput scenarios use 10 connections (autocannon runs in the bench's own process: one core
 * for it, one for the server under test); latency targets are read one request at a time (`sequential`), the
 * cost of a request without queueing behind nine others.
 */
export const LOAD = {
  connections: Number(process.env.BENCH_CONNECTIONS ?? 10),
  duration: Number(process.env.BENCH_DURATION ?? 3),
  rounds: Number(process.env.BENCH_ROUNDS ?? 3),
  warmupSeconds: 1,
};

/**
 * Spawns `bench/servers/<name>.mjs`; resolves once it prints `READY <url> <json>`. `output()` is what it printed so
 * far; `stop()` resolves its STATS.
 */
export function startServer(name, args = []) {
  const script = fileURLToPath(new URL(`./servers/${name}.mjs`, import.meta.url));
  const child = spawn(process.execPath, ["--max-old-space-size=8192", "--expose-gc", script, ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  return new Promise((resolve, reject) => {
    const early = (code) => reject(new Error(`${name} exited with ${code} before it was ready`));
    child.on("exit", early);
    const poll = setInterval(() => {
      const m = /READY (\S+) (.*)\n/.exec(out);
      if (!m) return;
      clearInterval(poll);
      child.off("exit", early);
      resolve({ url: m[1], pid: child.pid, info: JSON.parse(m[2]), output: () => out, stop: () => stop(child, () => out) });
    }, 10);
  });
}

function stop(child, output) {
  return new Promise((resolve) => {
    child.on("exit", () => {
      const m = /STATS (.*)\n/.exec(output());
      resolve(m ? JSON.parse(m[1]) : {});
    });
    child.kill("SIGTERM");
  });
}

/** Runs autocannon against one request; returns req/s and latency percentiles in ms. */
export async function load(opts) {
  const result = await autocannon({ connections: LOAD.connections, duration: LOAD.duration, ...opts });
  if (result.non2xx > 0) throw new Error(`${opts.url}: ${result.non2xx} non-2xx answers`);
  return { rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99 };
}

/**
 * One request's throughput on the emulator next to the very same request (method, headers, body) on the
 * baseline: after a warm-up of each, LOAD.rounds alternating runs (baseline, emulator, baseline, ...), so that
 * drift in the host's speed (a shared virtual machine) hits both alike. Returns the median run of each.
 */
export async function compare(baselineUrl, emulatorUrl, request) {
  const on = (url) => ({ ...request, url: url + request.path });
  for (const url of [baselineUrl, emulatorUrl]) await load({ ...on(url), duration: LOAD.warmupSeconds });
  const runs = { baseline: [], emulator: [] };
  for (let i = 0; i < LOAD.rounds; i++) {
    runs.baseline.push(await load(on(baselineUrl)));
    runs.emulator.push(await load(on(emulatorUrl)));
  }
  const mid = (xs) => [...xs].sort((a, b) => a.rps - b.rps)[Math.floor(xs.length / 2)];
  return { baseline: mid(runs.baseline), emulator: mid(runs.emulator) };
}

/**
 * The cost of one request at a time: sequential GETs on one kept-alive connection for `seconds`, each timed with
 * performance.now() (autocannon rounds latencies to whole milliseconds, too coarse for a 5 ms target).
 */
export async function sequential({ url, headers = {}, seconds = LOAD.duration * LOAD.rounds }) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const once = () =>
    new Promise((resolve, reject) => {
      const req = httpRequest(url, { agent, headers }, (res) => {
        res.on("data", () => {}).on("end", () => (res.statusCode < 300 ? resolve() : reject(new Error(`${url}: ${res.statusCode}`))));
      });
      req.on("error", reject).end();
    });
  for (let i = 0; i < 100; i++) await once(); // warm-up
  const times = [];
  const until = performance.now() + seconds * 1000;
  for (let t = performance.now(); t < until; ) {
    await once();
    const now = performance.now();
    times.push(now - t);
    t = now;
  }
  agent.destroy();
  times.sort((a, b) => a - b);
  const at = (q) => +times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(2);
  return { rps: Math.round(times.length / seconds), p50: at(0.5), p99: at(0.99) };
}

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The seeded default app's REST key. */
export const KEY = "1f9f0b22749354cad59f77bcdfe2f768620afeb6";
/** The requests bench/ab.mjs and bench/instructions.mjs compare builds on; `spec` fills the server (servers/filled.mjs). */
export const SCENARIOS = {
  "get-user": { path: "/v3/users/superhero1", headers: { apikey: KEY } },
  "get-message": { path: "/v3/messages/1", headers: { apikey: KEY } },
  "get-group": { path: "/v3/groups/supergroup", headers: { apikey: KEY } },
  post: {
    path: "/v3/messages",
    method: "POST",
    headers: { apikey: KEY, "content-type": "application/json", onBehalfOf: "superhero1" },
    body: JSON.stringify({ receiver: "superhero2", receiverType: "user", data: { text: "hello" } }),
  },
  conversations: { path: "/v3/conversations", headers: { apikey: KEY, onBehalfOf: "bench-0" }, spec: { userConversations: 1000 } },
  "list-users": { path: "/v3/users?perPage=100", headers: { apikey: KEY }, spec: { users: 10_000 } },
};

const BIN = fileURLToPath(new URL("../bin/chat-emulator.js", import.meta.url));

export const mb = (n) => `${(n / 1024 / 1024).toFixed(0)} MB`;

/** Runs the CLI to its end (or until its output matches `until`); resolves with the wall time and its peak RSS (Linux). */
export function runCli(args, until) {
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
