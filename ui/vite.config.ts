import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

// The web inspector: bundled into dist/ui and served by the emulator at /_emulator/ui (src/control/ui.ts).
// `npx vite --config ui/vite.config.ts` serves it with live reload against an emulator on :4780.
const emulator = process.env.CHAT_EMULATOR_URL ?? "http://127.0.0.1:4780";

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/_emulator/ui/",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: fileURLToPath(new URL("../dist/ui", import.meta.url)),
    emptyOutDir: true,
    target: "es2022",
    reportCompressedSize: false,
  },
  server: {
    proxy: {
      "^/_emulator/(?!ui)": emulator,
      "^/[a-z0-9]+\\.(api|call)-(us|eu|in)/": emulator,
      "/apimgmt": emulator,
    },
  },
});
