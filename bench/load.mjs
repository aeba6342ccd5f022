// Loading, saving and exporting large states (issue 35): for each size, a demo state (`chat-emulator demo
// --messages N --users 2000 --groups 100`) is started from with --data (a copy) and with --import, and put to a
// running emulator with PUT /_emulator/state. Reports the time until /_emulator/health answers 200 and the
// process's peak RSS (VmHWM), then, on the --data run, the latency of a small request (health, one every 5 ms)
// while the whole state is saved after a change and while it is exported (GET /_emulator/state): max and p99, the
// event loop's delay as a client sees it (on a busy machine that includes the time the two processes wait for a
// core). Then the same in one process, where the event loop's own delay is measured (monitorEventLoopDelay):
// `inProcess` holds its p99 and max while a change's checkpoint writes the whole state and while the state is
// serialized for an export.
// Usage: npm run bench:load [-- 10000 100000 1000000]   (files are generated once into bench/.load/)
import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

const SIZES = process.argv.slice(2).map(Number);
if (SIZES.length === 0) SIZES.push(10_000, 100_000, 1_000_000);
const BIN = fileURLToPath(new URL("../bin/chat-emulator.js", import.meta.url));
const DIR = fileURLToPath(new URL("./.load/", import.meta.url));
mkdirSync(DIR, { recursive: true });

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const peakRssMb = (pid) => Math.round(Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) / 1024);
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? 0;

/** The demo file for `n` messages and its REST key (generated once). */
function demoFile(n) {
  const file = `${DIR}demo-${n}.json`;
  const keyFile = `${file}.key`;
  if (!existsSync(file) || !existsSync(keyFile)) {
    const r = spawnSync(process.execPath, [BIN, "demo", "--messages", String(n), "--users", "2000", "--groups", "100", "--until", "2026-01-01T00:00:00Z", "--out", file], { encoding: "utf8" });
    if (r.status !== 0) throw new Error(r.stderr);
    spawnSync("sh", ["-c", `printf %s "${/REST API key (\w+)/.exec(r.stderr)[1]}" > "${keyFile}"`]);
  }
  return { file, key: readFileSync(keyFile, "utf8"), mb: Math.round(statSync(file).size / 1e6) };
}

/** Starts the CLI with `args`; resolves once health answers 200, with the seconds that took. */
async function start(args) {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, "--port", String(port), "--quiet", ...args], { stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  child.stderr.on("data", (d) => (err += d));
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${err}`);
    const ok = await fetch(`${url}/_emulator/health`).then((r) => r.status === 200, () => false);
    if (ok) break;
    await sleep(50);
  }
  const seconds = (performance.now() - started) / 1000;
  return { child, url, seconds, stop: () => new Promise((r) => (child.on("exit", r), child.kill("SIGKILL"))) };
}

/** Health latencies (ms), one request every 5 ms, until `done` resolves. */
async function probe(url, done) {
  const latencies = [];
  let finished = false;
  done.then(() => (finished = true));
  while (!finished) {
    const t = performance.now();
    await fetch(`${url}/_emulator/health`).then((r) => r.arrayBuffer());
    latencies.push(performance.now() - t);
    await sleep(5);
  }
  return { maxMs: Math.round(Math.max(0, ...latencies.slice(-100_000))), p99Ms: Math.round(pct(latencies, 0.99)), samples: latencies.length };
}

/** The event loop's delay (ms, p99 and max) while `work` runs. */
async function loopDelay(work) {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  await work();
  h.disable();
  return { p99Ms: Math.round(h.percentile(99) / 1e6), maxMs: Math.round(h.max / 1e6) };
}

/** In this process: a change's checkpoint (flush) and an export's serialization, with the loop's delay meanwhile. */
async function inProcess(file, key, n) {
  const { createEmulator } = await import("../dist/index.js");
  const { stateText } = await import("../dist/store/state-writer.js");
  const data = `${DIR}inprocess-${n}.json`;
  copyFileSync(file, data);
  const e = await createEmulator({ data, quiet: true });
  const change = await e.app.request("http://localhost/v3/users", { method: "POST", headers: { apikey: key, "content-type": "application/json" }, body: JSON.stringify({ uid: "bench-change-2", name: "Bench" }) });
  if (change.status !== 200) throw new Error(`change: ${change.status}`);
  const saving = await loopDelay(() => e.persistence.flush());
  const exporting = await loopDelay(async () => {
    for await (const piece of stateText(e.emulator.store.toData())) void piece;
  });
  e.persistence.close();
  rmSync(data, { force: true });
  return { saving, exporting };
}

const rows = [];
for (const n of SIZES) {
  const { file, key, mb } = demoFile(n);
  const row = { messages: n, fileMB: mb };

  // --data: load, then a change (the whole state is saved) and an export, each with the health latency meanwhile.
  const data = `${DIR}data-${n}.json`;
  copyFileSync(file, data);
  const d = await start(["--data", data]);
  row.dataSeconds = Number(d.seconds.toFixed(1));
  row.dataPeakRssMB = peakRssMb(d.child.pid);
  const before = statSync(data).mtimeMs;
  const saved = (async () => {
    const r = await fetch(`${d.url}/v3/users`, { method: "POST", headers: { apikey: key, "content-type": "application/json" }, body: JSON.stringify({ uid: "bench-change", name: "Bench" }) });
    if (r.status !== 200) throw new Error(`change: ${r.status} ${await r.text()}`);
    while (statSync(data).mtimeMs === before) await sleep(20);
  })();
  row.whileSaving = await probe(d.url, saved);
  const exported = (async () => {
    const r = await fetch(`${d.url}/_emulator/state`);
    let bytes = 0;
    for await (const chunk of r.body) bytes += chunk.byteLength;
    row.exportMB = Math.round(bytes / 1e6);
  })();
  row.whileExporting = await probe(d.url, exported);
  row.dataPeakRssAfterSaveMB = peakRssMb(d.child.pid);
  await d.stop();
  rmSync(data, { force: true });

  // --import: the file is only read.
  const i = await start(["--import", file]);
  row.importSeconds = Number(i.seconds.toFixed(1));
  row.importPeakRssMB = peakRssMb(i.child.pid);
  await i.stop();

  // PUT /_emulator/state to an emulator without apps.
  const p = await start(["--seed", "none"]);
  const t = performance.now();
  const put = await fetch(`${p.url}/_emulator/state`, { method: "PUT", headers: { "content-type": "application/json" }, body: readFileSync(file), duplex: "half" });
  if (put.status !== 200) throw new Error(`PUT: ${put.status} ${await put.text()}`);
  row.putSeconds = Number(((performance.now() - t) / 1000).toFixed(1));
  row.putPeakRssMB = peakRssMb(p.child.pid);
  await p.stop();

  row.inProcess = await inProcess(file, key, n);
  rows.push(row);
  console.log(JSON.stringify(row));
}
