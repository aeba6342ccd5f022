#!/usr/bin/env node
"use strict";
// Thin launcher: runs the CLI that `npm install` (prepare) or `npm run build` bundles into dist/cli.cjs, with the
// V8 code cache made for it at the same build (dist/cli.cjs.cache; see scripts/bundle-cli.mjs) when it was made
// by this very Node version and architecture (a checkout's build; the npm package ships none).
// CommonJS (bin/package.json): a CommonJS main module starts without Node's ES module loader.
const { closeSync, fstatSync, openSync, readFileSync, readSync } = require("node:fs");
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
  // The first line names the build: `// chat-emulator build <id>`; the cache starts with the same id and the Node
  // version that made it, read first: another version's cache (which V8 would refuse) is not read at all.
  const key = Buffer.from(`${source.slice(0, source.indexOf("\n"))} ${process.version} ${process.arch}\n`, "latin1");
  const fd = openSync(`${filename}.cache`, "r");
  try {
    const head = Buffer.alloc(key.length);
    if (readSync(fd, head, 0, key.length, 0) === key.length && head.equals(key)) {
      cachedData = Buffer.allocUnsafe(fstatSync(fd).size - key.length);
      readSync(fd, cachedData, 0, cachedData.length, key.length);
    }
  } finally {
    closeSync(fd);
  }
} catch {
  // no cache: compile the file
}
const script = new Script(source, { filename, cachedData });
const cli = { exports: {} };
script.runInThisContext()(cli.exports, require("node:module").createRequire(filename), cli, filename, join(filename, ".."));
