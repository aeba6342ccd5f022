// The realtime benchmark (issue 18), with raw WebSocket clients on loopback against the built emulator:
//   1. one-on-one: REST send -> frame received at the receiver, one message at a time   (target p99 < 5 ms)
//   2. fan-out: a message in a group with 1,000 connected members, until the last has it (target p99 < 50 ms)
//   3. REST throughput (GET /v3/users/{uid}, POST /v3/messages) with 1,000 idle sessions vs none (target >= 0.9x)
//   4. 10,000 idle authenticated sessions: the server's RSS growth                        (target < 200 MB)
//   5. REST POST /v3/messages on an emulator that has answered a client-plane call vs one that never has
//      (target >= 0.9x: what an SDK once did must not slow the backend's requests afterwards)
// Usage: npm run build && node bench/realtime.mjs     Writes bench/results/realtime.json.
import { readFileSync, mkdirSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { WebSocket } from "ws";
import { compare, KEY, load, LOAD, SCENARIOS, startServer } from "./lib.mjs";

const APP = "62c95aeb231ec058";
const USERS = 10_001;
const MEMBERS = 1_000;
const server = await startServer("realtime", [JSON.stringify({ users: USERS, members: MEMBERS })]);
const url = server.url;
const pid = server.pid;
const agent = new Agent({ keepAlive: true, maxSockets: 16 });

function http(method, path, headers, body) {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method, agent, headers: { "content-type": "application/json", ...headers } }, (res) => {
      let text = "";
      res.on("data", (d) => (text += d)).on("end", () => (res.statusCode < 300 ? resolve(JSON.parse(text)) : reject(new Error(`${path}: ${res.statusCode} ${text}`))));
    });
    req.on("error", reject).end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) * 1024;
/** The server's CPU time so far in ms (user + system, from /proc: 10 ms ticks), to read costs apart from waiting. */
const cpu = () => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
const mb = (bytes) => +(bytes / 1024 / 1024).toFixed(1);
const pct = (xs, q) => +[...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))].toFixed(2);

