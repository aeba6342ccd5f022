import { existsSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, startClisPerTest } from "./cli.helpers.js";
import { STATE_SCHEMA_URL } from "../src/store/schemas.js";
import { APP_ID, REST_KEY } from "./helpers.js";
import { tempDir } from "./tmp.helpers.js";

/** The CLI's state files end to end: `demo`, `--import`, `--demo`, `--export-on-exit` and `export`. */

const start = startClisPerTest();
const SMALL = ["--users", "30", "--groups", "5", "--messages", "800", "--until", "2026-01-01"];

async function post(url: string, path: string, body: unknown, key = REST_KEY) {
  return fetch(`${url}${path}`, { method: "POST", headers: { apikey: key, "content-type": "application/json" }, body: JSON.stringify(body) });
}

describe("chat-emulator demo, --import and --export-on-exit", () => {
  it("writes a demo file the same way twice, starts from it with --import without writing to it, and exports on a clean stop", async () => {
    const dir = tempDir("demo");
    const [file, again, exported] = ["demo.json", "new/again.json", "new/folder/exported.json"].map((f) => join(dir, f));
    const made = await runCli(["demo", ...SMALL, "--seed", "3", "--out", file]);
    expect(made.code).toBe(0);
    expect(made.stderr).toMatch(/demo app [0-9a-f]{16} \(30 users, 5 groups, 800 messages, \d+ reactions, \d+ calls\) written to .*demo\.json/);
    expect(made.stderr).toContain(`chat-emulator --import ${file}`);
    expect((await runCli(["demo", ...SMALL, "--seed", "3", "--out", again])).code).toBe(0);
    expect(readFileSync(again, "utf8")).toBe(readFileSync(file, "utf8"));
    const doc = JSON.parse(readFileSync(file, "utf8"));
    const [{ app, apiKeys }] = doc.apps;
    const before = statSync(file).mtimeMs;

    const cli = await start(["--import", file, "--export-on-exit", exported]);
    expect(cli.stdout()).toMatch(/Imported from +.*demo\.json +\(read only\)/);
    expect(cli.stdout()).toMatch(/Export on exit +.*exported\.json/);
    const base = `${cli.url}/${app.appId}.api-us/v3`;
    expect((await post(base, "/users", { uid: "newcomer", name: "New Comer" }, apiKeys[0].apiKey)).status).toBe(200);
    // reset goes back to the imported state
    await fetch(`${cli.url}/_emulator/reset`, { method: "POST" });
    expect((await fetch(`${base}/users/newcomer`, { headers: { apikey: apiKeys[0].apiKey } })).status).toBe(404);
    expect((await post(base, "/users", { uid: "kept", name: "Kept" }, apiKeys[0].apiKey)).status).toBe(200);
    expect(await cli.stop("SIGTERM")).toBe(0);

    expect(statSync(file).mtimeMs).toBe(before);
    const out = JSON.parse(readFileSync(exported, "utf8"));
    expect([out.$schema, out.format]).toEqual([STATE_SCHEMA_URL, "chat-emulator/state@1"]);
    expect(out.apps[0].users.map((u: { uid: string }) => u.uid)).toContain("kept");
    expect(out.apps[0].messages).toHaveLength(800);
  });

  it("starts with generated demo data (--demo), and refuses --import or --demo with --seed", async () => {
    const cli = await start(["--demo"]);
    expect(cli.stdout()).toContain("Demo data");
    const health = await (await fetch(`${cli.url}/_emulator/health`)).json();
    expect(health.apps[0].name).toBe("Demo App");
    const users = await fetch(`${cli.url}/v3/users?perPage=1`, { headers: { apikey: /REST API Key\s+(\w+)/.exec(cli.stdout())![1] } });
    expect((await users.json()).meta.pagination.total).toBe(200);

    const both = await runCli(["--port", "0", "--seed", "none", "--import", "x.json"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--import <file>.* cannot be used with option '--seed/);
    const demo = await runCli(["--port", "0", "--demo", "--seed", "none"]);
    expect(demo.code).toBe(2);
    const missing = await runCli(["--port", "0", "--import", "/nonexistent/state.json"]);
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringContaining("cannot be read")]);
    const bad = await runCli(["demo", "--users", "1"]);
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining("--users must be a whole number from 2")]);
  });

  it("runs a CI command from a committed state with exec --import, leaving the file as it was, and exports what the command did", async () => {
    const dir = tempDir("exec");
    const [file, after] = [join(dir, "committed.json"), join(dir, "after.json")];
    expect((await runCli(["demo", ...SMALL, "--out", file])).code).toBe(0);
    const before = readFileSync(file, "utf8");
    expect(JSON.parse(before).$schema).toBe(STATE_SCHEMA_URL);
    const [{ apiKeys }] = JSON.parse(before).apps;
    const command = `fetch(process.env.CHAT_EMULATOR_BASE_URL + "/users", { method: "POST", headers: { apikey: process.env.CHAT_EMULATOR_API_KEY, "content-type": "application/json" }, body: JSON.stringify({ uid: "from-ci", name: "From CI" }) }).then((r) => process.exit(r.status === 200 && process.env.CHAT_EMULATOR_API_KEY === "${apiKeys[0].apiKey}" ? 0 : 1))`;
    const ci = await runCli(["exec", "--port", "0", "--quiet", "--import", file, "--export-on-exit", after, "--", process.execPath, "-e", command], {}, 20_000);
    expect([ci.code, ci.stderr]).toEqual([0, ""]);
    expect(readFileSync(file, "utf8")).toBe(before);
    const exported = JSON.parse(readFileSync(after, "utf8"));
    expect(exported.apps[0].users.map((u: { uid: string }) => u.uid)).toContain("from-ci");
  });

  it("refuses at start, with exit 2, a --data that is the imported file and an --export-on-exit it cannot write", async () => {
    const dir = tempDir("refused");
    const file = join(dir, "state.json");
    expect((await runCli(["demo", ...SMALL, "--out", file])).code).toBe(0);
    const before = readFileSync(file, "utf8");
    const same = await runCli(["--port", "0", "--import", file, "--data", join(dir, ".", "state.json")]);
    expect([same.code, same.stderr]).toEqual([2, "chat-emulator: --import and --data name the same file: --import is only read and --data is written; give --data another file.\n"]);
    symlinkSync(file, join(dir, "link.json"));
    expect((await runCli(["--port", "0", "--import", join(dir, "link.json"), "--data", file])).code).toBe(2);
    expect(readFileSync(file, "utf8")).toBe(before);

    const unwritable = join(file, "out.json"); // a folder that is a file
    const cannot = expect.stringMatching(/^chat-emulator: (demo: |export: )?.*state\.json\/out\.json: cannot be written \(.+\)\.\n$/);
    const exportTo = await runCli(["--port", "0", "--export-on-exit", unwritable]);
    expect([exportTo.code, exportTo.stderr]).toEqual([2, cannot]);
    const demoTo = await runCli(["demo", ...SMALL, "--out", unwritable]);
    expect([demoTo.code, demoTo.stderr]).toEqual([2, cannot]);
    // before it asks the emulator (there is none at this address)
    const saveTo = await runCli(["export", "--url", "http://127.0.0.1:9", "--out", unwritable]);
    expect([saveTo.code, saveTo.stderr]).toEqual([2, cannot]);
  });
});

