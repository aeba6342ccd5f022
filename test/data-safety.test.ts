import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { PersistenceError, startEmulator } from "../src/index.js";
import { REST_KEY } from "./helpers.js";
import { runCli, startClisPerTest } from "./cli.helpers.js";
import { tempDir } from "./tmp.helpers.js";

const start = startClisPerTest();

const until = async (check: () => boolean | Promise<boolean>, ms = 5000) => {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
};

const createUser = (url: string, uid: string) =>
  fetch(`${url}/v3/users`, { method: "POST", headers: { apikey: REST_KEY, "content-type": "application/json" }, body: JSON.stringify({ uid, name: uid }) });

describe("--data: a failed save is loud", () => {
  it("creates missing parent folders at start, and the file at the first change", async () => {
    const file = join(tempDir("folders"), "a", "b", "state.json");
    const e = await startEmulator({ data: file, quiet: true });
    await e.close();
    expect([existsSync(dirname(file)), existsSync(file)]).toEqual([true, false]);
    const again = await startEmulator({ data: file, quiet: true });
    expect((await createUser(again.url, "first")).status).toBe(200);
    await again.close();
    expect(JSON.parse(readFileSync(file, "utf8")).apps[0].users.some((u: { uid: string }) => u.uid === "first")).toBe(true);
  });

  it("refuses to start, exit code 2 and one line, when the file cannot be written", async () => {
    const dir = tempDir("unwritable");
    writeFileSync(join(dir, "plain-file"), "");
    await expect(startEmulator({ data: join(dir, "plain-file", "state.json"), quiet: true })).rejects.toBeInstanceOf(PersistenceError);
    const r = await runCli(["--data", join(dir, "plain-file", "state.json"), "--quiet"]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("cannot be written");
  });

  it("refuses the write, logs each failure even when quiet, answers health 503 degraded, retries, and recovers", async () => {
    const dir = join(tempDir("failing"), "data");
    const lines: string[] = [];
    const e = await startEmulator({ data: join(dir, "state.json"), quiet: true, log: (l) => lines.push(l) });
    try {
      rmSync(dir, { recursive: true });
      const refused = await createUser(e.url, "lost1");
      expect(refused.status).toBe(503);
      expect((await refused.json()).error).toMatchObject({ code: "ERR_STORAGE_UNAVAILABLE", message: expect.stringContaining("state.json cannot be written (ENOENT)") });
      expect((await fetch(`${e.url}/v3/users/lost1`, { headers: { apikey: REST_KEY } })).status).toBe(404);
      expect(lines[0]).toMatch(/^chat-emulator: error: could not save the data file .*state\.json: .*retrying/);
      const health = await fetch(`${e.url}/_emulator/health`);
      expect(health.status).toBe(503);
      const body = await health.json();
      expect(body).toMatchObject({ status: "degraded", error: { code: "ERR_EMULATOR_DEGRADED", source: "emulator" } });
      expect(body.reason).toContain("writes are refused");
      mkdirSync(dir);
      await until(async () => (await fetch(`${e.url}/_emulator/health`)).status === 200);
      expect(lines.at(-1)).toContain("writes are accepted again");
      expect((await createUser(e.url, "kept")).status).toBe(200);
    } finally {
      await e.close();
    }
  });

  it("the CLI exits non-zero when the final save at shutdown fails", async () => {
    const dir = join(tempDir("final"), "data");
    const cli = await start(["--data", join(dir, "state.json")]);
    rmSync(dir, { recursive: true });
    expect((await createUser(cli.url, "lost2")).status).toBe(503);
    await until(() => cli.stderr().includes("could not save the data file"));
    expect(await cli.stop("SIGTERM")).toBe(1);
  });
});

describe("--data: temporary files", () => {
  it("removes the temporary files a killed emulator left, and nothing else", async () => {
    const dir = tempDir("stale");
    const file = join(dir, "state.json");
    writeFileSync(join(dir, "state.json.4194999.tmp"), "{half"); // no such pid (above Linux's pid_max)
    writeFileSync(join(dir, `state.json.${process.pid}.tmp`), "{half");
    writeFileSync(join(dir, "state.json.backup"), "keep");
    writeFileSync(join(dir, "other.json.4194999.tmp"), "keep");
    const e = await startEmulator({ data: file, quiet: true });
    await e.close();
    expect(readdirSync(dir).sort()).toEqual(["other.json.4194999.tmp", "state.json.backup"]);
  });
});
