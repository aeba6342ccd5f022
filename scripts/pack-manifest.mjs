// The package.json of the packed package (npm pack, npm publish). `prepack` builds (unless CHAT_EMULATOR_PREBUILT=1:
// the package test packs the dist that `npm test` has just built) and removes `prepare`: a git checkout needs it to
// build, a packed package is built already, so installing the tarball runs no script. `postpack` puts the
// checkout's package.json back; under `npm publish`, which reads package.json again after packing for the
// registry's metadata, `postpublish` does. A pack or publish that failed halfway is undone by the next one.
import { execSync } from "node:child_process";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";

const MANIFEST = new URL("../package.json", import.meta.url);
const KEPT = new URL("../package.json.checkout", import.meta.url);

if (process.argv[2] === "prepack") {
  if (existsSync(KEPT)) renameSync(KEPT, MANIFEST);
  if (process.env.CHAT_EMULATOR_PREBUILT !== "1") execSync("npm run build", { stdio: "inherit" });
  const text = readFileSync(MANIFEST, "utf8");
  const manifest = JSON.parse(text);
  delete manifest.scripts.prepare;
  writeFileSync(KEPT, text);
  // Renamed over it: a reader meanwhile (the tests next to the package test import the version from it) never sees
  // an empty file.
  const aside = new URL(`../package.json.packing-${process.pid}`, import.meta.url);
  writeFileSync(aside, JSON.stringify(manifest, null, 2) + "\n");
  renameSync(aside, MANIFEST);
} else if (process.argv[2] === "postpack" || process.argv[2] === "postpublish") {
  const publishing = process.env.npm_command === "publish";
  if (existsSync(KEPT) && publishing === (process.argv[2] === "postpublish")) renameSync(KEPT, MANIFEST);
} else {
  console.error("usage: node scripts/pack-manifest.mjs prepack|postpack|postpublish");
  process.exit(2);
}
