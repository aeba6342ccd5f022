// `npm run build`, after tsc: bundles the CLI (dist/cli.js as tsc wrote it, with every module it imports and its
// dependencies) into dist/cli.js itself, plus dist/cli-*.js chunks for what a start may never load (see cli.ts and
// the lazy imports it reaches). One file to compile instead of some 200 to resolve, read and link: start-up is
// dominated by module loading (README, Performance). The chunks sit next to the entry, one folder below the package
// root, as src/paths.ts requires. The library (dist/index.js, chat-emulator/vitest) stays tsc's unbundled output.
import { build } from "rolldown";

const dist = new URL("../dist/", import.meta.url).pathname;

await build({
  input: { cli: `${dist}cli.js` },
  platform: "node",
  logLevel: "warn",
  // ws requires these optional native helpers in a try/catch: resolved at run time, when installed.
  external: ["bufferutil", "utf-8-validate"],
  output: {
    dir: dist,
    format: "esm",
    entryFileNames: "[name].js",
    chunkFileNames: "cli-[name].js",
  },
});
