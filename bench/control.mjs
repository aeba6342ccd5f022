// What the control plane costs per request (issue 6): GET /v3/users/superhero1 with the control plane idle
// (journal off, no rules, no rate limits), with the default journal, with 10 rules that match nothing, and with
// rate limits on, each against the bare-Hono baseline of the same run. Besides req/s (which on a 2-core machine
// also measures the load generator), it reports the server's CPU time per request, the steadier figure.
// Usage: npm run bench:control
import { KEY, LOAD, load, startServer } from "./lib.mjs";

const PATH = "/v3/users/superhero1";
const HIGH = { core: 1e9, standard: 1e9 }; // rate limits on, never reached
const scenarios = [
  ["control plane idle (--journal-size 0)", { journalSize: 0 }, 0],
  ["journal (default: 1000 entries)", {}, 0],
  ["journal + 10 rules that match nothing", {}, 10],
  ["journal + rate limits on", { rateLimit: HIGH }, 0],
];

const baseline = await startServer("baseline");
const base = await load({ url: baseline.url + PATH });
await baseline.stop();

console.log(`load: autocannon, ${LOAD.connections} connections, ${LOAD.duration} s per scenario`);
console.log(`baseline (bare Hono, fixed JSON): ${base.rps} req/s, p99 ${base.p99} ms`);
for (const [name, options, rules] of scenarios) {
  const s = await startServer("emulator", [JSON.stringify(options), String(rules)]);
  const r = await load({ url: s.url + PATH, headers: { apikey: KEY } });
  const { cpuMs } = await s.stop();
  const cpuUsPerRequest = (cpuMs * 1000) / (r.rps * LOAD.duration);
  console.log(
    `${name}: ${r.rps} req/s (${(r.rps / base.rps).toFixed(2)}x baseline), p99 ${r.p99} ms, ` +
      `server CPU ${cpuUsPerRequest.toFixed(1)} µs/request`,
  );
}
