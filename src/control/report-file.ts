import { appendFile, rename, writeFile } from "node:fs/promises";
import { dirname, extname } from "node:path";
import { makeFolders } from "../store/persistence.js";

/**
 * A report as a file, JSON (.json) or Markdown (.md) by the extension, written whole or not at all (beside its name,
 * then renamed); with GITHUB_STEP_SUMMARY set (a GitHub Actions step), the Markdown is appended there as well, so
 * the run's page shows it. Used by the coverage (`--coverage`) and `compare --report`.
 */

export const REPORT_FORMATS = [".json", ".md"] as const;

/** Why `path` cannot take a report, or undefined when it can (checked before the work, not after it). */
export function reportFileProblem(what: string, path: string): string | undefined {
  const ext = extname(path).toLowerCase();
  return (REPORT_FORMATS as readonly string[]).includes(ext) ? undefined : `the ${what} file must end in .json or .md, not ${JSON.stringify(path)}.`;
}

export async function writeReport(path: string | undefined, json: unknown, markdown: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (path !== undefined) {
    const text = extname(path).toLowerCase() === ".json" ? JSON.stringify(json, null, 2) + "\n" : markdown;
    // Never Node's recursive mkdir: it spins on some paths (/proc/nope) instead of failing.
    await makeFolders(dirname(path));
    const temp = `${path}.${process.pid}.tmp`;
    await writeFile(temp, text);
    await rename(temp, path);
  }
  if (env.GITHUB_STEP_SUMMARY) await appendFile(env.GITHUB_STEP_SUMMARY, markdown + "\n");
}
