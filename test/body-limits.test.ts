import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../src/index.js";
import { APP_ID, emulator, expectError, MGMT, REST_KEY } from "./helpers.js";

/**
 * Bodies are counted as they arrive: a chunked body (no Content-Length) is refused once it passes the limit,
 * without reading the rest, on every plane.
 */

let server: RunningEmulator;
beforeAll(async () => {
  server = await startEmulator({ quiet: true });
});
afterAll(() => server.close());

const MIB = 1024 * 1024;

/** Streams up to `total` bytes of JSON-ish text chunked to `path`; resolves with the answer and the bytes sent by then. */
function chunkedPost(path: string, total: number, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: any; sent: number }>((resolve, reject) => {
    const url = new URL(path, server.url);
    const req = request(url, { method: "POST", headers: { "content-type": "application/json", apikey: REST_KEY, ...headers } });
    const chunk = Buffer.alloc(64 * 1024, "x");
    let sent = 0;
    let answered = false;
    const pump = () => {
      while (!answered && sent < total) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      if (!answered) req.end();
    };
    req.on("response", (res) => {
      answered = true;
      const sentThen = sent;
      let text = "";
      res.on("data", (d: Buffer) => (text += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(text), sent: sentThen }));
    });
    req.on("error", (e) => (answered ? undefined : reject(e)));
    req.write("{");
    pump();
  });
}

describe("streamed body limits", () => {
  it("refuses a 48 MiB chunked POST after about the limit, without reading the rest", async () => {
    const token = (await (await fetch(`${server.url}/v3/users/superhero1/auth_tokens`, { method: "POST", headers: { apikey: REST_KEY } })).json()).data.authToken;
    const headers: Record<string, Record<string, string>> = { "/apimgmt/apps": MGMT, [`/${APP_ID}.apiclient-us/v3.0/messages`]: { appid: APP_ID, authtoken: token } };
    for (const path of ["/v3/users", "/apimgmt/apps", "/_emulator/rules", `/${APP_ID}.apiclient-us/v3.0/messages`]) {
      const r = await chunkedPost(path, 48 * MIB, headers[path]);
      expect([path, r.status, r.body.error.code]).toEqual([path, 413, "ERR_BAD_REQUEST"]);
      expect(r.sent).toBeLessThan(16 * MIB); // the old reader took in all 48 MiB before refusing
    }
    expect((await fetch(`${server.url}/_emulator/health`)).status).toBe(200);
  });

  it("refuses a declared Content-Length over the limit at once; the state import has its own 1 GiB cap", async () => {
    const e = await emulator();
    const big = (path: string, length: number) => e.call("PUT", path, { raw: "{}", headers: { "content-type": "application/json", "content-length": String(length) } });
    expect(expectError(await big("/_emulator/state", 1025 * MIB), 413, "ERR_BAD_REQUEST").message).toContain("1024 MB");
    expect(expectError(await big("/_emulator/clock", 11 * 1024), 413, "ERR_BAD_REQUEST").message).toContain("10 KB");
  });
});
