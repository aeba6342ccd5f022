#!/usr/bin/env node
"use strict";
// Thin launcher: runs the CLI that `npm install` (prepare) or `npm run build` bundles into dist/cli.cjs, with the
// V8 code cache made for it at the same build (dist/cli.cjs.cache; see scripts/bundle-cli.mjs) when it matches.
// CommonJS (bin/package.json): a CommonJS main module starts without Node's ES module loader.
const { readFileSync } = require("node:fs");
const { join } = require("node:path");
const { Script } = require("node:vm");

const filename = join(__dirname, "..", "dist", "cli.cjs");
let source;
try {
  source = readFileSync(filename, "utf8");
} catch (e) {
  if (e.code !== "ENOENT") throw e;
  process.stderr.write("chat-emulator: not built yet; run `npm install` or `npm run build` first.\n");
  process.exit(2);
}
let cachedData;
try {
  const cache = readFileSync(`${filename}.cache`);
  // The first line names the build: `// chat-emulator build <id>`; the cache starts with the same id.
  const id = source.slice(0, source.indexOf("\n"));
  if (cache.subarray(0, id.length).toString("latin1") === id) cachedData = cache.subarray(id.length);
} catch {
  // no cache: compile the file
}
const script = new Script(source, { filename, cachedData });
const cli = { exports: {} };
script.runInThisContext()(cli.exports, require("node:module").createRequire(filename), cli, filename, join(filename, ".."));
