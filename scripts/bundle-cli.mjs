// `npm run build`, after tsc: the CLI as one file, dist/cli.cjs, and a V8 code cache for it, dist/cli.cjs.cache.
// Start-up is dominated by loading code (README, Performance): some 200 modules to resolve, read, link and compile.
// The bundle (src/bin.ts with every module it imports and its dependencies) is one file to compile, and the code
// cache, made by starting the bundled CLI once and answering one request (scripts/cli-code-cache.mjs), spares most
// of that compiling. bin/chat-emulator.js loads both. The library (dist/index.js, chat-emulator/vitest) stays tsc's
// unbundled output.
//
// The file is a CommonJS module body wrapped in a function expression, preceded by a build id line: the loader
// compiles exactly the file's text (as the code cache was made from it) and uses the cache only when it carries the
// same id (V8 checks its version and flags, but of the source only its length).
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const buildId = randomBytes(16).toString("hex");
rmSync(`${dist}cli.cjs.cache`, { force: true });

const { output } = await build({
  input: fileURLToPath(new URL("../src/bin.ts", import.meta.url)),
  platform: "node",
  logLevel: "warn",
  // ws requires these optional native helpers in a try/catch: resolved at run time, when installed.
  external: ["bufferutil", "utf-8-validate"],
  write: false,
  // One file: what is imported lazily (import()) is still evaluated only when first needed. ASCII only (non-ASCII
  // characters escaped, comments dropped): Node reads it into a one-byte string, in half the time of a UTF-16 one.
  output: { format: "cjs", codeSplitting: false, charset: "ascii", comments: false },
});
if (output.length !== 1) throw new Error(`bundle-cli: expected one chunk, got ${output.map((o) => o.fileName).join(", ")}`);
// node:vm runs the file without a loader for import(): what the bundle does not hold must be require()d.
const outside = output[0].dynamicImports.filter((id) => id !== output[0].fileName);
if (outside.length) throw new Error(`bundle-cli: import() of ${outside.join(", ")} in the CLI; import it statically instead`);
writeFileSync(`${dist}cli.cjs`, `// chat-emulator build ${buildId}\n(function (exports, require, module, __filename, __dirname) {\n${output[0].code}\n})\n`);

// The code cache is an optimisation: a build without it still works (the CLI compiles the file itself).
const made = spawnSync(process.execPath, [fileURLToPath(new URL("./cli-code-cache.mjs", import.meta.url))], { stdio: ["ignore", "ignore", "inherit"], timeout: 30_000 });
if (made.status !== 0) process.stderr.write(`bundle-cli: no code cache for dist/cli.cjs (exit ${made.status ?? made.signal}); the CLI starts without it\n`);
