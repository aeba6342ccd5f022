// Instructions per request, counted by valgrind's callgrind: the figure for a change too small for wall-clock runs
// on a shared machine (whose speed drifts by ±10% within minutes), since it counts the same whatever else runs.
// Each build's server (bench/servers/filled.mjs of a built checkout) runs under callgrind on one thread; it gets
// WARM sequential requests on one kept-alive connection, then N more; the counters are dumped before and after
// those N. User-space instructions only: the kernel's share (the socket write) is not in it. Needs valgrind.
// WARM (default 3,000) must leave V8 done compiling the hot path (with --single-threaded it compiles on the main
// thread): at 1,500 a GET of a message still counted 565k instructions instead of 168k. Repeated counts of one
// build mostly agree within 1-2%, but V8 now and then compiles the hot path differently (a GET of a message: 139k
// three times, 158k once; a POST, whose store grows as it runs: 259k to 396k): compare several counts per build,
// and not POSTs.
// Usage: node bench/instructions.mjs <checkout> [<checkout> ...] [--scenario get-user|get-message|get-group|post|conversations]
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { Agent, request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { SCENARIOS } from "./lib.mjs";

const args = process.argv.slice(2);
const at = args.indexOf("--scenario");
const scenario = at === -1 ? "get-user" : args.splice(at, 2)[1];
const request = SCENARIOS[scenario];
if (!request) throw new Error(`--scenario: one of ${Object.keys(SCENARIOS).join(", ")}`);
const checkouts = args.length ? args : ["."];
const WARM = Number(process.env.WARM ?? 3000);
const N = Number(process.env.N ?? 2000);

async function count(checkout) {
  const dir = mkdtempSync(join(tmpdir(), "instructions-"));
  const script = join(resolve(checkout), "bench/servers/filled.mjs");
  const child = spawn(
    "valgrind",
    ["--tool=callgrind", "--smc-check=all-non-file", `--callgrind-out-file=${dir}/cg.%p`, "--dump-instr=no", process.execPath, "--single-threaded", script, JSON.stringify(request.spec ?? {})],
    { stdio: ["ignore", "pipe", "ignore"] },
  );
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  const url = await new Promise((ok, fail) => {
    child.on("error", (e) => fail(new Error(`valgrind could not start (${e.message}): install it to count instructions`)));
    child.on("exit", (code) => fail(new Error(`${script} exited with ${code} under valgrind`)));
    const poll = setInterval(() => {
      const m = /READY (\S+)/.exec(out);
      if (m) clearInterval(poll), ok(m[1]);
    }, 100);
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const headers = { ...request.headers, ...(request.body ? { "content-length": Buffer.byteLength(request.body) } : {}) };
  const once = () =>
    new Promise((ok, fail) => {
      const req = httpRequest(url + request.path, { agent, method: request.method ?? "GET", headers }, (res) =>
        res.on("data", () => {}).on("end", () => (res.statusCode < 300 ? ok() : fail(new Error(`${request.path}: ${res.statusCode}`)))),
      );
      req.on("error", fail).end(request.body);
    });
  const total = () => {
    execFileSync("callgrind_control", ["-d", String(child.pid)], { stdio: "ignore" });
    let sum = 0;
    for (const f of readdirSync(dir).filter((x) => x.startsWith("cg."))) {
      const text = readFileSync(join(dir, f), "utf8");
      const m = /summary: (\d+)/.exec(text) ?? /totals: (\d+)/.exec(text);
      if (m) sum += Number(m[1]);
    }
    return sum;
  };
  try {
    for (let i = 0; i < WARM; i++) await once();
    const before = total();
    for (let i = 0; i < N; i++) await once();
    return (total() - before) / N;
  } finally {
    agent.destroy();
    child.removeAllListeners("exit").removeAllListeners("error");
    child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
}

const figures = [];
for (const checkout of checkouts) {
  const perRequest = await count(checkout);
  figures.push(perRequest);
  const vsFirst = figures.length > 1 ? ` (${((perRequest / figures[0] - 1) * 100).toFixed(1)}% against the first)` : "";
  console.log(`${checkout}: ${(perRequest / 1000).toFixed(1)}k instructions per request, ${scenario}${vsFirst}`);
}
