// Server CPU time per request, baseline vs emulator (A/B figures that hold still on a shared machine: wall-clock
// req/s drifts with the host, the CPU a server spends per answer much less). Same request to both, alternating.
// Usage: npm run bench:cpu [-- scenario...]   scenarios: the keys of SCENARIOS below (default: all)
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { KEY, startServer } from "./lib.mjs";

const headers = (onBehalfOf) => ({ apikey: KEY, "content-type": "application/json", ...(onBehalfOf ? { onBehalfOf } : {}) });
const send = (from, to) => ({
  path: "/v3/messages",
  method: "POST",
  headers: headers(from),
  body: JSON.stringify({ receiver: to, receiverType: "user", data: { text: "hello" } }),
});
const SCENARIOS = {
  "get-user-nojournal": [{ journalSize: 0 }, { path: "/v3/users/superhero1", headers: headers() }],
  "get-user": [{}, { path: "/v3/users/superhero1", headers: headers() }],
  "get-message": [{}, { path: "/v3/messages/1", headers: headers() }],
  "get-group": [{}, { path: "/v3/groups/supergroup", headers: headers() }],
  post: [{}, send("superhero1", "superhero2")],
  "post-data": [{ data: join(tmpdir(), `cpu-bench-${process.pid}.json`), messages: 100_000, conversations: 1000 }, send("bench-0", "bench-2")],
  "conversations-100": [{ userConversations: 100 }, { path: "/v3/conversations", headers: headers("bench-0") }],
  conversations: [{ userConversations: 1000 }, { path: "/v3/conversations", headers: headers("bench-0") }],
};
const seconds = Number(process.env.CPU_SECONDS ?? 3);
const rounds = Number(process.env.CPU_ROUNDS ?? 3);
const TICK_MS = 10; // USER_HZ 100

const cpuMs = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(f[11]) + Number(f[12])) * TICK_MS;
};

async function measure(server, request) {
  const before = cpuMs(server.pid);
  const r = await autocannon({ url: server.url + request.path, connections: 10, duration: seconds, ...request });
  const used = cpuMs(server.pid) - before;
  if (r.non2xx) throw new Error(`${request.path}: ${r.non2xx} non-2xx`);
  return { rps: Math.round(r.requests.average), usPerReq: (used * 1000) / r.requests.total };
}

const mid = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const baseline = await startServer("baseline");
for (const name of process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(SCENARIOS)) {
  const [spec, request] = SCENARIOS[name];
  const s = await startServer("filled", [JSON.stringify(spec)]);
  await autocannon({ url: baseline.url + request.path, connections: 10, duration: 1, ...request });
  await autocannon({ url: s.url + request.path, connections: 10, duration: 1, ...request });
  const b = [], e = [];
  for (let i = 0; i < rounds; i++) {
    b.push(await measure(baseline, request));
    e.push(await measure(s, request));
  }
  const stats = await s.stop();
  if (spec.data) rmSync(spec.data, { force: true });
  const bu = mid(b.map((x) => x.usPerReq)), eu = mid(e.map((x) => x.usPerReq));
  console.log(
    `${name}: emulator ${eu.toFixed(1)} µs CPU/req (${mid(e.map((x) => x.rps))} req/s), baseline ${bu.toFixed(1)} µs (${mid(b.map((x) => x.rps))} req/s); ` +
      `CPU ratio ${(bu / eu).toFixed(2)}×` + (stats.eventLoopDelayP99Ms !== undefined ? `; event-loop p99 ${stats.eventLoopDelayP99Ms} ms` : ""),
  );
}
await baseline.stop();
