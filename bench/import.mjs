// Data import at scale (issue 22): 1,000,000 messages imported through POST /v3/data_import/messages in requests
// of 50 (the documented maximum), rate limits off, over real HTTP with a few requests in flight. Messages go to
// 1,000 one-on-one conversations between 2,000 users (imported first), in time order per conversation as the
// platform asks. Reports items/s over the whole run and the heap per imported message once it is done (after a
// full GC; the same measure as the live-message bench, whose budget is 1536 bytes).
// Usage: npm run bench:import [-- 1000000 [inFlight]]   (runs node with --expose-gc)
import http from "node:http";
import { startEmulator } from "../dist/index.js";
import { KEY } from "./lib.mjs";

const N = Number(process.argv[2] ?? 1_000_000);
const IN_FLIGHT = Number(process.argv[3] ?? 4);
const BATCH = 50;
const PAIRS = 1000;
const START = 1_600_000_000;

if (!global.gc) {
  console.error("run with node --expose-gc (npm run bench:import does)");
  process.exit(2);
}
const emulator = await startEmulator({ port: 0, quiet: true, journalSize: 0 });
const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
const { port } = new URL(emulator.url);

function post(path, body) {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port, path: `/v3${path}`, method: "POST", agent, headers: { apikey: KEY, "content-type": "application/json", "content-length": Buffer.byteLength(text) } },
      (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => {
          if (res.statusCode !== 200) return reject(new Error(`${res.statusCode} ${Buffer.concat(chunks)}`));
          const data = JSON.parse(Buffer.concat(chunks)).data;
          const failed = Object.entries(data).find(([, r]) => !r.success);
          failed ? reject(new Error(`${failed[0]}: ${JSON.stringify(failed[1].error)}`)) : resolve();
        });
      },
    );
    req.on("error", reject);
    req.end(text);
  });
}

// The users first (their import is not measured).
for (let i = 0; i < PAIRS * 2; i += BATCH)
  await post("/data_import/users", { users: Object.fromEntries(Array.from({ length: BATCH }, (_, k) => [`u${i + k}`, { uid: `u${i + k}`, name: `User ${i + k}` }])) });

global.gc();
const before = process.memoryUsage().heapUsed;
const batches = N / BATCH;
let next = 0;
const batch = (b) => {
  const messages = {};
  for (let k = 0; k < BATCH; k++) {
    const i = b * BATCH + k;
    const pair = i % PAIRS;
    messages[`m${i}`] = {
      muid: `m${i}`,
      sender: `u${2 * pair}`,
      receiverType: "user",
      receiver: `u${2 * pair + 1}`,
      category: "message",
      type: "text",
      data: { text: `imported message ${i}` },
      sentAt: START + Math.floor(i / PAIRS),
    };
  }
  return { messages };
};
const started = performance.now();
await Promise.all(
  Array.from({ length: IN_FLIGHT }, async () => {
    while (next < batches) await post("/data_import/messages", batch(next++));
  }),
);
const seconds = (performance.now() - started) / 1000;
global.gc();
const heapPerMessage = Math.round((process.memoryUsage().heapUsed - before) / N);
agent.destroy();
await emulator.close();
console.log(
  JSON.stringify({ messages: N, requests: batches, inFlight: IN_FLIGHT, seconds: Number(seconds.toFixed(1)), itemsPerSecond: Math.round(N / seconds), heapBytesPerMessage: heapPerMessage }),
);
