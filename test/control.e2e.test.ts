import { describe, expect, it } from "vitest";
import { APP_ID, REST_KEY } from "./helpers.js";
import { runCli, startClisPerTest } from "./cli.helpers.js";
import { startEmulator } from "../src/index.js";

const start = startClisPerTest();

const TOKEN = "e2e-token";
const api = { apikey: REST_KEY };

describe("CLI control flags", () => {
  it("--latency, --journal-size, --rate-limit and --control-token work together over HTTP", async () => {
    const cli = await start(["--latency", "100-120", "--journal-size", "2", "--rate-limit", "--control-token", TOKEN]);
    expect(cli.stdout()).toContain("/_emulator  (x-emulator-token required)");
    expect(cli.stdout()).toContain("/_emulator/ui?token=<control token>");
    expect(cli.stdout()).not.toContain(TOKEN);
    expect(cli.stdout()).not.toContain(TOKEN);
    const control = (path: string, init: RequestInit = {}) =>
      fetch(`${cli.url}/_emulator${path}`, { ...init, headers: { "x-emulator-token": TOKEN, "content-type": "application/json" } });

    // --control-token: 401 without the header, health stays open.
    const refused = await fetch(`${cli.url}/_emulator/requests`);
    expect(refused.status).toBe(401);
    expect((await refused.json()).error.code).toBe("AUTH_ERR_EMPTY_EMULATOR_TOKEN");
    expect((await fetch(`${cli.url}/_emulator/health`)).status).toBe(200);

    // --latency: a global rule, and requests take at least its minimum (loosely).
    const rules = await (await control("/rules")).json();
    expect(rules.rules).toEqual([expect.objectContaining({ id: "r1", match: {}, effect: { latencyMs: 100, jitterMs: 20 } })]);
    const t = performance.now();
    const user = await fetch(`${cli.url}/v3/users/superhero1`, { headers: api });
    expect(performance.now() - t).toBeGreaterThanOrEqual(90);
    expect(user.status).toBe(200);
    // --rate-limit: the headers are on every answer.
    expect(user.headers.get("x-rate-limit")).toBe("20000");
    expect(user.headers.get("x-rate-limit-remaining")).toBe("19999");

    // --journal-size 2: only the newest two requests are kept.
    await fetch(`${cli.url}/${APP_ID}.api-us/v3/users/superhero2`, { headers: api });
    await fetch(`${cli.url}/v3/groups`, { headers: api });
    const journal = await (await control("/requests")).json();
    expect(journal.capacity).toBe(2);
    expect(journal.requests.map((r: any) => r.path)).toEqual(["/v3/users/superhero2", "/v3/groups"]);
    expect(journal.requests[0].requestHeaders.apikey).toBe("1f9f0******************************afeb6");
  });

  it("a reset rule drops the connection; wait long-polls over HTTP", async () => {
    const cli = await start([]);
    const control = (path: string, body?: unknown) =>
      fetch(`${cli.url}/_emulator${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    expect((await control("/rules", { match: { path: "/v3/users" }, effect: { reset: true }, times: 1 })).status).toBe(201);
    await expect(fetch(`${cli.url}/v3/users`, { headers: api })).rejects.toThrow();
    expect((await fetch(`${cli.url}/v3/users`, { headers: api })).status).toBe(200);

    const waiting = control("/requests/wait?method=POST&path=/v3/users&timeoutMs=5000");
    // The wait answers once the request is in the journal, which may be before the POST's own answer arrives.
    const posted = new Promise<Response>((resolve, reject) =>
      setTimeout(() => {
        fetch(`${cli.url}/v3/users`, {
          method: "POST",
          headers: { ...api, "content-type": "application/json" },
          body: JSON.stringify({ uid: "waited", name: "Waited" }),
        }).then(resolve, reject);
      }, 50),
    );
    const r = await waiting;
    expect(r.status).toBe(200);
    expect((await r.json()).request).toMatchObject({ method: "POST", status: 200, requestBody: { uid: "waited", name: "Waited" } });
    expect((await posted).status).toBe(200);
  });

  it("warns when listening beyond loopback without a token, and not with one (from the environment)", async () => {
    const open = await start(["--host", "0.0.0.0"]);
    expect(open.stderr()).toContain("warning: listening on 0.0.0.0 without --control-token");
    const guarded = await start(["--host", "0.0.0.0"], { CHAT_EMULATOR_CONTROL_TOKEN: TOKEN });
    expect(guarded.stderr()).not.toContain("warning");
    expect((await fetch(`${guarded.url}/_emulator/state`)).status).toBe(401);
    expect((await fetch(`${guarded.url}/_emulator/state`, { headers: { "x-emulator-token": TOKEN } })).status).toBe(200);
  });

  it("refuses a bad --latency or --journal-size with exit code 2", async () => {
    const latency = await runCli(["--port", "0", "--latency", "fast"]);
    expect(latency.code).toBe(2);
    expect(latency.stderr).toContain("--latency must be MS or MIN-MAX");
    expect((await runCli(["--port", "0", "--journal-size", "-1"])).code).toBe(2);
    const huge = await runCli(["--port", "0", "--journal-size", "20001"]); // the journal's memory stays bounded
    expect([huge.code, huge.stderr]).toEqual([2, expect.stringContaining("--journal-size must be a whole number from 0 to 20000")]);
  });
});

describe("startEmulator control API", () => {
  it("exposes rules, journal.waitFor, clock, snapshot and restore", async () => {
    const e = await startEmulator({ quiet: true });
    try {
      const headers = { apikey: e.defaultApp!.restApiKey, "content-type": "application/json" };
      e.clock.freeze(Date.UTC(2024, 0, 1));
      e.snapshot("clean");
      e.rules.add({ match: { method: "POST", path: "/v3/users" }, effect: { status: 503 }, times: 1 });
      const failed = await fetch(`${e.baseUrl()}/users`, { method: "POST", headers, body: JSON.stringify({ uid: "p1", name: "P" }) });
      expect(failed.status).toBe(503);
      const waited = e.journal.waitFor({ method: "POST", status: 200 }, 2000);
      await fetch(`${e.baseUrl()}/users`, { method: "POST", headers, body: JSON.stringify({ uid: "p1", name: "P" }) });
      const entry = await waited;
      expect(entry.responseBody).toMatchObject({ data: { uid: "p1", createdAt: Date.UTC(2024, 0, 1) / 1000 } });
      e.restore("clean");
      expect((await fetch(`${e.baseUrl()}/users/p1`, { headers })).status).toBe(404);
    } finally {
      await e.close();
    }
  });
});
