// The benchmark suite (issue 9): every scenario against the built emulator and, in the same run on the same
// machine, against a baseline (a bare Hono app on @hono/node-server answering a fixed JSON body). Prints req/s,
// p50/p99 and the ratio to the baseline per scenario, checks the targets, and writes bench/results/latest.json.
// Each throughput scenario sends the baseline the very same request (method, headers, body), in runs alternating
// with the emulator's (see compare() in lib.mjs); its ratio is against that, and for reference also against the
// baseline's figure for GET /v3/users/{uid}.
// Usage: npm run bench [-- --quick]   (--quick: 100k instead of 1M stored messages; for a fast look)
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { compare, KEY, LOAD, median, sequential, startServer } from "./lib.mjs";
import { startupTimes } from "./startup.mjs";

const quick = process.argv.includes("--quick");
const BIG = quick ? 100_000 : 1_000_000;
const APP = "62c95aeb231ec058";
const headers = (onBehalfOf) => ({ apikey: KEY, "content-type": "application/json", ...(onBehalfOf ? { onBehalfOf } : {}) });
const sendBody = (to) => JSON.stringify({ receiver: to, receiverType: "user", data: { text: "hello" } });

const rows = [];
const row = (name, r, target, extra = {}) => rows.push({ scenario: name, ...r, ...extra, target });

// The baseline runs for the whole suite; `getBaseline` is its figure for the GET /v3/users/{uid} request.
const baseline = await startServer("baseline");
let getBaseline;

/** A throughput scenario: the emulator's median run, its ratio to the baseline's on the same request. */
async function throughput(name, server, request, target = "-", min = undefined) {
  const { baseline: b, emulator: r } = await compare(baseline.url, server.url, request);
  getBaseline ??= b;
  const ratio = +(r.rps / b.rps).toFixed(2);
  row(name, r, target, {
    baselineRps: b.rps,
    ratio,
    ratioToGetBaseline: +(r.rps / getBaseline.rps).toFixed(2),
    ...(min === undefined ? {} : { pass: ratio >= min }),
  });
  return ratio;
}

async function withServer(spec, fn) {
  const s = await startServer("filled", [JSON.stringify(spec)]);
  try {
    return { ...(await fn(s)), info: s.info };
  } finally {
    s.stats = await s.stop();
    Object.assign(s.info, s.stats);
  }
}

async function timed(url, body, runs = 5) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
    times.push(performance.now() - t);
  }
  return times;
}

// Start-up, next to a bare node:http server started the same way
{
  const t = await startupTimes(10);
  rows.push({
    scenario: "start-up to healthy (median of 10)",
    medianMs: t.emulatorMs,
    bareMs: t.bareMs,
    startupRatio: t.ratio,
    target: "< 300 ms and ≤ 2× a bare node:http server",
    pass: t.emulatorMs < 300 && t.ratio <= 2,
  });
}

// Reads
const send = (from, to) => ({ path: "/v3/messages", method: "POST", headers: headers(from), body: sendBody(to) });
await withServer({}, async (s) => {
  await throughput("GET /v3/users/{uid}", s, { path: "/v3/users/superhero1", headers: headers() }, "≥ 0.85× baseline", 0.85);
  rows.unshift({ scenario: "baseline: bare Hono, fixed JSON (GET /v3/users/{uid})", ...getBaseline });
  await throughput("GET /v3/messages/{id}", s, { path: "/v3/messages/1", headers: headers() }, "≥ 0.8× baseline", 0.8);
  await throughput("GET /v3/groups/{guid}", s, { path: "/v3/groups/supergroup", headers: headers() }, "≥ 0.8× baseline", 0.8);
  await throughput("POST /v3/messages (in memory)", s, send("superhero1", "superhero2"), "≥ 0.65× baseline", 0.65);
});
// The ceiling: a bare node:http server (no framework, no work) on the same GET and POST, against the same baseline.
// What any server on node:http could reach at most; the emulator's ratios read against it.
{
  const ceiling = await startServer("bare-node");
  await throughput("ceiling: bare node:http, fixed JSON (GET /v3/users/{uid})", ceiling, { path: "/v3/users/superhero1", headers: headers() });
  await throughput("ceiling: bare node:http, fixed JSON (POST /v3/messages)", ceiling, send("superhero1", "superhero2"));
  await ceiling.stop();
}
await withServer({ users: 10_000 }, async (s) => {
  await throughput("GET /v3/users?perPage=100 (10k users)", s, { path: "/v3/users?perPage=100", headers: headers() });
});
{
  const file = join(tmpdir(), `chat-emulator-bench-${process.pid}.json`);
  const name = "POST /v3/messages (--data, 100k messages persisted)";
  const out = await withServer({ data: file, messages: 100_000, conversations: 1000 }, async (s) => ({
    ratio: await throughput(name, s, send("bench-0", "bench-2"), "≥ 0.55× baseline, event-loop p99 < 20 ms"),
  }));
  rmSync(file, { force: true });
  const eld = out.info.eventLoopDelayP99Ms;
  Object.assign(rows.at(-1), { eventLoopDelayP99Ms: eld, pass: out.ratio >= 0.55 && eld < 20 });
}

