import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { tempDir } from "./tmp.helpers.js";

/**
 * The GitHub Action (action.yml, action/main.js and action/post.js), run as a runner runs it: the INPUT_* variables,
 * GITHUB_ACTION_PATH (the Action's own checkout: this one, built) and the GITHUB_ENV, GITHUB_OUTPUT, GITHUB_STATE
 * and GITHUB_STEP_SUMMARY files, each step with its own summary file.
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const run = promisify(execFile);

/** KEY=value lines of a runner's file. */
const lines = (file: string) => Object.fromEntries(readFileSync(file, "utf8").trim().split("\n").filter(Boolean).map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]));

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** A job's runner files and the main step's environment: every input empty but those given. */
function job(inputs: Record<string, string>, env: Record<string, string> = {}) {
  const dir = tempDir("action");
  const files = { GITHUB_ENV: join(dir, "env"), GITHUB_OUTPUT: join(dir, "output"), GITHUB_STATE: join(dir, "state"), GITHUB_STEP_SUMMARY: join(dir, "main-summary.md") };
  for (const f of Object.values(files)) writeFileSync(f, "");
  const blank = Object.fromEntries(["version", "port", "seed", "data", "https", "coverage"].map((n) => [`INPUT_${n.toUpperCase()}`, ""]));
  const given = Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v]));
  const mainEnv = { ...process.env, ...files, ...blank, INPUT_PORT: "0", ...given, RUNNER_TEMP: dir, GITHUB_ACTION_PATH: ROOT, ...env };
  /** The post step, with the state the main step saved and a summary file of its own. */
  const post = async () => {
    const state = lines(files.GITHUB_STATE);
    const summary = join(dir, "post-summary.md");
    writeFileSync(summary, "");
    const stateEnv = Object.fromEntries(Object.entries(state).map(([k, v]) => [`STATE_${k}`, v]));
    const r = await run(process.execPath, [join(ROOT, "action/post.js")], { env: { ...process.env, ...stateEnv, GITHUB_STEP_SUMMARY: summary }, timeout: 40_000 });
    return { ...r, summary: readFileSync(summary, "utf8") };
  };
  const main = () => run(process.execPath, [join(ROOT, "action/main.js")], { env: mainEnv, timeout: 60_000 });
  return { dir, files, main, post, pid: () => Number(lines(files.GITHUB_STATE).pid) };
}

/** `main` fails: exit code 1 and one `::error` line on stdout (no stack trace). */
async function failure(main: () => Promise<unknown>): Promise<string> {
  const e = (await main().then(
    () => expect.unreachable("the step succeeded"),
    (err: unknown) => err,
  )) as { code: number; stdout: string; stderr: string };
  expect(e.code).toBe(1);
  const out = e.stdout.trim().split("\n");
  expect(out.filter((l) => l.startsWith("::error"))).toHaveLength(1);
  expect(e.stdout + e.stderr).not.toMatch(/\n\s+at /);
  return out.find((l) => l.startsWith("::error"))!;
}

