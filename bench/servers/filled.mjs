// The built emulator with content filled straight into the store (fast), for the load scenarios.
// Usage: node filled.mjs '<json spec>'   spec: {users?, messages?, conversations?, userConversations?, data?}
//   users: extra users (bench-0..N-1) in the default app
//   messages / conversations: N text messages spread over C one-on-one conversations, plus 100 in the
//     conversation bench-0 <-> bench-1 that the list scenario reads
//   userConversations: K conversations of bench-0 (one message each)
//   groups / members: G public groups (bench-g0..) of M members each; friends: F friendships among the users
//   data: a --data file
// Prints `READY <url> {"heapBytesPerMessage"?}`; on SIGTERM prints `STATS {"eventLoopDelayP99Ms", ...}` and exits.
import { monitorEventLoopDelay } from "node:perf_hooks";
import { startEmulator } from "../../dist/index.js";

const spec = JSON.parse(process.argv[2] ?? "{}");
const e = await startEmulator({ port: 0, quiet: true, data: spec.data, ...(spec.journalSize === undefined ? {} : { journalSize: spec.journalSize }) });
const app = e.store.defaultApp;
const now = Math.floor(Date.now() / 1000);

const conversations = spec.conversations ?? 0;
let users = spec.users ?? 0;
while (conversations && (users * (users - 1)) / 2 < conversations + 1) users++;
users = Math.max(users, spec.userConversations ? spec.userConversations + 1 : 0, spec.messages ? 3 : 0);
for (let i = 0; i < users; i++)
  app.addUser({ uid: `bench-${i}`, name: `Bench ${i}`, role: "default", tags: [], status: "offline", createdAt: now });

const send = (sender, receiver, i) =>
  app.addMessage({
    conversationId: sender < receiver ? `${sender}_user_${receiver}` : `${receiver}_user_${sender}`,
    sender,
    receiverType: "user",
    receiver,
    category: "message",
    type: "text",
    data: { text: `message number ${i}` },
    sentAt: now,
    updatedAt: now,
  });

const info = {};
if (spec.messages) {
  const pairs = [];
  for (let a = 0; a < users && pairs.length < conversations; a++)
    for (let b = a + 1; b < users && pairs.length < conversations; b++) pairs.push([`bench-${a}`, `bench-${b}`]);
  global.gc?.();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < spec.messages - 100; i++) send(...pairs[i % pairs.length], i);
  for (let i = 0; i < 100; i++) send("bench-0", "bench-1", i);
  global.gc?.();
  info.heapBytesPerMessage = Math.round((process.memoryUsage().heapUsed - before) / spec.messages);
}
for (let k = 1; k <= (spec.userConversations ?? 0); k++) send("bench-0", `bench-${k}`, k);
for (let g = 0; g < (spec.groups ?? 0); g++) {
  const guid = `bench-g${g}`;
  app.groups.add({ guid, name: `Bench group ${g}`, type: "public", tags: [], createdAt: now, owner: "bench-0" });
  for (let m = 0; m < Math.min(spec.members ?? 0, users); m++) app.groups.addMember(guid, { uid: `bench-${(g + m) % users}`, scope: m === 0 ? "admin" : "participant", joinedAt: now });
}
for (let f = 0; f < (spec.friends ?? 0); f++)
  app.relations.befriend({ uid: `bench-${f % users}`, friendUid: `bench-${(f * 7 + 1) % users}`, createdAt: now });
// With a data file the filled state is written in the background while the load runs.
if (spec.data) e.store.changed();

const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();
console.log(`READY ${e.url} ${JSON.stringify(info)}`);
process.on("SIGTERM", async () => {
  delay.disable();
  console.log(`STATS ${JSON.stringify({ eventLoopDelayP99Ms: +(delay.percentile(99) / 1e6).toFixed(1), eventLoopDelayMaxMs: +(delay.max / 1e6).toFixed(1) })}`);
  await e.close();
  process.exit(0);
});
