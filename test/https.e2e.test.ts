import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { selfSignedCertificate } from "../src/tls.js";
import { runCli, startCli, type RunningCli } from "./cli.helpers.js";
import { APP_ID, REST_KEY } from "./helpers.js";
import { httpsGet } from "./tls.helpers.js";
import { tempDir } from "./tmp.helpers.js";

const HOSTS = fileURLToPath(new URL("./fixtures/hosts-cometchat-loopback.mjs", import.meta.url));

const running: RunningCli[] = [];
afterEach(async () => {
  // SIGTERM: a clean stop removes the generated certificate.
  await Promise.all(running.splice(0).map((r) => r.stop("SIGTERM")));
});
async function start(args: string[], env: Record<string, string> = {}) {
  const cli = await startCli(args, env);
  running.push(cli);
  return cli;
}

function certificateOf(cli: RunningCli): string {
  return /^ {2}Certificate +(\S+)$/m.exec(cli.stdout())![1];
}

describe("--https", () => {
  it("lets unmodified code that calls https://{appId}.api-{region}.cometchat.io reach the emulator (hosts entry + NODE_EXTRA_CA_CERTS)", async () => {
    const cli = await start(["--https"]);
    expect(cli.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const port = new URL(cli.url).port;
    // The user's code, as it would call the platform: only the port differs, since a test cannot bind 443.
    const code = `
      const res = await fetch("https://${APP_ID}.api-us.cometchat.io:${port}/v3/users/superhero1", { headers: { apikey: "${REST_KEY}" } });
      const mgmt = await fetch("https://apimgmt.cometchat.io:${port}/apps", { headers: { key: "chat-emulator-management-key", secret: "chat-emulator-management-secret" } });
      console.log(JSON.stringify({ status: res.status, name: (await res.json()).data.name, mgmt: mgmt.status }));`;
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", HOSTS, "--input-type=module", "-e", code], {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: certificateOf(cli) },
    });
    expect(JSON.parse(stdout)).toEqual({ status: 200, name: "Iron Man", mgmt: 200 });
  });

  it("serves the real host name through SNI and the Host header with the printed certificate", async () => {
    const cli = await start(["--https"]);
    const ca = readFileSync(certificateOf(cli), "utf8");
    const r = await httpsGet(Number(new URL(cli.url).port), `${APP_ID}.api-eu.cometchat.io`, "/v3/users", ca, { apikey: REST_KEY });
    // Host-label addressing read the app and region from the name: this app lives in us.
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe("AUTH_ERR_INVALID_APPID");
  });

  it("serves --cert and --key files, and refuses a bad pair with exit code 2", async () => {
    const dir = tempDir("https");
    const { cert, key } = selfSignedCertificate(["localhost", `${APP_ID}.api-us.example.test`]);
    writeFileSync(join(dir, "cert.pem"), cert);
    writeFileSync(join(dir, "key.pem"), key);
    const cli = await start(["--cert", join(dir, "cert.pem"), "--key", join(dir, "key.pem")]);
    expect(certificateOf(cli)).toBe(join(dir, "cert.pem"));
    const r = await httpsGet(Number(new URL(cli.url).port), `${APP_ID}.api-us.example.test`, "/v3/users/superhero2", cert, { apikey: REST_KEY });
    expect(r.body.data.name).toBe("Captain America");

    writeFileSync(join(dir, "other.pem"), selfSignedCertificate().key);
    const bad = await runCli(["--port", "0", "--cert", join(dir, "cert.pem"), "--key", join(dir, "other.pem")]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);
    expect(bad.stderr).toMatch(/^chat-emulator: --cert .* and --key .* are not a PEM certificate and its key/);
  });

  // Node's recursive mkdir spins on /proc instead of failing: the folder is made a level at a time.
  it("refuses a configuration folder where the local CA cannot be kept with exit code 2, at once", async () => {
    const r = await runCli(["--port", "0", "--https"], { CHAT_EMULATOR_CONFIG_DIR: "/proc/nope/x" }, 5_000);
    expect([r.code, r.stderr]).toEqual([2, expect.stringMatching(/^chat-emulator: the local certificate in \/proc\/nope\/x\/tls cannot be made or read \(ENOENT\)/)]);
  });
});

describe("one certificate a developer trusts once", () => {
  it("chat-emulator cert makes the local CA, prints its path and how to trust it; every --https start serves a certificate it signed", async () => {
    const config = tempDir("config");
    const env = { CHAT_EMULATOR_CONFIG_DIR: config };
    const printed = await runCli(["cert"], env);
    expect(printed.code).toBe(0);
    const ca = join(config, "tls", "ca.pem");
    expect(printed.stdout).toContain(`Local certificate authority (made now): ${ca}`);
    for (const where of ["Node.js", "macOS", "Debian, Ubuntu", "Windows"]) expect(printed.stdout).toContain(where);
    const json = await runCli(["cert", "--json"], env);
    expect(JSON.parse(json.stdout)).toMatchObject({ ca, created: { ca: false, server: false } });
    const caText = readFileSync(ca, "utf8");

    for (let i = 0; i < 2; i++) {
      const cli = await start(["--https"], env);
      expect(certificateOf(cli)).toBe(ca);
      const r = await httpsGet(Number(new URL(cli.url).port), `${APP_ID}.api-us.cometchat.io`, "/v3/users/superhero1", caText, { apikey: REST_KEY });
      expect(r.body.data.name).toBe("Iron Man");
      await cli.stop("SIGTERM");
    }
    expect(readFileSync(ca, "utf8")).toBe(caText);
  });
});

describe("request log", () => {
  it("prints one line per request on stdout, or JSON lines with --log-format json", async () => {
    const text = await start([]);
    await fetch(`${text.url}/v3/users/superhero1`, { headers: { apikey: REST_KEY } });
    await expect.poll(() => text.stdout()).toMatch(new RegExp(`\\n\\d\\d:\\d\\d:\\d\\d GET +${APP_ID} /v3/users/superhero1 200 [\\d.]+ms\\n`));

    const json = await start(["--log-format", "json"]);
    await fetch(`${json.url}/v3/users/nobody`, { headers: { apikey: REST_KEY } });
    await expect.poll(() => json.stdout().trim().split("\n").length).toBe(2);
    const [banner, line] = json.stdout().trim().split("\n").map((l) => JSON.parse(l));
    expect(banner).toMatchObject({ event: "listening", url: json.url, defaultApp: { appId: APP_ID, restApiKey: REST_KEY } });
    expect(line).toMatchObject({ method: "GET", app: APP_ID, path: "/v3/users/nobody", status: 404 });
    expect((await runCli(["--port", "0", "--log-format", "xml"])).code).toBe(2);
  });
});
