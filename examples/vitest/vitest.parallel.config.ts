import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    root: import.meta.dirname,
    globalSetup: ["./emulator.parallel.ts"],
    setupFiles: ["chat-emulator/vitest/setup"],
  },
});
