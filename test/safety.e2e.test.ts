import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { runCli, startClisPerTest } from "./cli.helpers.js";

const start = startClisPerTest();

/** GET with a chosen Host header (fetch drops it). */
function getAs(url: string, path: string, host: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, url), { headers: { host } }, (res) => {
      let text = "";
      res.on("data", (d: Buffer) => (text += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("--allowed-host", () => {
  it("adds host names for the control API, from the flag (repeatable) or CHAT_EMULATOR_ALLOWED_HOSTS", async () => {
    const flag = await start(["--allowed-host", "emu.ci.internal", "--allowed-host", "other.example"]);
    expect((await getAs(flag.url, "/_emulator/apps", "emu.ci.internal:4780")).status).toBe(200);
    expect((await getAs(flag.url, "/_emulator/apps", "other.example")).status).toBe(200);
    const refused = await getAs(flag.url, "/_emulator/apps", "evil.example");
    expect([refused.status, refused.body.error.code]).toEqual([403, "ERR_HOST_NOT_ALLOWED"]);
    const env = await start([], { CHAT_EMULATOR_ALLOWED_HOSTS: "a.example, b.example" });
    expect((await getAs(env.url, "/_emulator/apps", "b.example")).status).toBe(200);
    expect((await getAs(env.url, "/_emulator/apps", "c.example")).status).toBe(403);
  });

  it("refuses a value that is not a host name with exit code 2", async () => {
    const r = await runCli(["--allowed-host", "http://x/"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--allowed-host must be a host name");
  });
});
