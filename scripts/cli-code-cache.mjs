// Makes dist/cli.cjs.cache (run by scripts/bundle-cli.mjs): starts the bundled CLI as bin/chat-emulator.js does (the
// same text compiled by node:vm), answers one request so that the request path is compiled too, and writes V8's
// code cache after the build id line the bundle starts with and the Node version that made it (the launcher uses
// it only under that version). A fresh process with Node's default flags, as the CLI's users run it: V8 refuses a
// cache made under other flags or by another version, and then just compiles.
import { readFileSync, writeFileSync } from "node:fs";
import { get } from "node:http";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { Script } from "node:vm";

const filename = fileURLToPath(new URL("../dist/cli.cjs", import.meta.url));
const source = readFileSync(filename, "utf8");
const script = new Script(source, { filename });

// The banner (on stdout) says where it listens.
let out = "";
process.stdout.write = (chunk) => ((out += chunk), true);
// The default start (the bundled seed, in memory), whatever the builder's environment says.
for (const name of Object.keys(process.env)) if (name.startsWith("CHAT_EMULATOR_")) delete process.env[name];
process.argv = [process.execPath, filename, "--port", "0", "--host", "127.0.0.1"];
const module = { exports: {} };
script.runInThisContext()(module.exports, createRequire(filename), module, filename, dirname(filename));
await module.exports.started;
const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
if (!url) throw new Error(`no listening line in ${JSON.stringify(out)}`);
await new Promise((resolve, reject) => get(`${url}/_emulator/health`, (res) => res.resume().on("end", resolve)).on("error", reject));
const key = `${source.slice(0, source.indexOf("\n"))} ${process.version} ${process.arch}\n`;
writeFileSync(`${filename}.cache`, Buffer.concat([Buffer.from(key, "latin1"), script.createCachedData()]));
process.exit(0);
