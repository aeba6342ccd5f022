import { afterEach, describe, expect, it, vi } from "vitest";
import { startEmulator, type RunningEmulator } from "../src/index.js";
import { APP_ID, AUTH_KEY, emulator, expectError, MGMT, REST_KEY } from "./helpers.js";

/** What the web inspector reads: the apps with their keys; its reads stay out of the journal and the request log. */

const TOKEN = "s3cret-token";

describe("GET /_emulator/apps", () => {
  it("lists every app with its base paths and keys, the default app and the management credentials", async () => {
    const e = await emulator();
    const created = await e.mgmt("POST", "/apps", { name: "Second", region: "eu", skipSampleData: true });
    const r = await e.get("/_emulator/apps", { key: null });
    expect(r.status).toBe(200);
    expect(r.body.defaultAppId).toBe(APP_ID);
    expect(r.body.management).toEqual({ path: "/apimgmt", ...MGMT });
    expect(r.body.apps).toHaveLength(2);
    expect(r.body.apps[0]).toEqual({
      appId: APP_ID,
      name: expect.any(String),
      region: "us",
      default: true,
      restPath: `/${APP_ID}.api-us/v3`,
      callsPath: `/${APP_ID}.call-us/v3`,
      apiKeys: [
        { apiKey: REST_KEY, name: expect.any(String), scope: "fullAccess" },
        { apiKey: AUTH_KEY, name: expect.any(String), scope: "authOnly" },
      ],
    });
    expect(r.body.apps[1]).toMatchObject({ appId: created.body.data.id, region: "eu", default: false });
  });

  it("needs the control token when one is set", async () => {
    const e = await emulator({ controlToken: TOKEN });
    expectError(await e.get("/_emulator/apps", { key: null }), 401, "AUTH_ERR_EMPTY_EMULATOR_TOKEN");
    expect((await e.get("/_emulator/apps", { key: null, headers: { "x-emulator-token": TOKEN } })).status).toBe(200);
  });
});

describe("the inspector's reads (x-emulator-inspector)", () => {
  it("are not journaled and rules do not touch them; its writes are ordinary calls", async () => {
    const e = await emulator();
    const inspector = { headers: { "x-emulator-inspector": "1" } };
    e.rules.add({ match: { path: "/v3/users*" }, effect: { status: 503 }, times: 1 });
    expect((await e.get("/v3/users", inspector)).status).toBe(200);
    expect(e.journal.list()).toEqual([]);
    expect(e.rules.list()[0]).toMatchObject({ hits: 0, times: 1 });
    // A write with the header is the user driving the emulator: journaled, and the rule applies.
    const write = await e.post("/v3/users", { uid: "ann", name: "Ann" }, inspector);
    expectError(write, 503, "ERR_OPERATION_FAILED");
    expect(e.journal.list().map((r) => [r.method, r.path, r.status, r.rules])).toEqual([["POST", "/v3/users", 503, ["r1"]]]);
  });
});

describe("request log", () => {
  let running: RunningEmulator | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });

  it("leaves out the inspector's reads and hides a token in the query", async () => {
    const lines: string[] = [];
    running = await startEmulator({ controlToken: TOKEN, requestLog: (l) => lines.push(l) });
    await fetch(`${running.url}/v3/users`, { headers: { apikey: REST_KEY, "x-emulator-inspector": "1" } });
    await fetch(`${running.url}/_emulator/rules?token=${TOKEN}`);
    await fetch(`${running.url}/v3/users/superhero1`, { headers: { apikey: REST_KEY } });
    await vi.waitFor(() => expect(lines).toHaveLength(2));
    expect(lines[0]).toMatch(/GET +- \/_emulator\/rules\?token=\*\*\* 401 /);
    expect(lines[1]).toMatch(/GET +62c95aeb231ec058 \/v3\/users\/superhero1 200 /);
    expect(lines.join("\n")).not.toContain(TOKEN);
  });
});
