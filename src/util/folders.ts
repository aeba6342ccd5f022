import { mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";

/**
 * `mkdir -p` at start, a level at a time, as store/persistence.ts `makeFolders` does it asynchronously: Node's
 * recursive mkdir never returns on some paths (`/proc/nope` spins at 100 % CPU), where this fails at the first
 * level that cannot be made. `mode` applies to the folders made.
 */
export function makeFoldersSync(dir: string, mode?: number): void {
  const missing: string[] = [];
  for (let at = dir; ; at = dirname(at)) {
    let found;
    try {
      found = statSync(at);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT" || dirname(at) === at) throw e;
    }
    if (found?.isDirectory()) break;
    if (found) throw new Error(`${at} is not a folder`);
    missing.push(at);
  }
  for (const folder of missing.reverse())
    try {
      mkdirSync(folder, { mode });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
}
