// What the control plane costs per request (issue 6): GET /v3/users/superhero1 req/s with the control plane idle
// (journal off, no rules, no rate limits), with the default journal, and with journal + 10 rules that do not
// match + rate limits on, each against the bare-Hono baseline of the same run.
// Usage: npm run bench:control
import { LOAD, load, startServer } from "./lib.mjs";

const KEY = "1f9f0b22749354cad59f77bcdfe2f768620afeb6";
const PATH = "/v3/users/superhero1";
const scenarios = [
  ["control idle (--journal-size 0)", [JSON.stringify({ journalSize: 0 })]],
  ["journal on (default, 1000 entries)", [JSON.stringify({})]],
  ["journal + 10 non-matching rules + rate limits", [JSON.stringify({ rateLimit: { core: 1e9, standard: 1e9 } }), "10"]],
];

const baseline = await startServer("baseline");
const base = await load({ url: baseline.url + PATH });
await baseline.stop();

console.log(`load: autocannon, ${LOAD.connections} connections, ${LOAD.duration} s per scenario`);
console.log(`baseline (bare Hono, fixed JSON): ${base.rps} req/s, p99 ${base.p99} ms`);
for (const [name, args] of scenarios) {
  const s = await startServer("emulator", args);
  const r = await load({ url: s.url + PATH, headers: { apikey: KEY } });
  await s.stop();
  console.log(`${name}: ${r.rps} req/s (${(r.rps / base.rps).toFixed(2)}x), p50 ${r.p50} ms, p99 ${r.p99} ms`);
}
