import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, parseDocument } from "yaml";
import { emulatorEnv, startEmulator, type RunningEmulator } from "../src/index.js";
import { runCli } from "./cli.helpers.js";

/** examples/*.yml: valid YAML of the right shape, naming real flags and the default app's real values. */

function load(name: string): any {
  const doc = parseDocument(readFileSync(fileURLToPath(new URL(`../examples/${name}`, import.meta.url)), "utf8"), { uniqueKeys: true });
  expect(doc.errors.map((e) => e.message)).toEqual([]);
  expect(doc.warnings.map((e) => e.message)).toEqual([]);
  return doc.toJS();
}

const EXPOSED = /^EXPOSE\s+(\d+)$/m.exec(readFileSync(fileURLToPath(new URL("../Dockerfile", import.meta.url)), "utf8"))![1];

let emulator: RunningEmulator;
let flagVariables: string[];
beforeAll(async () => {
  emulator = await startEmulator({ quiet: true });
  flagVariables = [...(await runCli(["--help"])).stdout.matchAll(/env:\s+(CHAT_EMULATOR_\w+)/g)].map((m) => m[1]);
});
afterAll(() => emulator.close());

/** The variables a job sets for the code under test must be what the emulator at `url` would hand over. */
function expectEmulatorVariables(vars: Record<string, string>) {
  const expected = emulatorEnv(emulator);
  delete expected.CHAT_EMULATOR_MANAGEMENT_URL;
  const url = vars.CHAT_EMULATOR_URL;
  for (const [k, v] of Object.entries(expected)) expect(vars[k], k).toBe(v.replace(emulator.url, url));
}

/** The exec command line of a job runs for real, with `npm test` standing in as a command that succeeds. */
async function expectExecWorks(line: string) {
  const m = /npx chat-emulator exec (.*?) -- (.+)$/.exec(line);
  expect(m, line).not.toBeNull();
  const r = await runCli(["exec", ...m![1].split(/\s+/), "--", process.execPath, "-e", "process.exit(process.env.CHAT_EMULATOR_BASE_URL ? 0 : 1)"]);
  expect(r.code, r.stderr).toBe(0);
}

describe("examples/github-actions.yml", () => {
  const workflow = load("github-actions.yml");

  it("is a workflow whose jobs run on a runner and whose steps each use an action or run a command", () => {
    expect(workflow.on).toBeDefined();
    for (const job of Object.values<any>(workflow.jobs)) {
      expect(job["runs-on"]).toBe("ubuntu-latest");
      for (const step of job.steps) expect(("uses" in step) !== ("run" in step)).toBe(true);
    }
  });

  it("runs the image as a service on the port it exposes, with real flag variables, and hands the tests the default app", () => {
    const job = workflow.jobs["with-service-container"];
    const service = job.services["chat-emulator"];
    expect(service.ports).toEqual([`${EXPOSED}:${EXPOSED}`]);
    for (const name of Object.keys(service.env)) expect(flagVariables).toContain(name);
    expect(job.env.CHAT_EMULATOR_URL).toBe(`http://127.0.0.1:${EXPOSED}`);
    expectEmulatorVariables(job.env);
  });

  it("runs the tests in exec mode with a command line that works", async () => {
    const steps = workflow.jobs["with-exec"].steps.filter((s: any) => s.run?.includes("chat-emulator exec"));
    expect(steps).toHaveLength(1);
    await expectExecWorks(steps[0].run);
  });
});

const action = parse(readFileSync(fileURLToPath(new URL("../action.yml", import.meta.url)), "utf8"));

/** A job that installs the project, then starts the emulator with the Action (inputs it declares), then tests. */
function expectActionJob(job: any) {
  const steps = job.steps.map((s: any) => s.uses ?? s.run);
  const at = steps.findIndex((s: string) => /^your-org\/chat-emulator@\S+$/.test(s));
  expect(at, JSON.stringify(steps)).toBeGreaterThan(steps.indexOf("npm ci"));
  expect(steps.slice(at + 1)).toContain("npm test");
  for (const name of Object.keys(job.steps[at].with ?? {})) expect(Object.keys(action.inputs)).toContain(name);
  const node = job.steps.find((s: any) => s.uses?.startsWith("actions/setup-node@"))?.with["node-version"];
  expect(["20", "22", "24"]).toContain(String(node));
}

describe("the Action's workflows", () => {
  it("examples/github-actions.yml has a job that uses it", () => {
    expectActionJob(load("github-actions.yml").jobs["with-action"]);
  });

  it("docs/ci.md's workflow to paste uses it with every input it declares, at its default but the coverage file", () => {
    const page = readFileSync(fileURLToPath(new URL("../docs/ci.md", import.meta.url)), "utf8");
    const block = /## GitHub Action\n[^]*?```yaml\n([^]*?)```/.exec(page)![1];
    const doc = parseDocument(block, { uniqueKeys: true });
    expect(doc.errors).toEqual([]);
    const workflow: any = doc.toJS();
    expect(workflow.on).toBeDefined();
    const [job] = Object.values<any>(workflow.jobs);
    expectActionJob(job);
    const given = job.steps.find((s: any) => s.uses?.includes("/chat-emulator@")).with;
    expect(Object.keys(given).sort()).toEqual(Object.keys(action.inputs).sort());
    for (const [name, value] of Object.entries(given)) if (name !== "coverage") expect(value, name).toBe(action.inputs[name].default);
  });
});

describe("examples/gitlab-ci.yml", () => {
  const pipeline = load("gitlab-ci.yml");

  it("has jobs in declared stages, each with a script", () => {
    const jobs = Object.entries<any>(pipeline).filter(([k]) => k !== "stages");
    expect(jobs.length).toBe(2);
    for (const [, job] of jobs) {
      expect(pipeline.stages).toContain(job.stage);
      expect(job.script.every((l: unknown) => typeof l === "string")).toBe(true);
    }
  });

  it("runs the image as a service reached by its alias, with real flag variables, and hands the tests the default app", () => {
    const job = pipeline["test-with-service"];
    const [service] = job.services;
    expect(service.alias).toBe("chat-emulator");
    for (const name of Object.keys(service.variables)) expect(flagVariables).toContain(name);
    expect(job.variables.CHAT_EMULATOR_URL).toBe(`http://chat-emulator:${EXPOSED}`);
    expectEmulatorVariables(job.variables);
  });

  it("runs the tests in exec mode with a command line that works", async () => {
    const lines = pipeline["test-with-exec"].script.filter((l: string) => l.includes("chat-emulator exec"));
    expect(lines).toHaveLength(1);
    await expectExecWorks(lines[0]);
  });
});
