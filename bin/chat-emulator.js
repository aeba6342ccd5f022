#!/usr/bin/env node
// Thin launcher: the CLI is compiled to dist/ by `npm install` (prepare) or `npm run build`.
import("../dist/cli.js").catch((e) => {
  if (e && e.code === "ERR_MODULE_NOT_FOUND" && String(e.message).includes("dist/cli.js")) {
    process.stderr.write("chat-emulator: not built yet; run `npm install` or `npm run build` first.\n");
    process.exit(2);
  }
  throw e;
});
