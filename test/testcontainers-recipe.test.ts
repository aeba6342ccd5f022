import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { emulator } from "./helpers.js";

/**
 * The Testcontainers recipe of docs/ci.md for Node. No Docker engine runs here, so the container is not started:
 * what the recipe relies on is checked against the image and the emulator instead (the port it exposes, the probe
 * it waits for, the banner line, the base URL it builds).
 */

const doc = readFileSync(new URL("../docs/ci.md", import.meta.url), "utf8");
const recipe = /<!-- tested: test\/testcontainers-recipe\.test\.ts -->\n```js\n([\s\S]*?)```/.exec(doc)![1];
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
});
