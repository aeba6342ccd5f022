// The emulator with N text messages across C one-on-one conversations of the default app, filled directly into
// the store (fast), plus 100 messages in the conversation superhero-0 <-> superhero-1 that the list scenario reads.
// Prints READY <url> {"messages", "heapBytesPerMessage"}. Args: N C [--data FILE]
import { startEmulator } from "../../dist/index.js";

const [total = "10000", conversations = "10000", ...rest] = process.argv.slice(2);
const N = Number(total);
const C = Number(conversations);
const dataAt = rest.indexOf("--data");
const e = await startEmulator({ port: 0, quiet: true, data: dataAt >= 0 ? rest[dataAt + 1] : undefined });
const app = e.store.defaultApp;

// Enough users that C distinct pairs exist.
let users = 2;
while ((users * (users - 1)) / 2 < C + 1) users++;
const now = Math.floor(Date.now() / 1000);
for (let i = 0; i < users; i++)
  app.addUser({ uid: `bench-${i}`, name: `Bench ${i}`, role: "default", tags: [], status: "offline", createdAt: now });
const pairs = [];
for (let a = 0; a < users && pairs.length < C; a++)
  for (let b = a + 1; b < users && pairs.length < C; b++) pairs.push([`bench-${a}`, `bench-${b}`]);

global.gc?.();
const before = process.memoryUsage().heapUsed;
const sendOne = (sender, receiver, i) =>
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
for (let i = 0; i < N - 100; i++) {
  const [a, b] = pairs[i % pairs.length];
  sendOne(a, b, i);
}
for (let i = 0; i < 100; i++) sendOne("bench-0", "bench-1", i);
global.gc?.();
const perMessage = Math.round((process.memoryUsage().heapUsed - before) / N);
console.log(`READY ${e.url} ${JSON.stringify({ messages: app.messages.size, heapBytesPerMessage: perMessage })}`);
process.on("SIGTERM", () => e.close().then(() => process.exit(0)));
