import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { tempDir } from "./tmp.helpers.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const VITEST = fileURLToPath(new URL("../node_modules/vitest/vitest.mjs", import.meta.url));

/** Runs Vitest on a config of examples/vitest as a user would (`vitest run --config ...`), outside this run. */
async function runExample(config: string, extraEnv: Record<string, string> = {}) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("VITEST")));
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [VITEST, "run", "--config", `examples/vitest/${config}`], {
      cwd: ROOT,
      env: { ...env, NO_COLOR: "1", FORCE_COLOR: "0", ...extraEnv },
    });
    return { code: 0, stdout };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: `${err.stdout}\n${err.stderr}` };
  }
}

describe("chat-emulator/vitest (examples/vitest)", () => {
  it("starts one emulator for the run, hands its addresses to the tests, and resets it before each file; or gives each parallel file an app", async () => {
    // The parallel example also writes the run's coverage (its `coverage` option), summed over the files' apps.
    const coverage = join(tempDir("vitest-coverage"), "coverage.json");
    const [serial, parallel] = await Promise.all([
      runExample("vitest.config.ts"),
      runExample("vitest.parallel.config.ts", { CHAT_API_COVERAGE: coverage, GITHUB_STEP_SUMMARY: "" }),
    ]);
    for (const run of [serial, parallel]) {
      expect(run.stdout).toMatch(/Test Files\s+2 passed \(2\)/);
      expect(run.stdout).toMatch(/Tests\s+4 passed \(4\)/);
      expect(run.code).toBe(0);
    }
    const report = JSON.parse(readFileSync(coverage, "utf8"));
    expect(report).toMatchObject({ appId: null, documented: 229 });
    expect(report.covered).toBeGreaterThan(0);
  });

  it("refuses a coverage path that cannot be written before it starts an emulator", async () => {
    const { chatEmulator } = await import("../src/test-runners/vitest.js");
    const project = { provide: () => expect.unreachable("started") } as unknown as Parameters<ReturnType<typeof chatEmulator>>[0];
    await expect(chatEmulator({ coverage: "/proc/nope/coverage.json" })(project)).rejects.toThrow(
      "chat-emulator/vitest: coverage: /proc/nope/coverage.json: cannot be written (ENOENT: no such file or directory, mkdir '/proc/nope').",
    );
  });
});
