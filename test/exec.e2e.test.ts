import type { ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { selfSignedCertificate } from "../src/tls.js";
import { runCli } from "./cli.helpers.js";
import { APP_ID, AUTH_KEY, REST_KEY } from "./helpers.js";
import { tempDir } from "./tmp.helpers.js";

/** `chat-emulator exec ...` to completion. */
function exec(args: string[], onStdout?: (out: string, child: ChildProcess) => void, env: Record<string, string> = {}) {
  return runCli(["exec", ...args], env, 15_000, onStdout);
}

/** A node program for the command line: `node -e <code>`. */
const node = (code: string) => [process.execPath, "-e", code];

describe("chat-emulator exec", () => {
  it("runs the command against a started emulator with its addresses and keys, then stops it and returns the command's exit code", async () => {
    const data = join(tempDir("exec"), "state.json");
    const program = `
      const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith("CHAT_EMULATOR_")));
      const r = await fetch(env.CHAT_EMULATOR_BASE_URL + "/users", {
        method: "POST",
        headers: { apikey: env.CHAT_EMULATOR_API_KEY, "content-type": "application/json" },
        body: JSON.stringify({ uid: "from-exec", name: "From exec" }),
      });
      console.log(JSON.stringify({ env, status: r.status }));
      process.exit(7);`;
    const r = await exec(["--port", "0", "--data", data, "--", ...node(`(async () => { ${program} })()`)]);
    expect(r.code).toBe(7);
    // stdout belongs to the command: the banner and request log went to stderr.
    const { env, status } = JSON.parse(r.stdout);
    expect(status).toBe(200);
    expect(env).toMatchObject({
      CHAT_EMULATOR_URL: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      CHAT_EMULATOR_APP_ID: APP_ID,
      CHAT_EMULATOR_REGION: "us",
      CHAT_EMULATOR_API_KEY: REST_KEY,
      CHAT_EMULATOR_AUTH_KEY: AUTH_KEY,
    });
    expect(env.CHAT_EMULATOR_BASE_URL).toBe(`${env.CHAT_EMULATOR_URL}/${APP_ID}.api-us/v3`);
    expect(r.stderr).toContain(`is listening on ${env.CHAT_EMULATOR_URL}`);
    expect(r.stderr).toMatch(new RegExp(`POST +${APP_ID} /v3/users 200`));
    // Stopped, and --data flushed before exiting.
    expect(JSON.parse(readFileSync(data, "utf8")).apps[0].users.map((u: { uid: string }) => u.uid)).toContain("from-exec");
    await expect(fetch(`${env.CHAT_EMULATOR_URL}/_emulator/health`)).rejects.toThrow();
  });

  it("exits 0 when the command succeeds; --quiet silences the banner and the request log", async () => {
    const program = "fetch(process.env.CHAT_EMULATOR_URL + '/v3/users').then((r) => console.log(r.status))";
    const r = await exec(["--port", "0", "--quiet", "--", ...node(program)]);
    expect(r).toEqual({ code: 0, stdout: "401\n", stderr: "" });
  });

  it("with --https, makes the command trust the certificate through NODE_EXTRA_CA_CERTS, keeping one it already had", async () => {
    const own = join(tempDir("exec"), "corporate-ca.pem");
    const ownCert = selfSignedCertificate(["corporate.example"]).cert;
    writeFileSync(own, ownCert);
    const program = `const fs = require("node:fs");
      fetch(process.env.CHAT_EMULATOR_URL + "/_emulator/health").then(async (r) => console.log(JSON.stringify({
        status: r.status, ca: process.env.CHAT_EMULATOR_CA_CERT, bundle: fs.readFileSync(process.env.NODE_EXTRA_CA_CERTS, "utf8") })));`;
    const r = await exec(["--port", "0", "--https", "--quiet", "--", ...node(program)], undefined, { NODE_EXTRA_CA_CERTS: own });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.status).toBe(200);
    expect(out.bundle).toContain(ownCert.trim());
    expect(out.ca).toMatch(/tls[\\/]ca\.pem$/);
    expect(out.bundle.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
  });

  it("passes SIGTERM on to the command and exits with its code", async () => {
    const program = `process.on("SIGTERM", () => { console.log("command got SIGTERM"); process.exit(0); });
      console.log("ready"); setInterval(() => {}, 1000);`;
    let sent = false;
    const r = await exec(["--port", "0", "--", ...node(program)], (out, child) => {
      if (!sent && out.includes("ready")) {
        sent = true;
        child.kill("SIGTERM");
      }
    });
    expect(r.stdout).toContain("command got SIGTERM");
    expect(r.code).toBe(0);
  });

  it("exits 128 + the signal number when the command is killed by a signal", async () => {
    const r = await exec(["--port", "0", "--quiet", "--", ...node("process.kill(process.pid, 'SIGKILL')")]);
    expect(r.code).toBe(128 + 9);
  });

  it("exits 127 for a command that does not exist, and 2 without a command or with bad flags", async () => {
    const missing = await exec(["--port", "0", "--quiet", "--", "no-such-command-chat-emulator"]);
    expect(missing.code).toBe(127);
    expect(missing.stderr).toContain("cannot run no-such-command-chat-emulator: command not found");
    for (const args of [[], ["--port", "0"], ["--port", "0", "--"], ["--port", "nope", "--", "true"]]) {
      const r = await runCli(["exec", ...args]);
      expect(r.code, args.join(" ")).toBe(2);
    }
  });

  it("is described in --help", async () => {
    const help = await runCli(["--help"]);
    expect(help.stdout).toContain("chat-emulator [options] exec [options] -- <command...>");
    expect((await runCli(["exec", "--help"])).code).toBe(0);
  });
});
