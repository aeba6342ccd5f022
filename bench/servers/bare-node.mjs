// The start-up baseline: a bare node:http server started the way the emulator is (a spawned node process), that
// prints the same listening line and answers /_emulator/health.
import { createServer } from "node:http";

const server = createServer((req, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"status":"ok"}'));
const port = Number(process.argv[process.argv.indexOf("--port") + 1] ?? 0);
server.listen(port, "127.0.0.1", () => console.log(`bare node:http is listening on http://127.0.0.1:${server.address().port}`));
process.on("SIGTERM", () => process.exit(0));
