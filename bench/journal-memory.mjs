// The request journal's memory under mixed traffic (npm run bench:journal): the emulator in its own process with
// the default journal (1,000 entries; BENCH_JOURNAL_SIZE=0 for a run without one to compare),
// BENCH_JOURNAL_REQUESTS (default 100,000) requests of mixed kinds and sizes
// from 8 kept-alive connections: lists with page sizes that keep changing (responses from a few hundred bytes to
// past the journal's 64 KB body cap), sends and profile updates with bodies of changing sizes, 400s and 404s.
// Prints the server's memory after a full GC before the traffic and after each quarter of it: the journal lives in
// off-heap buffers (external, arrayBuffers), the stored messages on the heap.
import { Agent, request } from "node:http";
import { KEY, startServer } from "./lib.mjs";

const TOTAL = Number(process.env.BENCH_JOURNAL_REQUESTS ?? 100_000);
const CONNECTIONS = 8;
const USERS = 100;
const SIZE = Number(process.env.BENCH_JOURNAL_SIZE ?? 1000);

const server = await startServer("emulator", [JSON.stringify({ journalSize: SIZE })]);
const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });

let seed = 17;
/** A whole number in [min, max], from a fixed sequence (runs compare). */
const pick = (min, max) => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return min + (seed % (max - min + 1));
};

function send(method, path, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const h = { apikey: KEY, ...headers, ...(text ? { "content-type": "application/json", "content-length": Buffer.byteLength(text) } : {}) };
    const req = request(`${server.url}${path}`, { method, agent, headers: h }, (res) => {
      res.on("data", () => {}).on("end", () => (res.statusCode < 500 ? resolve(res.statusCode) : reject(new Error(`${method} ${path}: ${res.statusCode}`))));
    });
    req.on("error", reject);
    req.end(text);
  });
}

const text = (n) => "x".repeat(n);
const asSender = { onBehalfOf: "superhero1" };
/** One request of the mix, by its number. */
function mixed(i) {
  const u = `u${pick(1, USERS)}`;
  switch (i % 10) {
    case 0: return send("POST", "/v3/messages", { receiver: "superhero2", receiverType: "user", data: { text: text(pick(1, 1000)) } }, asSender);
    case 1: case 2: return send("GET", `/v3/users?perPage=${pick(1, 100)}`);
    case 3: return send("GET", `/v3/users/superhero2/messages?perPage=${pick(1, 100)}`, undefined, asSender);
    case 4: return send("PUT", `/v3/users/${u}`, { metadata: { note: text(pick(10, 4000)) } });
    case 5: return send("GET", `/v3/users/nosuchuser${i}`);
    case 6: return send("GET", "/v3/groups");
    case 7: return send("POST", "/v3/users", { uid: "bad uid!", name: text(pick(1, 300)) });
    case 8: return send("GET", `/v3/users/${u}`);
    default: return send("GET", `/v3/users/superhero1/conversations?perPage=${pick(1, 50)}`, undefined, asSender);
  }
}

async function memory() {
  const count = (server.output().match(/MEMORY /g) ?? []).length;
  process.kill(server.pid, "SIGUSR2");
  while ((server.output().match(/MEMORY /g) ?? []).length === count) await new Promise((r) => setTimeout(r, 20));
  const m = JSON.parse(server.output().trim().split("\n").filter((l) => l.startsWith("MEMORY ")).at(-1).slice(7));
  const mib = (b) => +(b / 1024 / 1024).toFixed(1);
  return { rssMiB: mib(m.rss), heapTotalMiB: mib(m.heapTotal), heapUsedMiB: mib(m.heapUsed), externalMiB: mib(m.external), arrayBuffersMiB: mib(m.arrayBuffers) };
}

for (let i = 1; i <= USERS; i++) await send("POST", "/v3/users", { uid: `u${i}`, name: `User ${i}`, metadata: { note: text(pick(10, 4000)) } });
const rows = [{ requests: 0, ...(await memory()) }];
const started = performance.now();
let next = 0;
for (const quarter of [1, 2, 3, 4]) {
  const until = Math.round((TOTAL * quarter) / 4);
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (next < until) await mixed(next++);
  }));
  rows.push({ requests: until, ...(await memory()) });
}
const seconds = (performance.now() - started) / 1000;
console.table(rows);
console.log(`${TOTAL} requests in ${seconds.toFixed(1)} s; journal size ${SIZE}`);
agent.destroy();
await server.stop();
