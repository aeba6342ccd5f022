// Idle realtime sessions in their own process (so they weigh on neither the load generator nor the measuring
// process): logs in bench-FROM..bench-TO-1 (tokens tok-i), authenticates their sockets and keeps them open.
// Usage: node sessions.mjs '{"url", "from", "to"}'   Prints `READY <url> {"sessions"}`; exits on SIGTERM.
import { Agent, request } from "node:http";
import { WebSocket } from "ws";

const { url, from, to } = JSON.parse(process.argv[2]);
const APP = "62c95aeb231ec058";
const agent = new Agent({ keepAlive: true, maxSockets: 32 });

function putMe(i) {
  return new Promise((resolve, reject) => {
    const headers = { "content-type": "application/json", appid: APP, authtoken: `tok-${i}`, resource: `dev-${i}` };
    const req = request(`${url}/${APP}.apiclient-us/v3.0/me`, { method: "PUT", agent, headers }, (res) => {
      let text = "";
      res.on("data", (d) => (text += d)).on("end", () => resolve(JSON.parse(text).data.jwt));
    });
    req.on("error", reject).end('{"platform":"WEB"}');
  });
}

async function session(i) {
  const jwt = await putMe(i);
  const ws = new WebSocket(url.replace(/^http/, "ws"), { perMessageDeflate: false });
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  ws.send(JSON.stringify({ type: "auth", sender: `bench-${i}`, body: { auth: jwt, deviceId: `dev-${i}`, presenceSubscription: "NONE" } }));
  await new Promise((resolve) => ws.once("message", resolve));
  return ws;
}

const open = [];
for (let i = from; i < to; i += 200) open.push(...(await Promise.all(Array.from({ length: Math.min(200, to - i) }, (_, k) => session(i + k)))));
console.log(`READY ${url} ${JSON.stringify({ sessions: open.length })}`);
process.on("SIGTERM", () => {
  for (const ws of open) ws.terminate();
  process.exit(0);
});
