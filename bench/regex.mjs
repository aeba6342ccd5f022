// Issue 35, item 4: catastrophic user patterns do not freeze the server; issue 41, item 4: nor do many keyword rules. Starts the built emulator in its own
// process, sets a moderation rule and a data mask that backtrack exponentially on JavaScript's RegExp (and turns
// on the XSS and profanity filters), then sends adversarial messages (BENCH_REGEX_MESSAGES, default 20, of BENCH_REGEX_CHARS, default 9000, characters) while
// probing GET /_emulator/health every 20 ms. Prints the health probe's worst and p99 answer time (target < 100 ms)
// and each message's time.
import { startServer, KEY, median } from "./lib.mjs";

const MESSAGES = Number(process.env.BENCH_REGEX_MESSAGES ?? 20);
const CHARS = Number(process.env.BENCH_REGEX_CHARS ?? 9000);
const APP = "62c95aeb231ec058";
const MGMT = { key: "chat-emulator-management-key", secret: "chat-emulator-management-secret" };

const server = await startServer("emulator");
const call = async (method, path, body, headers = { apikey: KEY }) => {
  const res = await fetch(server.url + path, { method, headers: { ...headers, "content-type": "application/json" }, body: body && JSON.stringify(body) });
  if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
};
try {
  await call("POST", "/v3/moderation/rules", {
    id: "catastrophic",
    name: "catastrophic",
    enabled: true,
    action: ["blockMessage"],
    conditions: [{ entity: "message", operand: "text", operator: "contains", category: "pattern", value: ["(a|a)*b", "(\\w|\\d)+!", "((a+)+)+c"] }],
  });
  const ext = `/apimgmt/apps/${APP}/extensions`;
  await call("POST", ext, { enabled: ["data-masking", "xss-filter", "profanity-filter"] }, MGMT);
  await call("PUT", `${ext}/data-masking/v1/settings`, { settings: { dropMessage: false, customregexData: [{ name: "x", regex: "(a|a)*y" }] } }, MGMT);

  const probes = [];
  let sending = true;
  const probe = (async () => {
    while (sending) {
      const t = performance.now();
      await fetch(`${server.url}/_emulator/health`).then((r) => r.arrayBuffer());
      probes.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const sends = [];
  const units = ["a", "1", "a1", "<"];
  for (let i = 0; i < MESSAGES; i++) {
    const unit = units[i % units.length];
    // "<" then spaces: the XSS filter's tag pattern; the others: the catastrophic moderation patterns and the mask.
    const t = performance.now();
    await call("POST", "/v3/messages", { receiver: "superhero2", receiverType: "user", data: { text: unit === "<" ? unit.padEnd(CHARS) : unit.repeat(Math.floor(CHARS / unit.length)) } }, { apikey: KEY, onBehalfOf: "superhero1" });
    sends.push(performance.now() - t);
  }
  sending = false;
  await probe;
  const sorted = [...probes].sort((a, b) => a - b);
  const ms = (x) => `${x.toFixed(1)} ms`;
  if (process.env.BENCH_VERBOSE) console.log(sends.map((x) => x.toFixed(0)).join(" "));
  console.log(`${MESSAGES} messages of ${CHARS} characters: send median ${ms(median(sends))}, worst ${ms(Math.max(...sends))}`);
  console.log(`health (${probes.length} probes): p99 ${ms(sorted[Math.floor(sorted.length * 0.99)] ?? 0)}, worst ${ms(sorted.at(-1) ?? 0)} (target < 100 ms)`);

  // Issue 41, item 4: the amount of screening is bounded too. BENCH_RULES (default 1,000) keyword rules of 10 terms
  // each, then 10 KB messages that match none (every term is searched) and one that the last rule catches.
  const RULES = Number(process.env.BENCH_RULES ?? 1000);
  await call("DELETE", "/v3/moderation/rules/catastrophic");
  for (let r = 0; r < RULES; r++)
    await call("POST", "/v3/moderation/rules", {
      id: `kw${r}`,
      name: `kw${r}`,
      enabled: true,
      action: ["blockMessage"],
      conditions: [{ entity: "message", operand: "text", operator: "contains", category: "word", value: Array.from({ length: 10 }, (_, t) => `term${r}x${t} word${t}`) }],
    });
  const words = Array.from({ length: 1500 }, (_, i) => `term${i % RULES}x${i % 9} `).join("").slice(0, 10_000);
  const screened = [];
  for (let i = 0; i < 10; i++) {
    const t = performance.now();
    await call("POST", "/v3/messages", { receiver: "superhero2", receiverType: "user", data: { text: words } }, { apikey: KEY, onBehalfOf: "superhero1" });
    screened.push(performance.now() - t);
  }
  const t = performance.now();
  const caught = await call("POST", "/v3/messages", { receiver: "superhero2", receiverType: "user", data: { text: `${words.slice(0, 9_900)} term${RULES - 1}x9 word9` } }, { apikey: KEY, onBehalfOf: "superhero1" });
  const last = performance.now() - t;
  if (caught.data.data.moderation.status !== "disapproved") throw new Error("the last rule did not catch its term");
  // The first send after the rules changed compiles them (once per change, whatever the number of sends).
  const [first, ...rest] = screened;
  console.log(`${RULES} keyword rules of 10 terms, 10 KB messages: send median ${ms(median([...rest, last]))}, worst ${ms(Math.max(...rest, last))} (target < 50 ms); the first after the rules changed, which compiles them, ${ms(first)}`);
} finally {
  await server.stop();
}
