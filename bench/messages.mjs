// Messages at scale (issue 4): send req/s, and listing the latest 100 messages of one conversation with 10k and
// with 1M messages stored across 10k conversations, each against the bare-Hono baseline of the same run.
// Usage: npm run bench:messages [-- 1000000]   (the largest size; default 1,000,000)
import { LOAD, load, startServer } from "./lib.mjs";

const largest = Number(process.argv[2] ?? 1_000_000);
const KEY = "1f9f0b22749354cad59f77bcdfe2f768620afeb6";
const headers = (uid) => ({ apikey: KEY, onBehalfOf: uid, "content-type": "application/json" });
const LIST = "/v3/users/bench-1/messages?affix=prepend&limit=100";

const baseline = await startServer("baseline");
const base = await load({ url: `${baseline.url}/v3/users/superhero1` });
await baseline.stop();

const rows = [];
for (const size of [10_000, largest]) {
  const s = await startServer("messages", [String(size), "10000"]);
  const list = await load({ url: s.url + LIST, headers: headers("bench-0") });
  const send = await load({
    url: `${s.url}/v3/messages`,
    method: "POST",
    headers: headers("bench-0"),
    body: JSON.stringify({ receiver: "bench-2", receiverType: "user", data: { text: "hello" } }),
  });
  await s.stop();
  rows.push({ stored: size, heapBytesPerMessage: s.info.heapBytesPerMessage, list, send });
}

console.log(`load: autocannon, ${LOAD.connections} connections, ${LOAD.duration} s per scenario`);
console.log(`baseline (bare Hono, fixed JSON): ${base.rps} req/s, p99 ${base.p99} ms`);
for (const r of rows)
  console.log(
    `${r.stored.toLocaleString("en")} messages: latest-100 list ${r.list.rps} req/s (${(r.list.rps / base.rps).toFixed(2)}x), ` +
      `p50 ${r.list.p50} ms, p99 ${r.list.p99} ms; send ${r.send.rps} req/s (${(r.send.rps / base.rps).toFixed(2)}x), ` +
      `p99 ${r.send.p99} ms; heap ${r.heapBytesPerMessage} B/message`,
  );
