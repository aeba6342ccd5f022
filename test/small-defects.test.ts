import { request } from "node:http";
import { describe, expect, it, vi } from "vitest";
import { maskKey } from "../src/http/errors.js";
import { startEmulator } from "../src/index.js";
import { parseRoute } from "../ui/src/router.js";
import { APP_ID, emulator, expectError, MGMT, REST_KEY } from "./helpers.js";

/** Small defects found while attacking the emulator (issue 17, items 10-15). */

describe("keys named like Object's own properties", () => {
  const NAMES = ["constructor", "__proto__", "toString", "hasOwnProperty"];

  it("control-API validation answers 400 with details for them, never 500", async () => {
    const e = await emulator();
    for (const k of NAMES) {
      const raw = (path: string, method: string, body: string) => e.call(method, path, { raw: body, headers: { "content-type": "application/json" } });
      for (const [method, path] of [["PUT", "/_emulator/clock"], ["POST", "/_emulator/clock/advance"], ["PUT", "/_emulator/rate-limits"], ["PUT", `/_emulator/rate-limits/${APP_ID}`]]) {
        const err = expectError(await raw(path, method, `{"${k}":1}`), 400, "ERR_BAD_REQUEST");
        expect(Object.keys(err.details!)).toContain(k);
      }
      const rule = expectError(await raw("/_emulator/rules", "POST", `{"${k}":1,"effect":{"${k}":1},"match":{"${k}":1}}`), 400, "ERR_BAD_REQUEST");
      expect(Object.keys(rule.details!)).toEqual(expect.arrayContaining([k, `effect.${k}`, `match.${k}`]));
    }
    expect(({} as any).polluted).toBeUndefined();
  });

  it("per-item result maps hold any id, __proto__ included", async () => {
    const e = await emulator();
    const r = await e.post("/v3/users/superhero1/blockedusers", { blockedUids: ["__proto__", "superhero2"] });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body.data)).toEqual(["__proto__", "superhero2"]);
    expect(r.body.data.__proto__).toMatchObject({ success: false });
    const friends = await e.post("/v3/users/superhero1/friends", { accepted: ["constructor", "__proto__"] });
    expect(Object.keys(friends.body.data.accepted)).toEqual(["constructor", "__proto__"]);
    const extensions = await e.mgmt("POST", `/apps/${APP_ID}/extensions`, { enabled: ["__proto__"] });
    expect(Object.keys(extensions.body.data.enabled)).toEqual(["__proto__"]);
    const imported = await e.call("POST", "/v3/data_import/users", { raw: '{"users":{"__proto__":{"uid":"__proto__","name":"x"}}}', headers: { "content-type": "application/json" } });
    expect(Object.keys(imported.body.data)).toEqual(["__proto__"]);
  });
  it("the journal keeps query names and headers named so", async () => {
    const e = await emulator();
    await e.get("/v3/users?toString=a&constructor=b&__proto__=c&perPage=2", { headers: { constructor: "x" } });
    const [entry] = (await e.get("/_emulator/requests")).body.requests;
    expect(Object.entries(entry.query)).toEqual([["toString", "a"], ["constructor", "b"], ["__proto__", "c"], ["perPage", "2"]]);
    expect(entry.requestHeaders.constructor).toBe("x");
  });

  it("an agent test names its agent by a string uid", async () => {
    const e = await emulator();
    const err = expectError(await e.post("/v3/ai-agents/agents/test", { uid: { toString: 1 } }), 400, "ERR_BAD_REQUEST");
    expect(err.details).toEqual({ uid: ["The uid must be a string."] });
  });
});

describe("request log masks keys", () => {
  it("in paths and queries, as the journal masks headers", async () => {
    const lines: string[] = [];
    const e = await startEmulator({ quiet: true, requestLog: (l) => lines.push(l), logFormat: "json" });
    try {
      await fetch(`${e.url}/v3/apikeys/${REST_KEY}`, { headers: { apikey: REST_KEY } });
      await fetch(`${e.url}/v3/users/superhero1/auth_tokens/abcdef0123456789abcdef?apikey=${REST_KEY}&authToken=secret-token-value&perPage=2`, { headers: { apikey: REST_KEY } });
      await fetch(`${e.url}/_emulator/ui?token=my-control-token-123`);
      await vi.waitFor(() => expect(lines.length).toBeGreaterThanOrEqual(3)); // a line is written once its response is done
      const paths = lines.map((l) => JSON.parse(l).path as string);
      expect(paths[0]).toBe(`/v3/apikeys/${maskKey(REST_KEY)}`);
      expect(paths[1]).toBe(
        `/v3/users/superhero1/auth_tokens/${maskKey("abcdef0123456789abcdef")}?apikey=${maskKey(REST_KEY)}&authToken=${maskKey("secret-token-value")}&perPage=2`,
      );
      expect(paths[2]).toBe("/_emulator/ui?token=***"); // the control token, hidden whole
      for (const l of lines) expect(l).not.toContain(REST_KEY);
    } finally {
      await e.close();
    }
  });
});

describe("inspector routes", () => {
  it("survive a malformed hash", () => {
    expect(parseRoute("#/app/%E0%A4%A/users")).toEqual({ appId: "%E0%A4%A", section: "users", param: undefined });
    expect(parseRoute("#/app/a%20b/users")).toMatchObject({ appId: "a b" });
  });
});

describe("the path as the caller wrote it", () => {
  it("rules match and the journal records /v3.0/... as written", async () => {
    const e = await emulator();
    await e.post("/_emulator/rules", { match: { path: "/v3.0/users/*" }, effect: { status: 503 } });
    expectError(await e.get(`/${APP_ID}.api-us/v3.0/users/superhero1`), 503, "ERR_OPERATION_FAILED");
    expect((await e.get(`/${APP_ID}.api-us/v3/users/superhero1`)).status).toBe(200);
    const paths = (await e.get("/_emulator/requests")).body.requests.map((r: any) => r.path);
    expect(paths).toEqual(["/v3.0/users/superhero1", "/v3/users/superhero1"]);
  });
});

describe("every method the app sees answers in the envelope", () => {
  /** A raw request over HTTP (fetch refuses some methods). */
  const send = (url: string, method: string, path: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(new URL(path, url), { method, headers }, (res) => {
        let text = "";
        res.on("data", (d: Buffer) => (text += d.toString()));
        res.on("end", () => resolve({ status: res.statusCode!, text }));
      });
      req.on("error", reject);
      req.end();
    });

  it("HEAD, OPTIONS, PATCH and other methods Node passes on, on every plane", async () => {
    const e = await startEmulator({ quiet: true });
    try {
      const paths: [string, Record<string, string>][] = [
        ["/v3/users/superhero1", { apikey: REST_KEY }],
        [`/${APP_ID}.call-us/v3/calls`, { apikey: REST_KEY }],
        ["/apimgmt/apps", MGMT],
        ["/_emulator/health", {}],
        ["/_emulator/ui", {}],
        ["/nowhere", {}],
      ];
      for (const [path, headers] of paths)
        for (const method of ["HEAD", "OPTIONS", "PATCH", "PURGE", "PROPFIND", "LOCK", "SEARCH", "QUERY"]) {
          const r = await send(e.url, method, path, headers);
          expect([method, path, r.status < 500]).toEqual([method, path, true]);
          if (r.status >= 400 && method !== "HEAD") expect([method, path, JSON.parse(r.text).error?.code]).toEqual([method, path, expect.any(String)]);
        }
    } finally {
      await e.close();
    }
  });
});
