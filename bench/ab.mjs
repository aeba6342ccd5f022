// A/B of two builds of the emulator (two checkouts, each built): the same request to each, in alternating runs,
// reading each server's CPU time per request from /proc and its req/s. For a change's before/after figure.
// Usage: node bench/ab.mjs <checkout A> <checkout B> [scenario]   scenarios: get-user get-message get-group post conversations list-users
// AB_SPEC (JSON) adds to the scenario's content (see servers/filled.mjs); AB_DATA=<folder> runs both with --data
// (A.json and B.json there, created afresh), for the cost of persisting each write.
import { spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import autocannon from "autocannon";
import { SCENARIOS } from "./lib.mjs";

const [a, b, scenario = "get-user"] = process.argv.slice(2);
const request = SCENARIOS[scenario];
if (!request) throw new Error(`scenario: one of ${Object.keys(SCENARIOS).join(", ")}`);
const rounds = Number(process.env.AB_ROUNDS ?? 5);
const seconds = Number(process.env.AB_SECONDS ?? 3);

function start(dir, name) {
  const spec = { ...request.spec, ...JSON.parse(process.env.AB_SPEC ?? "{}") };
  if (process.env.AB_DATA) {
    spec.data = join(resolve(process.env.AB_DATA), `${name}.json`);
    for (const f of [spec.data, `${spec.data}.changes-1`, `${spec.data}.changes-2`]) rmSync(f, { force: true });
  }
  const child = spawn(process.execPath, [join(resolve(dir), "bench/servers/filled.mjs"), JSON.stringify(spec)], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  return new Promise((ok) => {
    const poll = setInterval(() => {
      const m = /READY (\S+)/.exec(out);
      if (m) clearInterval(poll), ok({ url: m[1], pid: child.pid, child });
    }, 20);
  });
}
const cpuMs = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
};
async function run(s, duration) {
  const before = cpuMs(s.pid);
  const { spec, ...req } = request;
  const r = await autocannon({ url: s.url + request.path, connections: 10, duration, ...req });
  if (r.non2xx) throw new Error(`${r.non2xx} non-2xx`);
  return { rps: r.requests.average, us: ((cpuMs(s.pid) - before) * 1000) / r.requests.total };
}
const servers = [await start(a, "A"), await start(b, "B")];
for (const s of servers) await run(s, 1);
const res = [[], []];
for (let i = 0; i < rounds; i++) for (const k of [0, 1]) res[k].push(await run(servers[k], seconds));
const med = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
for (const k of [0, 1])
  console.log(`${k ? "B" : "A"} ${process.argv[2 + k]}: ${Math.round(med(res[k].map((r) => r.rps)))} req/s, ${med(res[k].map((r) => r.us)).toFixed(1)} µs CPU/req`);
console.log(`B/A req/s ${(med(res[1].map((r) => r.rps)) / med(res[0].map((r) => r.rps))).toFixed(3)}, CPU per request B/A ${(med(res[1].map((r) => r.us)) / med(res[0].map((r) => r.us))).toFixed(3)}`);
for (const s of servers) s.child.kill();
