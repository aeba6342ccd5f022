// The emulator as the control-plane bench runs it: startEmulator(options) with options as JSON in argv[2], plus
// argv[3] non-matching rules (so each request walks them). Prints READY <url> {}.
import { startEmulator } from "../../dist/index.js";

const options = JSON.parse(process.argv[2] ?? "{}");
const rules = Number(process.argv[3] ?? 0);
const e = await startEmulator({ port: 0, quiet: true, ...options });
for (let i = 0; i < rules; i++) e.rules.add({ match: { method: "POST", path: `/v3/nothing-${i}/*` }, effect: { status: 503 } });
console.log(`READY ${e.url} {}`);
process.on("SIGTERM", () => e.close().then(() => process.exit(0)));
