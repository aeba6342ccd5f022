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

describe("request log of errors and address mistakes", () => {
  it("carries the error code of an error answer, in text and JSON", async () => {
    const { e, lines: logLines } = await logged();
    await fetch(`${e.url}/v3/users/ghost`, { headers: { apikey: REST_KEY } });
    await fetch(`${e.url}/v3/users`, { headers: { apikey: "nope" } });
    const lines = await logLines(2);
    expect(lines.some((l) => / \/v3\/users\/ghost 404 ERR_UID_NOT_FOUND \d/.test(l)), lines.join("\n")).toBe(true);
    expect(lines.some((l) => / \/v3\/users 401 AUTH_ERR_APIKEY_NOT_FOUND \d/.test(l)), lines.join("\n")).toBe(true);
  });

  it.each([
    [`/${APP_ID}.api-us.cometchat.io/v3/users`, "drop .cometchat.io"],
    [`/apimgmt.cometchat.io/apps`, "drop .cometchat.io"],
    [`/v2/users`, "serves API v3"],
    [`/${APP_ID}.api-us/v2/users`, "serves API v3"],
    [`/${APP_ID}.chat-us/v3/users`, "chat is no plane"],
    [`/${APP_ID}.api-de/v3/users`, "de is no region"],
    [`/users`, "start with /v3"],
    [`/v3/user/superhero1`, "did you mean GET /v3/users/{uid}?"],
    [`/v3/apps`, "GET /apimgmt/apps is served on the management plane"],
  ])("%s: 404 with a hint in devMessage and in the log line", async (path, hint) => {
    const { e, lines: logLines } = await logged({ logFormat: "json" });
    const res = await fetch(`${e.url}${path}`, { headers: { apikey: REST_KEY } });
    const body = await res.json();
    expect([res.status, body.error.code]).toEqual([404, "ERR_API_NOT_FOUND"]);
    expect(body.error.message).toBe("The API endpoint is invalid. Please verify the API call.");
    expect(body.error.devMessage).toContain(hint);
    const [line] = (await logLines(1)).map((l) => JSON.parse(l));
    expect(line).toMatchObject({ status: 404, code: "ERR_API_NOT_FOUND", hint: expect.stringContaining(hint) });
  });

  it("appends request advice to the line (docs/insight.md), beside the x-chat-emulator-advice header when asked", async () => {
    const { e, lines: logLines } = await logged({ adviceHeader: true });
    const r = await fetch(`${e.url}/v3/users?perpage=1`, { headers: { apikey: REST_KEY } });
    expect(r.headers.get("x-chat-emulator-advice")).toBe("unknown-query-parameter perpage");
    const [line] = await logLines(1);
    expect(line).toMatch(/200 \S+ms {2}advice: unknown query parameter `perpage` \(ignored by the platform; did you mean `perPage`\?\)$/);
  });

  it("gives no hint where the address is right and only the route is unknown", async () => {
    const { e } = await logged();
    const body = await (await fetch(`${e.url}/${APP_ID}.api-us/v3/nothing-here`, { headers: { apikey: REST_KEY } })).json();
    expect(body.error.devMessage).toBe("The API endpoint is invalid. Please verify the API call.");
  });
});
