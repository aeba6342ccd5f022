// The cost of writing message replies as text, in-process: a sent message's reply and a page of 100 messages of
// one conversation and of a group, by messageText (entities from the texts kept per sender) next to JSON.stringify of the views
// (what the replies cost before). Each text's UTF-8 length is taken, as the answer's Content-Length is.
// Usage: npm run build && node bench/reply-text.mjs
import { startEmulator } from "../dist/index.js";
import { messageText, messageView } from "../dist/views/messages.js";
import { KEY } from "./lib.mjs";

const e = await startEmulator({ port: 0, quiet: true });
const send = (from, to, text, receiverType = "user") =>
  fetch(`${e.url}/v3/messages`, {
    method: "POST",
    headers: { apikey: KEY, "content-type": "application/json", onBehalfOf: from },
    body: JSON.stringify({ receiver: to, receiverType, data: { text } }),
  });
for (let i = 0; i < 100; i++) await send(i % 2 ? "superhero1" : "superhero2", i % 2 ? "superhero2" : "superhero1", `message ${i}`);
for (let i = 0; i < 100; i++) await send(`superhero${1 + (i % 4)}`, "supergroup", `message ${i}`, "group");
const app = e.store.defaultApp;
const viewer = app.users.get("superhero1");
const page = app.messages.conversation("superhero1_user_superhero2").slice(-100);
const groupPage = app.messages.conversation("group_supergroup").slice(-100);
const sent = page.at(-1);

let sink = 0; // every length is used, so no call can be left out

/** Microseconds per call of `f`, the median of `rounds` rounds of `n` calls. */
function time(f, n, rounds = 9) {
  const figures = [];
  for (let r = 0; r < rounds; r++) {
    const t = performance.now();
    for (let i = 0; i < n; i++) sink += f();
    figures.push(((performance.now() - t) * 1000) / n);
  }
  return figures.sort((a, b) => a - b)[rounds >> 1];
}

const reply = {
  messageText: () => Buffer.byteLength(`{"data":${messageText(app, sent, viewer)}}`),
  stringify: () => Buffer.byteLength(JSON.stringify({ data: messageView(app, sent, viewer) })),
};
/** A page of messages written as listReply writes it, and as it was written before (the views stringified). */
const pageOf = (items) => ({
  messageText: () => {
    const memo = new Map();
    let text = '{"data":[';
    for (let i = 0; i < items.length; i++) text += (i === 0 ? "" : ",") + messageText(app, items[i], viewer, memo, {});
    return Buffer.byteLength(`${text}]}`);
  },
  stringify: () => {
    const memo = new Map();
    return Buffer.byteLength(JSON.stringify({ data: items.map((m) => messageView(app, m, viewer, memo, {})) }));
  },
});
const pages = [
  ["a page of 100 messages, one-on-one", pageOf(page), 1_000],
  ["a page of 100 messages, a group (four senders)", pageOf(groupPage), 1_000],
];
for (const [name, pair, n] of [["a sent message's reply", reply, 100_000], ...pages]) {
  time(pair.messageText, n, 3); // warm-up of both
  time(pair.stringify, n, 3);
  const a = time(pair.messageText, n);
  const b = time(pair.stringify, n);
  console.log(`${name}: messageText ${a.toFixed(2)} µs, JSON.stringify of the view ${b.toFixed(2)} µs (${(a / b).toFixed(2)}×)`);
}
if (sink === 0) throw new Error("no text written");
await e.close();
