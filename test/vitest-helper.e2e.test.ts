import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const VITEST = fileURLToPath(new URL("../node_modules/vitest/vitest.mjs", import.meta.url));

/** Runs Vitest on a config of examples/vitest as a user would (`vitest run --config ...`), outside this run. */
async function runExample(config: string) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("VITEST")));
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [VITEST, "run", "--config", `examples/vitest/${config}`], {
      cwd: ROOT,
      env: { ...env, NO_COLOR: "1", FORCE_COLOR: "0" },
    });
    return { code: 0, stdout };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: `${err.stdout}\n${err.stderr}` };
  }
}

describe("chat-emulator/vitest (examples/vitest)", () => {
  it("starts one emulator for the run, hands its addresses to the tests, and resets it before each file; or gives each parallel file an app", async () => {
    const [serial, parallel] = await Promise.all([runExample("vitest.config.ts"), runExample("vitest.parallel.config.ts")]);
    for (const run of [serial, parallel]) {
      expect(run.stdout).toMatch(/Test Files\s+2 passed \(2\)/);
      expect(run.stdout).toMatch(/Tests\s+4 passed \(4\)/);
      expect(run.code).toBe(0);
    }
  });
});
