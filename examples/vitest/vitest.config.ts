import { defineConfig } from "vitest/config";

// One emulator for the run (globalSetup); every test file starts from the seed (setupFiles). Files share the
// emulator, so they run one at a time: see vitest.parallel.config.ts for parallel files, each with its own app.
export default defineConfig({
  test: {
    root: import.meta.dirname,
    globalSetup: ["chat-emulator/vitest"],
    setupFiles: ["chat-emulator/vitest/setup"],
    fileParallelism: false,
  },
});