/** Logs bench-i in (PUT /me), opens and authenticates its socket; `onMessage(id)` hears of every message frame. */
async function session(i, onMessage = () => {}) {
  const me = await http("PUT", `/${APP}.apiclient-us/v3.0/me`, { appid: APP, authtoken: `tok-${i}`, resource: `dev-${i}` }, { platform: "WEB" });
  const ws = new WebSocket(url.replace(/^http/, "ws"), { perMessageDeflate: false });
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  const authed = new Promise((resolve) => {
    ws.on("message", (data) => {
      const text = data.toString();
      if (text.includes('"type":"auth"')) resolve();
      // The message id without parsing the whole frame (1,000 clients share this process).
      else if (text.includes('"type":"message"')) onMessage(/"body":\{"id":"(\d+)"/.exec(text)[1]);
    });
  });
  ws.send(JSON.stringify({ appId: APP, deviceId: `dev-${i}`, type: "auth", sender: `bench-${i}`, body: { auth: me.data.jwt, deviceId: `dev-${i}`, presenceSubscription: "NONE" } }));
  await authed;
  return ws;
}

async function inBatches(from, to, size, fn) {
  const out = [];
  for (let i = from; i < to; i += size) out.push(...(await Promise.all(Array.from({ length: Math.min(size, to - i) }, (_, k) => fn(i + k)))));
  return out;
}

const rest = { apikey: KEY };
const send = (receiver, receiverType, text) =>
  http("POST", "/v3/messages", { ...rest, onbehalfof: "bench-0" }, { receiver, receiverType, category: "message", type: "text", data: { text } });

async function restThroughput() {
  const get = await load({ url: `${url}/v3/users/bench-5000`, headers: rest });
  const post = await load({
    url: `${url}/v3/messages`,
    method: "POST",
    headers: { ...rest, "content-type": "application/json", onbehalfof: "bench-5000" },
    body: JSON.stringify({ receiver: "bench-5001", receiverType: "user", data: { text: "hello" } }),
  });
  return { get, post };
}

const results = {};
const idle0 = rss();

// 3a. REST throughput with no session (after a warm-up); more runs alternate with the idle ones below.
await load({ url: `${url}/v3/users/bench-5000`, headers: rest, duration: LOAD.warmupSeconds });
const none = [await restThroughput()];

// 1. One-on-one: bench-1 listens, bench-0 sends over REST.
let waiting;
const receiver = await session(1, (f) => waiting?.(f));
const oneToOne = [];
let cpu0 = cpu();
for (let i = 0; i < 1100; i++) {
  const arrived = new Promise((resolve) => (waiting = resolve));
  const t = performance.now();
  await send("bench-1", "user", `m${i}`);
  await arrived;
  if (i >= 100) oneToOne.push(performance.now() - t); // the first 100 warm up
}
results.oneToOne = {
  samples: oneToOne.length,
  p50Ms: pct(oneToOne, 0.5),
  p99Ms: pct(oneToOne, 0.99),
  serverCpuMsPerMessage: +((cpu() - cpu0) / 1100).toFixed(2),
  target: "p99 < 5 ms",
};

// 2. Fan-out: bench-1..bench-1000 connected (members), bench-0 sends to the group.
const counts = new Map();
let done;
const count = (id) => {
  const n = (counts.get(id) ?? 0) + 1;
  counts.set(id, n);
  if (n === MEMBERS) done?.();
};
receiver.close();
const members = await inBatches(1, MEMBERS + 1, 100, (i) => session(i, count));
const fanOut = [];
cpu0 = cpu();
for (let i = 0; i < 120; i++) {
  const all = new Promise((resolve) => (done = resolve));
  const t = performance.now();
  await send("bench-group", "group", `g${i}`);
  await all;
  if (i >= 20) fanOut.push(performance.now() - t);
}
results.groupFanOut = {
  members: MEMBERS,
  samples: fanOut.length,
  p50Ms: pct(fanOut, 0.5),
  p99Ms: pct(fanOut, 0.99),
  serverCpuMsPerMessage: +((cpu() - cpu0) / 120).toFixed(2),
  target: "p99 < 50 ms",
};

for (const ws of members) ws.terminate();

/** Idle sessions of bench-FROM..TO-1 held by a separate process. */
const idle = (from, to) => startServer("sessions", [JSON.stringify({ url, from, to })]);

// 3b. REST throughput with 1,000 idle sessions (the requests concern other users), in runs alternating with
// runs without any, so that the host's drift hits both alike.
const some = [];
for (let r = 0; r < LOAD.rounds; r++) {
  const held = await idle(1, MEMBERS + 1);
  some.push(await restThroughput());
  await held.stop();
  none.push(await restThroughput());
}
const median = (runs, k) => [...runs].sort((a, b) => a[k].rps - b[k].rps)[Math.floor(runs.length / 2)][k];
results.restWithIdleSessions = Object.fromEntries(
  ["get", "post"].map((k) => {
    const a = median(none, k);
    const b = median(some, k);
    return [k, { noSessionsRps: a.rps, idle1000Rps: b.rps, ratio: +(b.rps / a.rps).toFixed(2), target: ">= 0.9" }];
  }),
);

// 4. 10,000 idle authenticated sessions.
await new Promise((r) => setTimeout(r, 1000));
const before = rss();
const held = await idle(0, 10_000);
await new Promise((r) => setTimeout(r, 1000));
const after = rss();
const sessions = held.info.sessions;
results.idleSessions = { sessions, rssBeforeMb: mb(before), rssAfterMb: mb(after), growthMb: mb(after - before), perSessionKb: +((after - before) / sessions / 1024).toFixed(1), serverRssAtStartMb: mb(idle0), target: "< 200 MB for 10,000" };
await held.stop();

await server.stop();
agent.destroy();

// 5. REST after a client-plane call: two fresh emulators, one of which has answered one client-plane call (an
// SDK's), in alternating runs of the same POST.
{
  const never = await startServer("filled", ["{}"]);
  const called = await startServer("filled", ["{}"]);
  const token = (await (await fetch(`${called.url}/v3/users/superhero1/auth_tokens`, { method: "POST", headers: rest })).json()).data.authToken;
  const call = await fetch(`${called.url}/${APP}.apiclient-us/v3.0/users/superhero2`, { headers: { appid: APP, authtoken: token, resource: "bench-device" } });
  if (call.status !== 200) throw new Error(`client-plane call: ${call.status}`);
  const { baseline: a, emulator: b } = await compare(never.url, called.url, SCENARIOS.post);
  results.restAfterClientCall = { post: { neverCalledRps: a.rps, afterClientCallRps: b.rps, ratio: +(b.rps / a.rps).toFixed(2), target: ">= 0.9" } };
  await never.stop();
  await called.stop();
}
results.loadAverage = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
console.log(JSON.stringify(results, null, 2));
mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
writeFileSync(new URL("./results/realtime.json", import.meta.url), JSON.stringify({ at: new Date().toISOString(), load: LOAD, results }, null, 2) + "\n");
