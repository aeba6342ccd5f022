import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

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
});