describe("chat-emulator export", () => {
  it("saves a running emulator's state (with its control token) to a file that --import loads", async () => {
    const dir = tempDir("export");
    const file = join(dir, "saved.json");
    const cli = await start(["--control-token", "tok"]);
    expect((await post(cli.url, "/v3/users", { uid: "exported-user", name: "Exported" })).status).toBe(200);

    const refused = await runCli(["export", "--url", cli.url, "--out", file]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/answered 401/);
    const r = await runCli(["export", "--out", file], { CHAT_EMULATOR_URL: cli.url, CHAT_EMULATOR_CONTROL_TOKEN: "tok" });
    expect([r.code, r.stderr]).toEqual([0, `chat-emulator: state of ${cli.url} saved to ${file}\n`]);
    expect(JSON.parse(readFileSync(file, "utf8")).$schema).toBe(STATE_SCHEMA_URL);
    const toStdout = await runCli(["export", "--url", cli.url, "--control-token", "tok"]);
    expect(JSON.parse(toStdout.stdout).apps[0].app.appId).toBe(APP_ID);

    const again = await start(["--import", file]);
    const user = await fetch(`${again.url}/v3/users/exported-user`, { headers: { apikey: REST_KEY } });
    expect(user.status).toBe(200);

    const closed = again.url;
    await again.stop();
    const unreachable = await runCli(["export", "--url", closed, "--out", join(dir, "none.json")]);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain(`cannot reach ${closed} (ECONNREFUSED)`);
    expect(existsSync(join(dir, "none.json"))).toBe(false);
    const notUrl = await runCli(["export", "--url", "127.0.0.1:4780"]);
    expect([notUrl.code, notUrl.stderr]).toEqual([2, expect.stringContaining("--url must be an http:// or https:// address")]);
    expect(notUrl.stderr.trim().split("\n")).toHaveLength(1);
  });
});