describe("the GitHub Action", () => {
  it("declares a node24 JavaScript action with main and post entries and the documented inputs", () => {
    const action = parse(readFileSync(join(ROOT, "action.yml"), "utf8"));
    expect(action.runs).toEqual({ using: "node24", main: "action/main.js", post: "action/post.js" });
    expect(Object.keys(action.inputs).sort()).toEqual(["coverage", "data", "https", "port", "seed", "version"]);
    expect(action.inputs.version.default).toBe("");
  });

  it("runs its own copy by default, exports the exec variables and outputs; the post step stops it (saving --data) and puts the coverage in its own summary", async () => {
    const data = join(tempDir("action-data"), "state.json");
    const coverage = join(tempDir("action-coverage"), "reports", "coverage.json");
    const j = job({ data, coverage });
    await j.main();

    const exported = lines(j.files.GITHUB_ENV);
    expect(Object.keys(exported).sort()).toEqual([
      "CHAT_EMULATOR_API_KEY",
      "CHAT_EMULATOR_APP_ID",
      "CHAT_EMULATOR_AUTH_KEY",
      "CHAT_EMULATOR_BASE_URL",
      "CHAT_EMULATOR_MANAGEMENT_URL",
      "CHAT_EMULATOR_REGION",
      "CHAT_EMULATOR_URL",
    ]);
    expect(lines(j.files.GITHUB_OUTPUT)).toEqual({ url: exported.CHAT_EMULATOR_URL, "base-url": exported.CHAT_EMULATOR_BASE_URL, "app-id": "62c95aeb231ec058", "api-key": exported.CHAT_EMULATOR_API_KEY });
    expect(lines(j.files.GITHUB_STATE).bin).toBe(join(ROOT, "bin/chat-emulator.js"));
    const pid = j.pid();
    try {
      expect((await fetch(`${exported.CHAT_EMULATOR_URL}/_emulator/health`)).status).toBe(200);
      const created = await fetch(`${exported.CHAT_EMULATOR_BASE_URL}/users`, {
        method: "POST",
        headers: { apikey: exported.CHAT_EMULATOR_API_KEY, "content-type": "application/json" },
        body: JSON.stringify({ uid: "from-ci", name: "From CI" }),
      });
      expect(created.status).toBe(200);

      const post = await j.post();
      expect(alive(pid)).toBe(false);
      expect(post.stdout).toContain('"event":"listening"');
      expect(post.stdout).toContain(`The coverage report is in ${coverage}.`);
      expect(JSON.parse(readFileSync(data, "utf8")).apps[0].users.map((u: { uid: string }) => u.uid)).toContain("from-ci");
      expect(JSON.parse(readFileSync(coverage, "utf8")).operations.find((o: { slug: string }) => o.slug === "create-user")).toMatchObject({ calls: 1, statuses: { "200": 1 } });
      expect(post.summary).toMatch(/^### API coverage: 1 of \d+ documented operations/);
      expect(post.summary).toMatch(/\| create-user \| `POST \/users` \| 1 \|/);
      // The main step's summary is closed when it ends: nothing is written there later.
      expect(readFileSync(j.files.GITHUB_STEP_SUMMARY, "utf8")).toBe("");
    } finally {
      if (alive(pid)) process.kill(pid, "SIGKILL");
    }
  });

  it("with https, exports NODE_EXTRA_CA_CERTS as exec does: the local CA joined with a bundle the job names", async () => {
    const dir = tempDir("action-ca");
    const theirs = join(dir, "corporate.pem");
    writeFileSync(theirs, "-----BEGIN CERTIFICATE-----\ncorporate\n-----END CERTIFICATE-----\n");
    const j = job({ https: "true", coverage: join(dir, "coverage.md") }, { NODE_EXTRA_CA_CERTS: theirs });
    await j.main();
    const pid = j.pid();
    try {
      const exported = lines(j.files.GITHUB_ENV);
      expect(exported.CHAT_EMULATOR_URL).toMatch(/^https:/);
      const bundle = readFileSync(exported.NODE_EXTRA_CA_CERTS, "utf8");
      expect(bundle).toBe(`${readFileSync(theirs, "utf8").trimEnd()}\n${readFileSync(exported.CHAT_EMULATOR_CA_CERT, "utf8")}`);
      const post = await j.post();
      expect(post.summary).toMatch(/^### API coverage: 0 of \d+/);
      expect(readFileSync(join(dir, "coverage.md"), "utf8")).toBe(post.summary.slice(0, -1));
    } finally {
      if (alive(pid)) process.kill(pid, "SIGKILL");
    }
  });

  it("fails with one ::error line, never a stack trace: a seed that does not exist, a version path that does not exist", async () => {
    const seed = await failure(job({ seed: "/nonexistent/seed.json" }).main);
    expect(seed).toMatch(/^::error title=chat-emulator::it exited with 2:%0A.*\/nonexistent\/seed\.json/);
    const version = await failure(job({ version: "./nope" }).main);
    expect(version).toBe("::error title=chat-emulator::version: ./nope does not exist (a registry version, or the path of a built checkout or a tarball).");
    const coverage = await failure(job({ coverage: "/proc/nope/cov.md" }).main);
    expect(coverage).toContain("--coverage: /proc/nope/cov.md: cannot be written");
  });

  it("builds its own copy where the runner checked it out (npm ci there) when it is not built, and says why a build failed", async () => {
    // A checkout as the runner has it (sources only) and an npm that says where it ran, with what, and fails.
    const dir = tempDir("action-unbuilt");
    const checkout = join(dir, "checkout");
    mkdirSync(checkout);
    mkdirSync(join(dir, "bin"));
    writeFileSync(join(dir, "bin/npm"), `#!/bin/sh\necho "$PWD $*" > ${join(dir, "npm-ran")}\necho "npm ERR! no network" >&2\nexit 1\n`, { mode: 0o755 });
    const j = job({}, { GITHUB_ACTION_PATH: checkout, PATH: `${join(dir, "bin")}:${process.env.PATH}` });
    expect(await failure(j.main)).toBe("::error title=chat-emulator::npm ci failed (exit 1): npm ERR! no network");
    expect(readFileSync(join(dir, "npm-ran"), "utf8")).toBe(`${checkout} ci --no-audit --no-fund\n`);
  });
});
