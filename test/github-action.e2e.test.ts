import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { tempDir } from "./tmp.helpers.js";

/**
 * The GitHub Action (action.yml, action/main.js and action/post.js), run as a runner runs it: the INPUT_* variables
 * and the GITHUB_ENV, GITHUB_OUTPUT and GITHUB_STATE files, with the local build as its `version`.
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

describe("the GitHub Action", () => {
  it("declares a node20 JavaScript action with main and post entries and the documented inputs", () => {
    const action = parse(readFileSync(join(ROOT, "action.yml"), "utf8"));
    expect(action.runs).toEqual({ using: "node20", main: "action/main.js", post: "action/post.js" });
    expect(Object.keys(action.inputs).sort()).toEqual(["data", "https", "port", "seed", "version"]);
  });

  it("starts the emulator, exports the exec variables and outputs, and the post step stops it (saving --data)", async () => {
    const dir = tempDir("action");
    const files = { GITHUB_ENV: join(dir, "env"), GITHUB_OUTPUT: join(dir, "output"), GITHUB_STATE: join(dir, "state") };
    for (const f of Object.values(files)) writeFileSync(f, "");
    const data = join(dir, "state.json");
    const env = { ...process.env, ...files, RUNNER_TEMP: dir, INPUT_VERSION: ROOT, INPUT_PORT: "0", INPUT_DATA: data, INPUT_HTTPS: "false", INPUT_SEED: "" };
    await run(process.execPath, [join(ROOT, "action/main.js")], { env, timeout: 60_000 });

    const exported = lines(files.GITHUB_ENV);
    expect(Object.keys(exported).sort()).toEqual([
      "CHAT_EMULATOR_API_KEY",
      "CHAT_EMULATOR_APP_ID",
      "CHAT_EMULATOR_AUTH_KEY",
      "CHAT_EMULATOR_BASE_URL",
      "CHAT_EMULATOR_MANAGEMENT_URL",
      "CHAT_EMULATOR_REGION",
      "CHAT_EMULATOR_URL",
    ]);
    expect(lines(files.GITHUB_OUTPUT)).toEqual({ url: exported.CHAT_EMULATOR_URL, "base-url": exported.CHAT_EMULATOR_BASE_URL, "app-id": "62c95aeb231ec058", "api-key": exported.CHAT_EMULATOR_API_KEY });
    const state = lines(files.GITHUB_STATE);
    const pid = Number(state.pid);
    try {
      expect((await fetch(`${exported.CHAT_EMULATOR_URL}/_emulator/health`)).status).toBe(200);
      const created = await fetch(`${exported.CHAT_EMULATOR_BASE_URL}/users`, {
        method: "POST",
        headers: { apikey: exported.CHAT_EMULATOR_API_KEY, "content-type": "application/json" },
        body: JSON.stringify({ uid: "from-ci", name: "From CI" }),
      });
      expect(created.status).toBe(200);

      const post = await run(process.execPath, [join(ROOT, "action/post.js")], { env: { ...process.env, STATE_pid: state.pid, STATE_log: state.log }, timeout: 20_000 });
      expect(alive(pid)).toBe(false);
      expect(post.stdout).toContain('"event":"listening"');
      expect(JSON.parse(readFileSync(data, "utf8")).apps[0].users.map((u: { uid: string }) => u.uid)).toContain("from-ci");
    } finally {
      if (alive(pid)) process.kill(pid, "SIGKILL");
    }
  });
});
