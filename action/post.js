// The GitHub Action's post step (action.yml): stops the emulator the main step started (SIGTERM: a clean stop, so
// a --data file is saved) and prints its output. It uploads nothing.
import { existsSync, readFileSync } from "node:fs";

const pid = Number(process.env.STATE_pid);
const log = process.env.STATE_log;
if (Number.isSafeInteger(pid) && pid > 0) {
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    // already gone
  }
  for (let waited = 0; waited < 10_000; waited += 100) {
    try {
      process.kill(pid, 0);
    } catch {
      break;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
if (log && existsSync(log)) console.log(readFileSync(log, "utf8"));
