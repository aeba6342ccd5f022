import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Both cores: most files wait on child processes, sockets and Chromium, so two at once halve the suite's time
    // on a 2-core machine (Vitest would run one file at a time there).
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // The kept local CA (--https) goes to a folder of this run, never to the user's configuration folder; the
    // emulators the tests start inherit it. test/global-setup.ts removes it at the end.
    env: { CHAT_EMULATOR_CONFIG_DIR: join(tmpdir(), `chat-emulator-test-config-${process.pid}`) },
    globalSetup: ["test/global-setup.ts"],
  },
});
