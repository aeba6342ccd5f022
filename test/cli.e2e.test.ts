import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { APP_ID, AUTH_KEY, REST_KEY } from "./helpers.js";
import { runCli, startClisPerTest } from "./cli.helpers.js";
import { halfClosed, wire } from "./raw-http.helpers.js";
import { NAMELESS_USER_STATE } from "./seed-cases.js";

const start = startClisPerTest();

const json = { "content-type": "application/json", apikey: REST_KEY };

describe("CLI", () => {
  it("prints the addresses, default app and keys, and serves the API", async () => {
    const cli = await start([]);
    const banner = cli.stdout();
    for (const s of [`${cli.url}/v3`, `${cli.url}/${APP_ID}.api-us/v3`, APP_ID, REST_KEY, AUTH_KEY, "chat-emulator-management-key", "chat-emulator-management-secret", `${cli.url}/apimgmt`, `Inspector           ${cli.url}/_emulator/ui`])
      expect(banner).toContain(s);
    const health = await fetch(`${cli.url}/_emulator/health`);
    expect(health.status).toBe(200);
    const user = await fetch(`${cli.url}/${APP_ID}.api-us/v3/users/superhero1`, { headers: json });
    expect((await user.json()).data.name).toBe("Iron Man");
  });

  it("keeps state across a restart with --data, and flushes on SIGTERM with exit code 0", async () => {
    const dir = mkdtempSync(join(tmpdir(), "chat-emulator-"));
    const data = join(dir, "state.json");
    const first = await start(["--data", data]);
    const created = await fetch(`${first.url}/v3/users`, { method: "POST", headers: json, body: JSON.stringify({ uid: "persisted", name: "Kept" }) });
    expect(created.status).toBe(200);
    expect(await first.stop("SIGTERM")).toBe(0);
    expect(JSON.parse(readFileSync(data, "utf8")).apps[0].users.map((u: any) => u.uid)).toContain("persisted");

    const second = await start(["--data", data]);
    const r = await fetch(`${second.url}/v3/users/persisted`, { headers: json });
    expect(r.status).toBe(200);
    expect((await r.json()).data.name).toBe("Kept");
  });

  it("answers a client that closes its side with its requests (--data, behind a latency rule), then closes", async () => {
    const data = join(mkdtempSync(join(tmpdir(), "chat-emulator-")), "state.json");
    const cli = await start(["--data", data]);
    const rule = { match: { path: "/v3/users/*" }, effect: { latencyMs: 20 } };
    expect((await fetch(`${cli.url}/_emulator/rules`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(rule) })).status).toBe(201);
    const got = await halfClosed(cli.url, wire("PUT", "/v3/users/superhero2", { apikey: REST_KEY }, { name: "Piped" }) + wire("GET", "/v3/users/superhero2", { apikey: REST_KEY }));
    expect(got.answers.map((a) => [a.status, JSON.parse(a.body).data.name])).toEqual([
      [200, "Piped"],
      [200, "Piped"],
    ]);
    expect(cli.stdout()).toMatch(/PUT +\S+ \/v3\/users\/superhero2 200 \d/);
  });

  it("creates a missing data file at the first change, not before", async () => {
    const data = join(mkdtempSync(join(tmpdir(), "chat-emulator-")), "new.json");
    const cli = await start(["--data", data]);
    expect(existsSync(data)).toBe(false);
    expect((await fetch(`${cli.url}/v3/users`, { method: "POST", headers: json, body: JSON.stringify({ uid: "first", name: "First" }) })).status).toBe(200);
    expect(JSON.parse(readFileSync(data, "utf8")).format).toBe("chat-emulator/state@1");
  });

  it("refuses a corrupt data file with one line and exit code 2, leaving it untouched", async () => {
    const data = join(mkdtempSync(join(tmpdir(), "chat-emulator-")), "corrupt.json");
    writeFileSync(data, '{"apps": [');
    const r = await runCli(["--port", "0", "--data", data]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/^chat-emulator: .*corrupt\.json: is not valid JSON/);
    expect(readFileSync(data, "utf8")).toBe('{"apps": [');

    writeFileSync(data, JSON.stringify(NAMELESS_USER_STATE.doc));
    const invalid = await runCli(["--port", "0", "--data", data]);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain(NAMELESS_USER_STATE.error);
  });

  it("refuses bad flags and bad seed files with exit code 2", async () => {
    expect((await runCli(["--port", "99999"])).code).toBe(2);
    expect((await runCli(["--no-such-flag"])).code).toBe(2);
    const seed = await runCli(["--port", "0", "--seed", "/nonexistent/seed.json"]);
    expect(seed.code).toBe(2);
    expect(seed.stderr).toContain("cannot be read");
  });

  it("prints --help and --version", async () => {
    const help = await runCli(["--help"]);
    expect(help.code).toBe(0);
    for (const flag of ["--port", "--host", "--data", "--seed", "--management-key", "--management-secret", "--quiet"])
      expect(help.stdout).toContain(flag);
    const version = await runCli(["--version"]);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("reads flags from CHAT_EMULATOR_* variables", async () => {
    const cli = await start([], { CHAT_EMULATOR_MANAGEMENT_KEY: "env-key", CHAT_EMULATOR_MANAGEMENT_SECRET: "env-secret", CHAT_EMULATOR_SEED: "none" });
    const r = await fetch(`${cli.url}/apimgmt/apps`, { headers: { key: "env-key", secret: "env-secret" } });
    expect(r.status).toBe(200);
    expect((await r.json()).data).toEqual([]);
  });
});
