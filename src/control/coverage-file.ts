import type { CoverageReport } from "./coverage.js";
import { reportFileProblem, writeReport } from "./report-file.js";

/**
 * The coverage of a run as a file (`exec --coverage FILE`, the Vitest helper's `coverage` option): JSON (.json, the
 * control API's answer) or a Markdown summary (.md), chosen by the extension; with GITHUB_STEP_SUMMARY set (a
 * GitHub Actions step), the Markdown is appended there as well, so the run's page shows it.
 */

/** Why `path` cannot take the coverage, or undefined when it can (checked before the run, not after it). */
export function coverageFileProblem(path: string): string | undefined {
  return reportFileProblem("coverage", path);
}

const percent = (covered: number, documented: number) => `${documented === 0 ? 0 : Math.round((covered * 100) / documented)}%`;
const counts = (m: Record<string, number>) =>
  Object.entries(m)
    .map(([k, n]) => `${k} ×${n}`)
    .join(", ");

/** A Markdown summary: totals per area, the operations called, and those not called, by area. */
export function coverageMarkdown(r: CoverageReport): string {
  const lines = [
    `### API coverage: ${r.covered} of ${r.documented} documented operations (${percent(r.covered, r.documented)})`,
    "",
    "| Area | Covered | Documented | % |",
    "|---|---:|---:|---:|",
    ...r.areas.map((a) => `| ${a.area} | ${a.covered} | ${a.documented} | ${percent(a.covered, a.documented)} |`),
    "",
  ];
  const called = r.operations.filter((o) => o.calls > 0);
  if (called.length > 0) {
    lines.push("| Operation | Request | Calls | REST / client | Statuses | Error codes |", "|---|---|---:|---|---|---|");
    for (const o of called)
      lines.push(`| ${o.slug} | \`${o.method} ${o.path}\` | ${o.calls} | ${o.plane.rest} / ${o.plane.client} | ${counts(o.statuses)} | ${counts(o.codes)} |`);
    lines.push("");
  }
  const missing = r.operations.filter((o) => o.calls === 0);
  if (missing.length > 0) {
    lines.push(`<details><summary>Not covered (${missing.length})</summary>`, "");
    for (const a of r.areas) {
      const slugs = missing.filter((o) => o.area === a.area).map((o) => o.slug);
      if (slugs.length > 0) lines.push(`- **${a.area}**: ${slugs.join(", ")}`);
    }
    lines.push("", "</details>", "");
  }
  return lines.join("\n");
}

/** Writes the report to `path` (whole or not at all: beside it, then renamed) and to the step summary if any. */
export async function writeCoverage(path: string, report: CoverageReport, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const problem = coverageFileProblem(path);
  if (problem) throw new Error(problem);
  await writeReport(path, report, coverageMarkdown(report), env);
}
