import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { tempDir } from "./tmp.helpers.js";

/** The release workflow (docs/releasing.md): what a version tag runs, in which order, with which secrets. */

const workflow = parse(readFileSync(new URL("../.github/workflows/release.yml", import.meta.url), "utf8"));
const steps = (job: string) => workflow.jobs[job].steps as { uses?: string; run?: string; with?: Record<string, string>; env?: Record<string, string> }[];

describe("the release workflow", () => {
  it("runs on version tags: tests first, then the npm package and the image", () => {
    expect(workflow.on).toEqual({ push: { tags: ["v*.*.*"] } });
    expect(Object.keys(workflow.jobs)).toEqual(["test", "npm", "image"]);
    expect([workflow.jobs.npm.needs, workflow.jobs.image.needs]).toEqual(["test", "test"]);
    expect(steps("test").map((s) => s.run).filter(Boolean)).toContain("bash .ci/run");
  });

  it("publishes with provenance using only NPM_TOKEN, and pushes amd64 and arm64 images tagged with the version and latest", () => {
    expect(workflow.jobs.npm.permissions["id-token"]).toBe("write");
    const publish = steps("npm").find((s) => s.run?.startsWith("npm publish"))!;
    expect(publish.run).toBe("npm publish --provenance --access public");
    expect(publish.env).toEqual({ NODE_AUTH_TOKEN: "${{ secrets.NPM_TOKEN }}" });
    const push = steps("image").find((s) => s.uses?.startsWith("docker/build-push-action"))!;
    expect(push.with).toMatchObject({ platforms: "linux/amd64,linux/arm64", push: true });
    expect(steps("image").find((s) => s.run?.includes("GITHUB_OUTPUT"))!.run).toMatch(/\$\{image\}:\$\{GITHUB_REF_NAME#v\},\$\{image\}:latest/);
    const secrets = JSON.stringify(workflow).match(/secrets\.[A-Z_]+/g);
    expect([...new Set(secrets)].sort()).toEqual(["secrets.GITHUB_TOKEN", "secrets.NPM_TOKEN"]);
  });

  it("names the workflow's own repository in package.json (repository, homepage, bugs) before publishing", () => {
    const run = steps("npm").map((s) => s.run);
    const at = run.indexOf("node scripts/release-manifest.mjs");
    expect(at).toBeGreaterThan(run.indexOf("npm ci --no-audit --no-fund"));
    expect(run[at + 1]).toBe("npm publish --provenance --access public");
    // The runner's own GITHUB_SERVER_URL and GITHUB_REPOSITORY: nothing in the workflow overrides them.
    expect(JSON.stringify(workflow)).not.toMatch(/GITHUB_(REPOSITORY|SERVER_URL)"?:/);

    const script = fileURLToPath(new URL("../scripts/release-manifest.mjs", import.meta.url));
    const manifest = join(tempDir("release"), "package.json");
    copyFileSync(fileURLToPath(new URL("../package.json", import.meta.url)), manifest);
    const before = JSON.parse(readFileSync(manifest, "utf8"));
    const env = { ...process.env, GITHUB_SERVER_URL: "https://github.com", GITHUB_REPOSITORY: "acme/chat-emulator" };
    expect(execFileSync(process.execPath, [script, manifest], { env, encoding: "utf8" })).toBe("package.json: repository, homepage and bugs name https://github.com/acme/chat-emulator\n");
    const after = JSON.parse(readFileSync(manifest, "utf8"));
    expect(after).toEqual({
      ...before,
      repository: { type: "git", url: "git+https://github.com/acme/chat-emulator.git" },
      homepage: "https://github.com/acme/chat-emulator#readme",
      bugs: { url: "https://github.com/acme/chat-emulator/issues" },
    });
    const outside = spawnSync(process.execPath, [script, manifest], { env: { ...process.env, GITHUB_REPOSITORY: "" }, encoding: "utf8" });
    expect([outside.status, outside.stderr]).toEqual([2, expect.stringContaining("GITHUB_REPOSITORY must be owner/name")]);
  });
});

describe("the Node versions CI runs", () => {
  // package.json `engines` names the supported majors; the CI workflow and .ci/run test each of them.
  const engines = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).engines.node as string;
  const majors = [...engines.matchAll(/(?:\^|>=)(\d+)/g)].map((m) => m[1]);

  it("are the majors package.json supports, in the CI workflow's matrix and in .ci/run", () => {
    expect(majors).toEqual(["20", "22", "24"]);
    const ci = parse(readFileSync(new URL("../.github/workflows/ci.yml", import.meta.url), "utf8"));
    expect(ci.jobs.test.strategy.matrix.node).toEqual(majors);
    expect(ci.jobs.test.steps.map((s: { run?: string }) => s.run).filter(Boolean)).toEqual(["npm ci --no-audit --no-fund", "npm test"]);
    const script = readFileSync(new URL("../.ci/run", import.meta.url), "utf8");
    expect(/^for major in ([\d ]+); do$/m.exec(script)?.[1].split(" ")).toEqual(majors);
    for (const file of /^REPRESENTATIVE=\(([^)]*)\)/m.exec(script)![1].trim().split(/\s+/)) expect(existsSync(new URL(`../${file}`, import.meta.url)), file).toBe(true);
  });
});
