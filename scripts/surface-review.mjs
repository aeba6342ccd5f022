#!/usr/bin/env node
// Prints, as JSON to paste, what the surface test (test/surface.test.ts) finds: published operations neither declared
// nor listed as not served (notServed skeletons for catalogue/not-served.json), unreviewed body/query differences and
// wrong ids (skeletons for catalogue/differences.json), declarations of published operations without an id
// (missingIds: the published operationId to fill in), and stale or unwritten entries of the reviewed lists.
// Every reason reads "TODO: review (...)": the test never accepts one; write the real reason (docs/coverage.md).
//
//   node scripts/surface-review.mjs
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const run = spawnSync("npx", ["vitest", "run", "test/surface.test.ts"], {
  cwd: root,
  env: { ...process.env, SURFACE_REVIEW: "1" },
  encoding: "utf8",
  maxBuffer: 64 * 1024 * 1024,
});
const text = `${run.stdout ?? ""}${run.stderr ?? ""}`;
const found = text.match(/<<<surface-review\n([\s\S]*?)\nsurface-review>>>/);
if (!found) {
  process.stderr.write(`surface-review: the surface test printed no review (exit ${run.status}):\n${text.slice(-4000)}`);
  process.exit(1);
}
process.stdout.write(`${found[1]}\n`);
