// The GitHub Action's post step (action.yml): stops the emulator the main step started (SIGTERM: a clean stop, so
// a --data file is saved and the coverage written), prints its output, and puts the coverage report (the `coverage`
// input) in the job summary: this step's GITHUB_STEP_SUMMARY, as the main step's is closed by now. It uploads nothing.
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { dirname, extname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { fail } from "./runner.js";

const state = (name) => process.env[`STATE_${name}`] ?? "";
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const pid = Number(state("pid"));
let stopped = true;
if (Number.isSafeInteger(pid) && pid > 0 && alive(pid)) {
  process.kill(pid, "SIGTERM");
  for (let waited = 0; alive(pid) && waited < 30_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
  if (alive(pid)) {
    process.kill(pid, "SIGKILL");
    stopped = false;
  }
}
const log = state("log");
if (log && existsSync(log)) console.log(readFileSync(log, "utf8"));
if (!stopped) fail("the emulator did not stop within 30 s of SIGTERM and was killed.");

const coverage = state("coverage");
if (coverage) {
  if (!existsSync(coverage)) fail(`no coverage report at ${coverage}: the emulator could not write it (see its output above).`);
  let markdown = readFileSync(coverage, "utf8");
  if (extname(coverage).toLowerCase() === ".json") {
    // The same Markdown as `exec --coverage` puts in a summary, from the emulator the main step ran.
    const { coverageMarkdown } = await import(pathToFileURL(join(dirname(state("bin")), "../dist/control/coverage-file.js")).href);
    markdown = coverageMarkdown(JSON.parse(markdown));
  }
  if (process.env.GITHUB_STEP_SUMMARY) appendFileSync(process.env.GITHUB_STEP_SUMMARY, markdown + "\n");
  console.log(`The coverage report is in ${coverage}.`);
}
