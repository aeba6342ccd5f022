// Snapshot restore at scale (issue 6): an app with N records (default 100,000), snapshot it, then change it and
// restore it through POST /_emulator/snapshots/{name}/restore, several times. Reports, in ms (median of the runs):
//   take      POST /_emulator/snapshots/{name} (deep copy of the store's data)
//   restore   POST .../restore after the emulator was idle for a moment, so the prepared copy is ready
//   no-idle   POST .../restore right after the previous restore and a change: no prepared copy, it is built on
//             the request (the same work as building the prepared copy in idle time)
// for three shapes of app: N users, N messages, and a mix (10% users, 1% groups of 50 members, the rest messages).
// Usage: npm run bench:snapshot [-- 100000 [runs]]
import { createEmulator } from "../dist/index.js";
import { KEY } from "./lib.mjs";

const N = Number(process.argv[2] ?? 100_000);
const RUNS = Number(process.argv[3] ?? 5);
const now = Math.floor(Date.now() / 1000);

function fill(app, shape) {
  const users = shape === "users" ? N : shape === "messages" ? 100 : Math.floor(N / 10);
  for (let i = 0; i < users; i++)
    app.addUser({ uid: `u${i}`, name: `User ${i}`, role: "default", tags: i % 3 ? [] : [`t${i % 7}`], status: "offline", createdAt: now, metadata: { n: i } });
  const groups = shape === "mixed" ? Math.floor(N / 100) : 0;
  for (let g = 0; g < groups; g++) {
    app.groups.add({ guid: `g${g}`, name: `Group ${g}`, type: "public", tags: [], createdAt: now });
    for (let m = 0; m < 50; m++) app.groups.addMember(`g${g}`, { uid: `u${(g * 50 + m) % users}`, scope: "participant", joinedAt: now });
  }
  const messages = N - users - groups;
  for (let i = 0; i < messages; i++) {
    const [a, b] = [`u${i % users}`, `u${(i + 1) % users}`].sort();
    app.addMessage({ conversationId: `${a}_user_${b}`, sender: `u${i % users}`, receiverType: "user", receiver: `u${(i + 1) % users}`, category: "message", type: "text", data: { text: `message ${i}` }, sentAt: now, updatedAt: now });
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const idle = () => new Promise((resolve) => setTimeout(resolve, 100)); // > IDLE_MS, and the build itself

async function measure(shape) {
  const { app: http, emulator } = await createEmulator({ quiet: true, seed: undefined });
  fill(emulator.store.defaultApp, shape);
  const request = async (method, path, body) => {
    const t = performance.now();
    const res = await http.request(`http://localhost${path}`, {
      method,
      headers: { apikey: KEY, "content-type": "application/json" },
      body: body && JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
    return performance.now() - t;
  };
  const total = async () => {
    const res = await http.request("http://localhost/v3/users?perPage=1", { headers: { apikey: KEY } });
    return (await res.json()).meta.pagination.total;
  };
  const users = await total();
  const take = await request("POST", "/_emulator/snapshots/base");
  const restores = [];
  const busy = [];
  for (let i = 0; i < RUNS; i++) {
    await idle();
    await request("POST", "/v3/users", { uid: `extra${i}`, name: "Extra" });
    restores.push(await request("POST", "/_emulator/snapshots/base/restore"));
    if ((await total()) !== users) throw new Error("restore did not bring the users back");
    await request("POST", "/v3/users", { uid: `busy${i}`, name: "Busy" });
    busy.push(await request("POST", "/_emulator/snapshots/base/restore"));
    if ((await total()) !== users) throw new Error("restore did not bring the users back");
  }
  const records = emulator.control.snapshots.list()[0].records;
  return { shape, records, take, restore: median(restores), busy: median(busy) };
}

const fmt = (ms) => ms.toFixed(1).padStart(8);
console.log(`snapshot bench: ${N.toLocaleString("en")} records per app, ${RUNS} restores of each kind (medians, ms)`);
console.log("shape      records      take   restore   no-idle");
for (const shape of ["users", "messages", "mixed"]) {
  const r = await measure(shape);
  console.log(`${r.shape.padEnd(9)} ${String(r.records).padStart(8)} ${fmt(r.take)} ${fmt(r.restore)} ${fmt(r.busy)}`);
}
