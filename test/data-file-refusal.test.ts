import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PersistenceError, SeedError, startEmulator } from "../src/index.js";
import { REST_KEY } from "./helpers.js";
import { runCli, startClisPerTest } from "./cli.helpers.js";
import { BAD_SEEDS, SEED_FILE } from "./seed-cases.js";
import { tempDir } from "./tmp.helpers.js";

/** --data only ever writes a file that is ours (issue 35, item 1). */

const start = startClisPerTest();

const PACKAGE = readFileSync(new URL("../package.json", import.meta.url), "utf8");
const SEED = JSON.stringify(SEED_FILE);

/** `--data FILE` refused at start: exit code 2, one line naming the file, the file unchanged. */
async function refusedByCli(file: string, reason: string | RegExp): Promise<void> {
  const before = readFileSync(file);
  const r = await runCli(["--data", file, "--port", "0"]);
  expect(r.code).toBe(2);
  expect(r.stderr.trim().split("\n")).toHaveLength(1);
  expect(r.stderr).toContain(file);
  expect(r.stderr).toMatch(reason);
  expect(readFileSync(file).equals(before)).toBe(true);
}

describe("--data refuses a file that is not a state file, and leaves it as it was", () => {
  it("any other JSON (a package.json)", async () => {
    const file = join(tempDir("pkg"), "x.json");
    writeFileSync(file, PACKAGE);
    await refusedByCli(file, /is not a chat-emulator state file.*left untouched/);
    await expect(startEmulator({ data: file, quiet: true })).rejects.toBeInstanceOf(PersistenceError);
  });

  it("a seed file, with or without its format, with a hint at --seed and --import", async () => {
    const dir = tempDir("seed");
    const file = join(dir, "my-seed.json");
    writeFileSync(file, SEED);
    await refusedByCli(file, "this is a seed file: did you mean --seed or --import?");
    const bare = join(dir, "bare-seed.json");
    writeFileSync(bare, JSON.stringify({ apps: [] }));
    await expect(startEmulator({ data: bare, quiet: true })).rejects.toThrow("this is a seed file: did you mean --seed or --import?");
    expect(readFileSync(bare, "utf8")).toBe(JSON.stringify({ apps: [] }));
  });

  it("text that is not JSON, and JSON that is not an object", async () => {
    const dir = tempDir("bad");
    const broken = join(dir, "broken.json");
    writeFileSync(broken, '{"format":"chat-emulator/state@1","apps":[');
    await refusedByCli(broken, /is not valid JSON/);
    const list = join(dir, "list.json");
    writeFileSync(list, "[1,2,3]");
    await expect(startEmulator({ data: list, quiet: true })).rejects.toThrow(/list\.json: is not a chat-emulator state file/);
    expect(readFileSync(list, "utf8")).toBe("[1,2,3]");
  });

  it("a path that cannot be made (/proc/nope/state.json) at once, with exit code 2", async () => {
    const r = await runCli(["--data", "/proc/nope/state.json", "--port", "0"], {}, 5000);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("/proc/nope/state.json: cannot be written");
  });
});

describe("--data writes nothing until there is something to save", () => {
  it("a missing file is not created, an empty one stays empty, by a run without changes", async () => {
    const dir = tempDir("quiet");
    const missing = join(dir, "new.json");
    const empty = join(dir, "empty.json");
    writeFileSync(empty, "");
    for (const file of [missing, empty]) {
      const cli = await start(["--data", file]);
      expect((await fetch(`${cli.url}/_emulator/health`)).status).toBe(200); // a read is no change
      expect(await cli.stop("SIGINT")).toBe(0);
    }
    expect(existsSync(missing)).toBe(false);
    expect(readFileSync(empty, "utf8")).toBe("");
  });

  it("a state file is loaded and not written back until the state changes", async () => {
    const file = join(tempDir("state"), "state.json");
    const first = await startEmulator({ data: file, quiet: true });
    const created = await fetch(`${first.url}/v3/users`, {
      method: "POST",
      headers: { apikey: REST_KEY, "content-type": "application/json" },
      body: JSON.stringify({ uid: "kept", name: "Kept" }),
    });
    expect(created.status).toBe(200);
    await first.close();
    const saved = readFileSync(file, "utf8");
    const written = statSync(file).mtimeMs;
    const second = await startEmulator({ data: file, quiet: true });
    expect((await (await fetch(`${second.url}/v3/users/kept`, { headers: { apikey: REST_KEY } })).json()).data.uid).toBe("kept");
    await second.close();
    expect([readFileSync(file, "utf8") === saved, statSync(file).mtimeMs]).toEqual([true, written]);
  });
});

describe("--seed refuses JSON that is not a seed", () => {
  it("an object without apps, with exit code 2 and one line", async () => {
    const file = join(tempDir("hello"), "hello.json");
    writeFileSync(file, JSON.stringify(BAD_SEEDS.noApps.doc));
    await expect(startEmulator({ seed: file, quiet: true })).rejects.toBeInstanceOf(SeedError);
    const r = await runCli(["--seed", file, "--port", "0"]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain(`${file}: ${BAD_SEEDS.noApps.error}`);
  });
});
