import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onTestFinished } from "vitest";

/** A fresh temporary folder for the running test, removed when it finishes. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `chat-emulator-${prefix}-`));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
