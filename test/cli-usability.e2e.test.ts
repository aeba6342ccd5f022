import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, vi } from "vitest";
import { DEFAULT_MANAGEMENT_KEY, DEFAULT_MANAGEMENT_SECRET } from "../src/index.js";
import { BIN, runCli, startClisPerTest } from "./cli.helpers.js";

/** What a new user meets first: `--help`, flags around `exec`, and opening the address in a browser. */

const start = startClisPerTest();

describe("CLI usability", () => {
  it("--help shows the default management key and secret, and every flag's environment variable", async () => {
    const help = await runCli(["--help"]);
    expect(help.code).toBe(0);
    const text = help.stdout.replace(/\s+/g, " ");
    expect(text).toContain(`default: "${DEFAULT_MANAGEMENT_KEY}"`);
    expect(text).toContain(`default: "${DEFAULT_MANAGEMENT_SECRET}"`);
    // Each option's entry runs from its flag to the next one's; all but --version and --help name a variable.
    const entries = help.stdout.split(/\n(?=\s+(?:-\w, )?--)/).filter((e) => /^\s+(-\w, )?--/.test(e));
    const settings = entries.filter((e) => !/--(version|help)\b/.test(e));
    expect(settings.length).toBeGreaterThan(15);
    for (const entry of settings) expect(entry.replace(/\s+/g, " ")).toMatch(/env: CHAT_EMULATOR_[A-Z_]+\)/);
    expect(help.stdout).toContain("chat-emulator demo");
    expect(help.stdout).toContain("chat-emulator export");
  });

  it("accepts the emulator's flags before `exec` as after it, and a flag's value spelled exec is not the word", async () => {
    const before = await runCli(["--port", "0", "--quiet", "exec", "--", process.execPath, "-e", "console.log(process.env.CHAT_EMULATOR_URL)"], {}, 15_000);
    expect(before.code).toBe(0);
    expect(before.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\n$/);
    expect(before.stderr).toBe("");
    const asValue = await runCli(["--port", "0", "--control-token", "exec", "-q", "exec", "--", process.execPath, "-e", "process.exit(3)"], {}, 15_000);
    expect(asValue.code).toBe(3);
    const noCommand = await runCli(["--port", "0", "exec"]);
    expect([noCommand.code, noCommand.stderr]).toEqual([2, expect.stringContaining("exec needs a command")]);
  });

  it("sends a browser opening / or /_emulator to the inspector; API clients keep their JSON answer", async () => {
    const cli = await start([]);
    for (const path of ["/", "/_emulator"]) {
      const browser = await fetch(`${cli.url}${path}`, { headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" }, redirect: "manual" });
      expect([browser.status, browser.headers.get("location")]).toEqual([302, "/_emulator/ui"]);
    }
    // API clients get JSON: the control API's index at /_emulator, not found at /.
    const index = await fetch(`${cli.url}/_emulator`, { headers: { accept: "application/json" } });
    expect([index.status, (await index.json()).endpoints.length > 10]).toEqual([200, true]);
    const root = await fetch(`${cli.url}/`, { headers: { accept: "application/json" } });
    expect([root.status, (await root.json()).error.code]).toEqual([404, "ERR_API_NOT_FOUND"]);
  });
});

describe("CLI guidance", () => {
  it("answers an unknown command with the command list and a did-you-mean", async () => {
    const start = await runCli(["start"]);
    expect(start.code).toBe(2);
    expect(start.stderr).toContain('unknown command "start". The emulator runs without a command');
    for (const name of ["exec", "demo", "export"]) expect(start.stderr).toContain(`chat-emulator ${name === "exec" ? "[options] exec" : name}`);
    const typo = await runCli(["exce", "--", "true"]);
    expect([typo.code, typo.stderr]).toEqual([2, expect.stringContaining('unknown command "exce". Did you mean exec?')]);
    const late = await runCli(["--port", "0", "demo"]);
    expect([late.code, late.stderr]).toEqual([2, expect.stringContaining("demo must come first")]);
    expect(start.stderr + typo.stderr).not.toContain("too many arguments");
  });

  it("`help` shows the help, which says where exec may stand", async () => {
    const help = await runCli(["help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("chat-emulator [options] exec [options] -- <command...>");
    expect(help.stdout).toContain("may stand before or after the word exec");
    const demoHelp = await runCli(["help", "demo"]);
    expect([demoHelp.code, demoHelp.stdout]).toEqual([0, expect.stringContaining("--random-seed")]);
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8") + readFileSync(new URL("../docs/cli.md", import.meta.url), "utf8");
    expect(readme).toContain("chat-emulator [options] exec [options] -- <command...>");
  });

  it("docs/cli.md's command block is the command list `help` prints", async () => {
    const help = (await runCli(["help"])).stdout;
    const listed = help.slice(help.indexOf("\n", help.indexOf("Commands")) + 1, help.indexOf("\n\n", help.indexOf("Commands")));
    const doc = readFileSync(new URL("../docs/cli.md", import.meta.url), "utf8");
    const block = /\nCommands \(.*\n\n<!-- illustrative -->\n```\n([^]*?)```/.exec(doc)?.[1];
    expect(block).toBe(`${listed}\n`);
  });

  it("names the nearest option for an unknown one, with its value or after =, and refuses help on no command", async () => {
    for (const args of [["--prot", "5703"], ["--prot=5703"]]) {
      const r = await runCli(args);
      expect(r.code).toBe(2);
      expect(r.stderr.trim()).toBe("chat-emulator: unknown option --prot. Did you mean --port? (chat-emulator --help lists the options.)");
    }
    const nonsense = await runCli(["help", "nonsense"]);
    expect([nonsense.code, nonsense.stdout]).toEqual([2, ""]);
    expect(nonsense.stderr.trim().split("\n")).toEqual([expect.stringContaining('help: there is no command "nonsense"; the commands are exec, demo, export, cert')]);
    const help = await runCli(["--help"]);
    expect(help.stdout.split("\n").filter((line) => line.length > 100)).toEqual([]);
  });

  // One fact, one page: the flag table lives in docs/cli.md, and holds exactly the flags and variables the CLI has.
  it("docs/cli.md's flag table names every flag and environment variable of --help, and no other", async () => {
    const help = (await runCli(["--help"])).stdout;
    const options = help.slice(help.indexOf("Options:"), help.indexOf("Commands"));
    const flags = (text: string) => new Set([...text.matchAll(/(?<![\w-])--[a-z][a-z-]+/g)].map((m) => m[0]));
    const envs = (text: string) => new Set([...text.matchAll(/CHAT_EMULATOR_[A-Z_]+/g)].map((m) => m[0]));
    const doc = readFileSync(new URL("../docs/cli.md", import.meta.url), "utf8");
    const table = doc
      .split("\n")
      .filter((line) => /^\| `-/.test(line))
      .map((line) => line.split(" | ").slice(0, 2).join(" | "))
      .join("\n");
    const optionFlags = new Set([...options.split("\n").map((l) => /^\s+(?:-\w, )?(--[a-z-]+)/.exec(l)?.[1]).filter((f): f is string => f !== undefined)]);
    expect([...flags(table)].sort()).toEqual([...optionFlags].sort());
    expect([...envs(table)].sort()).toEqual([...envs(options)].sort());
  });

  it("refuses exec without -- before the command, with the line it meant", async () => {
    const r = await runCli(["exec", "npm", "--version"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("exec needs -- before the command");
    expect(r.stderr).toContain("chat-emulator exec -- npm --version");
    const withFlags = await runCli(["--port", "0", "exec", "-q", "node", "-e", "1"]);
    expect([withFlags.code, withFlags.stderr]).toEqual([2, expect.stringContaining("chat-emulator exec --port 0 -q -- node -e 1")]);
  });

  it("says on stop what became of the state; under exec a state in memory goes without a word", async () => {
    const memory = await runCli(["--port", "0", "exec", "--", process.execPath, "-e", "0"], {}, 15_000);
    expect(memory.code).toBe(0);
    expect(memory.stderr).not.toContain("in memory and is gone");
    const cli0 = await start([]);
    expect(await cli0.stop("SIGINT")).toBe(0);
    await vi.waitFor(() => expect(cli0.stdout()).toContain("chat-emulator stopped; the state was in memory and is gone"), { timeout: 5000 });
    const dir = mkdtempSync(join(tmpdir(), "chat-emulator-stop-"));
    try {
      const data = join(dir, "state.json");
      const cli = await start(["--data", data]);
      expect(await cli.stop("SIGINT")).toBe(0);
      // The last output may arrive just after the exit.
      await vi.waitFor(() => expect(cli.stdout()).toContain(`chat-emulator stopped; the state was saved to ${data}.`), { timeout: 5000 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("answers plain HTTP on the --https port with a 400 that says to use https", async () => {
    const cli = await start(["--https"]);
    const res = await fetch(cli.url.replace("https:", "http:") + "/v3/users");
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ code: "ERR_HTTPS_REQUIRED", message: expect.stringContaining("use https://") });
  });

  it("can be loaded with require() as well as import", async () => {
    const dir = mkdtempSync(join(tmpdir(), "chat-emulator-require-"));
    try {
      mkdirSync(join(dir, "node_modules"));
      symlinkSync(fileURLToPath(new URL("..", import.meta.url)), join(dir, "node_modules", "chat-emulator"));
      const out = execFileSync(process.execPath, ["-e", 'console.log(typeof require("chat-emulator").startEmulator)'], { cwd: dir, encoding: "utf8" });
      expect(out.trim()).toBe("function");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("chat-emulator demo", () => {
  const small = ["--users", "3", "--groups", "1", "--messages", "20", "--until", "2026-01-01"];

  it("refuses to write to a terminal without --out; --out - writes there anyway", async () => {
    // `script` gives the command a terminal as stdout.
    const run = (args: string) => spawnSync("script", ["-qec", `${process.execPath} ${BIN} demo ${small.join(" ")} ${args}`, "/dev/null"], { encoding: "utf8", timeout: 20_000 });
    const refused = run("");
    expect(refused.status).toBe(2);
    expect(refused.stdout).toContain("give --out FILE");
    expect(refused.stdout).toContain("--out -");
    const forced = run("--out -");
    expect(forced.status).toBe(0);
    expect(forced.stdout).toContain('"apps"');
  });

  it("names its random seed --random-seed, and keeps --seed as the same thing", async () => {
    const a = await runCli(["demo", ...small, "--random-seed", "7"]);
    const b = await runCli(["demo", ...small, "--seed", "7"]);
    const c = await runCli(["demo", ...small, "--random-seed", "8"]);
    expect([a.code, b.code, c.code]).toEqual([0, 0, 0]);
    expect(a.stdout).toBe(b.stdout);
    expect(a.stdout).not.toBe(c.stdout);
    const help = await runCli(["demo", "--help"]);
    expect(help.stdout).toContain("--random-seed");
    expect(help.stdout).not.toMatch(/--seed\b/);
  });
});
