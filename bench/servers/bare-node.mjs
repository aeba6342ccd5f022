// A bare node:http server, no framework: the start-up baseline (started the way the emulator is, a spawned node
// process, it prints the same listening line and answers /_emulator/health) and the throughput ceiling (the
// baseline's fixed JSON user, to every request: what any server on node:http could reach at most).
import { createServer } from "node:http";

const body = JSON.stringify({ data: { uid: "superhero1", name: "Iron Man", status: "offline", role: "default", createdAt: 1700000000 } });
const server = createServer((req, res) => res.writeHead(200, { "content-type": "application/json" }).end(body));
const at = process.argv.indexOf("--port");
const port = at === -1 ? 0 : Number(process.argv[at + 1]);
server.listen(port, "127.0.0.1", () => {
  const url = `http://127.0.0.1:${server.address().port}`;
  console.log(`bare node:http is listening on ${url}\nREADY ${url} {}`);
});
process.on("SIGTERM", () => process.exit(0));
