import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { defineConfig, searchForWorkspaceRoot } from "vite";

// `npm start` = this dev server plus an emulator with --https on 127.0.0.1:4780 (EMULATOR_PORT to change it). With
// VITE_EMULATOR_HOST=host:port set, or when that port is taken, the app uses the emulator already running there.
const port = Number(process.env.EMULATOR_PORT ?? 4780);

/** This repository's build when the example runs inside it, else the installed package (`npm i -D chat-emulator`). */
async function loadEmulator() {
  const inRepo = new URL("../../dist/index.js", import.meta.url);
  const name = existsSync(inRepo) ? inRepo.href : "chat-emulator";
  return import(/* @vite-ignore */ name);
}

function chatEmulator() {
  let running;
  return {
    name: "chat-emulator",
    apply: "serve",
    async config() {
      if (process.env.VITE_EMULATOR_HOST) return;
      const { startEmulator } = await loadEmulator();
      try {
        running = await startEmulator({ https: true, port, host: "127.0.0.1", quiet: true });
      } catch (e) {
        if (e?.code !== "EADDRINUSE") throw e;
        console.log(`\n  chat-emulator: using the emulator already listening on 127.0.0.1:${port}`);
      }
      const host = `127.0.0.1:${port}`;
      if (running) {
        console.log(`\n  chat-emulator: ${running.url} (inspector: ${running.url}/_emulator/ui)`);
        console.log(`  Browser does not trust it yet? \`npx chat-emulator cert\` says how to trust its CA once, or open`);
        console.log(`  ${running.url}/_emulator/health and accept the warning for this browser session.`);
      }
      return { define: { "import.meta.env.VITE_EMULATOR_HOST": JSON.stringify(host) } };
    },
    configureServer(server) {
      server.httpServer?.once("close", () => running?.close());
    },
  };
}

// The kit's fonts are files next to its bundle: inside this repository, in the root's node_modules, which the dev
// server would refuse to serve (403) without this.
const kit = dirname(createRequire(import.meta.url).resolve("@cometchat/chat-uikit-react"));

export default defineConfig({
  plugins: [chatEmulator()],
  server: { fs: { allow: [searchForWorkspaceRoot(process.cwd()), kit] } },
  build: { chunkSizeWarningLimit: 10_000 },
});
