import type { TestProject } from "vitest/node";
import { coverageFileProblem, writeCoverage } from "../control/coverage-file.js";
import { emulatorEnv } from "../env.js";
import { startEmulator, type EmulatorOptions } from "../index.js";
import { prepareWritable } from "../store/persistence.js";

/**
 * `chat-emulator/vitest`: a Vitest global setup that starts one emulator for the whole run and stops it at the
 * end. Its addresses and keys reach the tests twice: as CHAT_EMULATOR_* variables in process.env (set before
 * the test workers start, so code under test that reads its configuration from the environment just works) and
 * as `inject("chatEmulator")`. Pair it with `chat-emulator/vitest/setup` in setupFiles to start every test file
 * from a known state.
 *
 *   // vitest.config.ts
 *   test: { globalSetup: ["chat-emulator/vitest"], setupFiles: ["chat-emulator/vitest/setup"] }
 *
 * Options: a global-setup file of your own with `export default chatEmulator({ seed: "test/seed.json" })`.
 */

export type PerFile = "reset" | "app" | "none";

export interface VitestEmulatorOptions extends EmulatorOptions {
  /**
   * What chat-emulator/vitest/setup does before each test file:
   * - "reset" (default): every app goes back to its seed. Files share the emulator, so run them one at a time
   *   (`fileParallelism: false`) or a reset will land in the middle of another file.
   * - "app": the file gets a fresh app of its own (sample users, new keys) and CHAT_EMULATOR_APP_ID, _API_KEY,
   *   _AUTH_KEY and _BASE_URL name it: files can run in parallel.
   * - "none": nothing.
   */
  perFile?: PerFile;
  /**
   * A file to write the run's coverage to at the end (as `chat-emulator exec --coverage`): each documented
   * operation's calls, statuses and error codes, as JSON (.json) or Markdown (.md); with GITHUB_STEP_SUMMARY set,
   * the Markdown is appended there too.
   */
  coverage?: string;
}

export interface ChatEmulatorContext {
  env: Record<string, string>;
  perFile: PerFile;
  management: { url: string; key: string; secret: string };
  /** Sent as `x-emulator-token` on the setup's control calls when the emulator requires one. */
  controlToken?: string;
}

declare module "vitest" {
  interface ProvidedContext {
    chatEmulator: ChatEmulatorContext;
  }
}

export function chatEmulator(options: VitestEmulatorOptions = {}) {
  return async function setup(project: TestProject): Promise<() => Promise<void>> {
    const { perFile = "reset", coverage, ...emulatorOptions } = options;
    const problem = coverage === undefined ? undefined : coverageFileProblem(coverage);
    if (problem) throw new Error(`chat-emulator/vitest: ${problem}`);
    // Checked now, as the CLI checks --coverage: a path that cannot be written fails the run's start, not its end.
    if (coverage !== undefined)
      await prepareWritable(coverage).catch((e: Error) => {
        throw new Error(`chat-emulator/vitest: coverage: ${e.message}`);
      });
    const emulator = await startEmulator({ quiet: true, ...emulatorOptions });
    const env = emulatorEnv(emulator);
    // Workers read NODE_EXTRA_CA_CERTS when they start, after this: with `https`, they trust the certificate.
    if (emulator.tls && !process.env.NODE_EXTRA_CA_CERTS) env.NODE_EXTRA_CA_CERTS = emulator.tls.certPath;
    const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
    Object.assign(process.env, env);
    project.provide("chatEmulator", { env, perFile, management: emulator.management, controlToken: emulatorOptions.controlToken });
    return async () => {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      try {
        if (coverage !== undefined) await writeCoverage(coverage, emulator.coverage.report());
      } finally {
        await emulator.close();
      }
    };
  };
}

/** The global setup with default options: the bundled Default App, a reset before each file. */
export default chatEmulator();
