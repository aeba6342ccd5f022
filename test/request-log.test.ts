import { afterEach, describe, expect, it, vi } from "vitest";
import { startEmulator, type EmulatorOptions, type RunningEmulator } from "../src/index.js";
import { APP_ID, MGMT, REST_KEY } from "./helpers.js";

let e: RunningEmulator | undefined;
afterEach(async () => {
  await e?.close();
  e = undefined;
});

/** Starts an emulator whose request log is collected; `lines(n)` waits for n lines (a line is written once a response is done). */
async function logged(options: EmulatorOptions = {}) {
  const written: string[] = [];
  e = await startEmulator({ ...options, requestLog: (l) => written.push(l) });
  const lines = (n: number) =>
    vi.waitFor(() => {
      if (written.length < n) throw new Error(`${written.length} of ${n} lines`);
      return written;
    });
  return { e, lines };
}

describe("request log", () => {
  it("writes one readable line per request: method, app, path, status, ms", async () => {
    const { e, lines: logLines } = await logged();
    await fetch(`${e.url}/v3/users/superhero1`, { headers: { apikey: REST_KEY } });
    await fetch(`${e.url}/${APP_ID}.api-us/v3/users?perPage=2`, { headers: { apikey: "nope" } });
    await fetch(`${e.url}/apimgmt/apps`, { headers: MGMT });
    await fetch(`${e.url}/_emulator/reset`, { method: "POST" });
    const lines = await logLines(4);
    expect(lines).toHaveLength(4);
    const expected = [
      new RegExp(`^\\d\\d:\\d\\d:\\d\\d GET +${APP_ID} /v3/users/superhero1 200 \\d+(\\.\\d)?ms$`),
      new RegExp(`GET +${APP_ID} /v3/users\\?perPage=2 401 `),
      /GET +apimgmt \/apps 200 /,
      /POST +- \/_emulator\/reset 200 /,
    ];
    for (const re of expected) expect(lines.some((l) => re.test(l)), `${re} in ${lines.join("\n")}`).toBe(true);
  });

  it("writes JSON lines with --log-format json, and leaves out successful health probes", async () => {
    const { e, lines: logLines } = await logged({ logFormat: "json" });
    await fetch(`${e.url}/_emulator/health`);
    const created = await fetch(`${e.url}/v3/users`, {
      method: "POST",
      headers: { apikey: REST_KEY, "content-type": "application/json" },
      body: JSON.stringify({ uid: "alice", name: "Alice" }),
    });
    expect(created.status).toBe(200);
    await fetch(`${e.url}/_emulator/health?full`);
    const lines = (await logLines(2)).map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    expect(lines).toEqual(expect.arrayContaining([
      { time: expect.any(String), method: "POST", app: APP_ID, path: "/v3/users", status: 200, ms: expect.any(Number) },
      { time: expect.any(String), method: "GET", app: null, path: "/_emulator/health?full", status: 200, ms: expect.any(Number) },
    ]));
    expect(Date.parse(lines[0].time)).not.toBeNaN();
  });

  it("logs nothing without a requestLog sink", async () => {
    const writes: string[] = [];
    e = await startEmulator({ log: (l) => writes.push(l) });
    await fetch(`${e.url}/v3/users`, { headers: { apikey: REST_KEY } });
    expect(writes).toEqual([]);
  });
});
