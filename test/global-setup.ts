import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Removes the run's configuration folder (vitest.config.ts names it after the main process). */
export default function setup(): () => void {
  return () => rmSync(join(tmpdir(), `chat-emulator-test-config-${process.pid}`), { recursive: true, force: true });
}
