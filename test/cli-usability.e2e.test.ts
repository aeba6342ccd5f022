import { describe, expect, it } from "vitest";
import { DEFAULT_MANAGEMENT_KEY, DEFAULT_MANAGEMENT_SECRET } from "../src/index.js";
import { runCli, startClisPerTest } from "./cli.helpers.js";

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
