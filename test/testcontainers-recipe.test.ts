import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { emulator } from "./helpers.js";

/**
 * The Testcontainers recipes of docs/ci.md for Node (a published image; one built from the Dockerfile, reached
 * under network aliases). No Docker engine runs here, so the container is not started:
 * what the recipe relies on is checked against the image and the emulator instead (the port it exposes, the probe
 * it waits for, the banner line, the base URL it builds).
 */

const doc = readFileSync(new URL("../docs/ci.md", import.meta.url), "utf8");
const [recipe, built] = [...doc.matchAll(/<!-- tested: test\/testcontainers-recipe\.test\.ts -->\n```js\n([\s\S]*?)```/g)].map((m) => m[1]);
const dockerfile = readFileSync(new URL("../Dockerfile", import.meta.url), "utf8");

describe("the Testcontainers recipe", () => {
  it("exposes and maps the port the image exposes, and waits for the probe its health check uses", () => {
    const exposed = /^EXPOSE (\d+)$/m.exec(dockerfile)![1];
    expect(recipe).toContain(`.withExposedPorts(${exposed})`);
    expect(recipe).toContain(`getMappedPort(${exposed})`);
    expect(recipe).toContain(`Wait.forHttp("/_emulator/health", ${exposed}).forStatusCode(200)`);
    // The Python recipe waits for the banner's line.
    expect(doc).toContain('wait_for_logs(emulator, "is listening on")');
  });

  it("waits for a probe that answers 200 once ready, and builds a base URL that serves the Default App", async () => {
    const e = await emulator();
    expect((await e.get("/_emulator/health", { key: null })).status).toBe(200);
    const base = /`\$\{url\}(\/[^`]+)`/.exec(recipe)![1];
    expect((await e.get(`${base}/users/superhero1`)).body.data.uid).toBe("superhero1");
    expect((await e.post("/_emulator/reset", {}, { key: null })).status).toBe(200);
  });

  it("builds the image from the checkout's Dockerfile, and names its multi-label network alias as an allowed host", async () => {
    expect(built).toMatch(/GenericContainer\.fromDockerfile\("[^"]+"\)\.build\("chat-emulator:local"/);
    const exposed = /^EXPOSE (\d+)$/m.exec(dockerfile)![1];
    expect(built).toContain(`Wait.forHttp("/_emulator/health", ${exposed}).forStatusCode(200)`);
    const aliases = JSON.parse(`[${/\.withNetworkAliases\(([^)]*)\)/.exec(built)![1]}]`) as string[];
    const allowed = /CHAT_EMULATOR_ALLOWED_HOSTS: "([^"]+)"/.exec(built)![1].split(",");
    // Under the allowed alias (and a single-label one) the control API answers; under another dotted name it refuses.
    const e = await emulator({ allowedHosts: allowed });
    for (const alias of aliases) expect((await e.get(`http://${alias}:${exposed}/_emulator/apps`, { key: null })).status, alias).toBe(200);
    const refused = await e.get(`http://chat-emulator.other.internal:${exposed}/_emulator/apps`, { key: null });
    expect([refused.status, refused.body.error.code]).toEqual([403, "ERR_HOST_NOT_ALLOWED"]);
    const unnamed = await emulator();
    expect((await unnamed.get(`http://${aliases.find((a) => a.includes("."))}:${exposed}/_emulator/apps`, { key: null })).status).toBe(403);
  });
});
