// The emulator as bench/control.mjs runs it: startEmulator(options) with options as JSON in argv[2], plus argv[3]
// rules that match nothing (so each request walks them). Prints READY <url> {}; on SIGUSR2 prints
// MEMORY {process.memoryUsage() after a full GC}; on SIGTERM prints STATS {"cpuMs"} (CPU time used since READY) and exits.
import { startEmulator } from "../../dist/index.js";

const options = JSON.parse(process.argv[2] ?? "{}");
const rules = Number(process.argv[3] ?? 0);
const e = await startEmulator({ port: 0, quiet: true, ...options });
for (let i = 0; i < rules; i++) e.rules.add({ match: { method: "POST", path: `/v3/nothing-${i}/*` }, effect: { status: 503 } });
const cpu = process.cpuUsage();
console.log(`READY ${e.url} {}`);
process.on("SIGUSR2", () => {
  globalThis.gc?.();
  console.log(`MEMORY ${JSON.stringify(process.memoryUsage())}`);
});
for (const signal of ["SIGTERM", "SIGINT"])
  process.on(signal, () => {
    const used = process.cpuUsage(cpu);
    console.log(`STATS ${JSON.stringify({ cpuMs: (used.user + used.system) / 1000 })}`);
    e.close().then(() => process.exit(0));
  });