// Latest 100 of one conversation, small and large store (one request at a time: the cost of one request)
const list = {};
for (const size of [10_000, BIG]) {
  const out = await withServer({ messages: size, conversations: 10_000 }, async (s) => {
    const r = await sequential({ url: `${s.url}/v3/users/bench-1/messages?affix=prepend&limit=100`, headers: headers("bench-0") });
    return { r };
  });
  list[size] = { ...out.r, heapBytesPerMessage: out.info.heapBytesPerMessage };
}
{
  const small = list[10_000];
  const big = list[BIG];
  const flat = small.rps / big.rps;
  row(`latest 100 of one conversation, 10k stored (one at a time)`, small, "-", { heapBytesPerMessage: small.heapBytesPerMessage });
  row(`latest 100 of one conversation, ${BIG.toLocaleString("en")} stored (one at a time)`, big, "p99 < 5 ms, within 1.2× of 10k", {
    costVs10k: +flat.toFixed(2),
    pass: big.p99 < 5 && flat <= 1.2,
  });
  rows.push({
    scenario: `heap per stored text message at ${BIG.toLocaleString("en")}`,
    bytes: big.heapBytesPerMessage,
    target: "< 1536 B",
    pass: big.heapBytesPerMessage < 1536,
  });
}

// Conversations: one page (100, the default) for a user with 100 conversations and with 1,000. The cost of a page
// must not depend on the user's total; and 1,000 must run at 5× the figure before the per-user activity index
// (2026-11-23: 345 / 574 / 407 req/s on this kind of machine, median 407).
{
  const CONVERSATIONS_BEFORE = 407;
  const rps = {};
  for (const total of [100, 1000])
    await withServer({ userConversations: total }, async (s) => {
      const request = { path: "/v3/conversations", headers: headers("bench-0") };
      const { emulator: r } = await compare(baseline.url, s.url, request);
      rps[total] = r.rps;
      row(`GET /v3/conversations (user with ${total.toLocaleString("en")} conversations)`, r, total === 100 ? "-" : `≥ 5× ${CONVERSATIONS_BEFORE} req/s, within 1.2× of 100`);
    });
  const flat = rps[100] / rps[1000];
  Object.assign(rows.at(-1), { costVs100: +flat.toFixed(2), pass: rps[1000] >= 5 * CONVERSATIONS_BEFORE && flat <= 1.2 });
}

// Reset and snapshot restore of an app holding 100k records
await withServer({ messages: 100_000, conversations: 1000 }, async (s) => {
  const snap = await fetch(`${s.url}/_emulator/snapshots/full`, { method: "POST" });
  if (!snap.ok) {
    rows.push({ scenario: "snapshot restore / reset of a 100k-record app", skipped: `snapshots answer ${snap.status}` });
    return {};
  }
  // Between restores the emulator idles briefly, as a test suite does between tests: the snapshot then has its
  // next copy built ahead of time (see README, Snapshots).
  const restores = [];
  for (let i = 0; i < 5; i++) {
    await new Promise((r) => setTimeout(r, 300));
    restores.push(...(await timed(`${s.url}/_emulator/snapshots/full/restore`, {}, 1)));
  }
  const resets = [];
  for (let i = 0; i < 5; i++) {
    await timed(`${s.url}/_emulator/snapshots/full/restore`, {}, 1);
    resets.push(...(await timed(`${s.url}/_emulator/reset`, { appId: APP }, 1)));
  }
  rows.push({ scenario: "snapshot restore of a 100k-record app (median of 5)", medianMs: +median(restores).toFixed(1), target: "< 100 ms", pass: median(restores) < 100 });
  rows.push({ scenario: "reset of a 100k-record app (median of 5)", medianMs: +median(resets).toFixed(1), target: "< 100 ms", pass: median(resets) < 100 });
  return {};
});

await baseline.stop();

const results = {
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, cpu: cpus()[0]?.model, node: process.version },
  load: {
    tool: "autocannon",
    ...LOAD,
    note: "throughput: median of `rounds` runs alternating with the baseline on the same request; latency targets: one request at a time, timed to 0.01 ms",
  },
  scenarios: rows,
};
mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
writeFileSync(new URL("./results/latest.json", import.meta.url), JSON.stringify(results, null, 2) + "\n");

console.log(
  `chat-emulator bench — ${results.machine.cpus} cores, Node ${results.machine.node}; autocannon ${LOAD.connections} connections, ` +
    `median of ${LOAD.rounds} runs of ${LOAD.duration} s alternating with the baseline`,
);
for (const r of rows) {
  const figures = [
    r.rps !== undefined && `${r.rps} req/s`,
    r.p50 !== undefined && `p50 ${r.p50} ms`,
    r.p99 !== undefined && `p99 ${r.p99} ms`,
    r.ratio !== undefined &&
      `${r.ratio}× baseline (${r.baselineRps} req/s on the same request; ${r.ratioToGetBaseline}× its GET /v3/users/{uid})`,
    r.medianMs !== undefined && `${r.medianMs} ms`,
    r.startupRatio !== undefined && `${r.startupRatio}× a bare node:http server (${r.bareMs} ms)`,
    r.costVs100 !== undefined && `cost ${r.costVs100}× the 100-conversation figure`,
    r.bytes !== undefined && `${r.bytes} B`,
    r.costVs10k !== undefined && `cost ${r.costVs10k}× the 10k figure`,
    r.eventLoopDelayP99Ms !== undefined && `event-loop p99 ${r.eventLoopDelayP99Ms} ms`,
    r.skipped,
  ].filter(Boolean);
  const verdict = r.pass === undefined ? "" : r.pass ? "  ✓" : "  ✗ target " + r.target;
  console.log(`- ${r.scenario}: ${figures.join(", ")}${verdict}`);
}
console.log("written to bench/results/latest.json");
