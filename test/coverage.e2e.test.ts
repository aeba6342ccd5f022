import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "./cli.helpers.js";
import { tempDir } from "./tmp.helpers.js";

/** A command that makes two calls of list-users (one refused: no key) and one of get-user. */
const program = `(async () => {
  const base = process.env.CHAT_EMULATOR_BASE_URL, apikey = process.env.CHAT_EMULATOR_API_KEY;
  await fetch(base + "/users", { headers: { apikey } });
  await fetch(base + "/users");
  await fetch(base + "/users/superhero1", { headers: { apikey } });
})()`;
const exec = (args: string[], env: Record<string, string> = {}) =>
  runCli(["--port", "0", "--quiet", "exec", ...args, "--", process.execPath, "-e", program], env, 15_000);

describe("chat-emulator exec --coverage", () => {
  it("writes the run's coverage as JSON at exit", async () => {
    const file = join(tempDir("coverage"), "out", "coverage.json");
    const r = await exec(["--coverage", file], { GITHUB_STEP_SUMMARY: "" });
    expect(r).toEqual({ code: 0, stdout: "", stderr: "" });
    const report = JSON.parse(readFileSync(file, "utf8"));
    expect(report).toMatchObject({ appId: null, documented: 229, covered: 2, calls: 3 });
    expect(report.operations.find((o: { slug: string }) => o.slug === "list-users")).toMatchObject({
      calls: 2,
      plane: { rest: 2, client: 0 },
      statuses: { "200": 1, "401": 1 },
      codes: { AUTH_ERR_EMPTY_APIKEY: 1 },
    });
  });

  it("writes Markdown for a .md file and appends it to GITHUB_STEP_SUMMARY", async () => {
    const dir = tempDir("coverage");
    const file = join(dir, "coverage.md");
    const summary = join(dir, "summary.md");
    writeFileSync(summary, "earlier step\n");
    const r = await exec(["--coverage", file], { GITHUB_STEP_SUMMARY: summary });
    expect(r.code).toBe(0);
    const markdown = readFileSync(file, "utf8");
    expect(markdown).toContain("### API coverage: 2 of 229 documented operations (1%)");
    expect(markdown).toContain("| Users | 2 | 7 | 29% |");
    expect(markdown).toMatch(/\| list-users \| `GET \/users` \| 2 \| 2 \/ 0 \| 200 ×1, 401 ×1 \| AUTH_ERR_EMPTY_APIKEY ×1 \|/);
    expect(markdown).toContain("<details><summary>Not covered (227)</summary>");
    expect(readFileSync(summary, "utf8")).toBe(`earlier step\n${markdown}\n`);
  });

  it("refuses a file of another extension before running anything", async () => {
    const r = await exec(["--coverage", join(tempDir("coverage"), "coverage.txt")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--coverage: the coverage file must end in .json or .md");
  });

  // Node's recursive mkdir spins on /proc instead of failing: the path is checked at start, a folder at a time.
  it("refuses a path that cannot be written at start, with or without exec, rather than when the run ends", async () => {
    const refused = "chat-emulator: --coverage: /proc/nope/cov.md: cannot be written (ENOENT: no such file or directory, mkdir '/proc/nope').\n";
    expect(await exec(["--coverage", "/proc/nope/cov.md"])).toEqual({ code: 2, stdout: "", stderr: refused });
    expect(await runCli(["--port", "0", "--coverage", "/proc/nope/cov.md"], {}, 5_000)).toEqual({ code: 2, stdout: "", stderr: refused });
  });
});
