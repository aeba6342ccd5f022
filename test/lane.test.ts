import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../src/index.js";
import { laneFor } from "../src/http/lane.js";
import { REST_KEY } from "./helpers.js";

/**
 * The platform lane (src/http/lane.ts) serves platform requests on Node without the Node adapter and Hono's dispatch.
 * Served over HTTP, every request below must answer what the in-process app (Hono's dispatch, the same state)
 * answers: status, content type, length, rate-limit headers and body, byte for byte.
 */

let e: RunningEmulator;
beforeAll(async () => {
  e = await startEmulator({ quiet: true });
});
afterAll(() => e.close());

interface Answer {
  status: number;
  headers: Record<string, string | undefined>;
  body: string;
}

const KEPT = ["content-type", "content-length", "x-rate-limit", "x-rate-limit-remaining", "retry-after", "location"];

/** A request over a real socket (node:http keeps the Host header as given). */
function overHttp(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${e.url}${path}`, { method, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (d) => (text += d));
      res.on("end", () =>
        resolve({ status: res.statusCode!, headers: Object.fromEntries(KEPT.map((k) => [k, res.headers[k] as string | undefined])), body: text }),
      );
    });
    req.on("error", reject).end(body);
  });
}

async function inProcess(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  const res = await e.app.request(`http://${headers.host ?? "localhost"}${path}`, { method, headers, body });
  const text = await res.text();
  const kept = Object.fromEntries(KEPT.map((k) => [k, res.headers.get(k) ?? undefined]));
  kept["content-length"] ??= String(Buffer.byteLength(text)); // the Node side adds it
  return { status: res.status, headers: kept, body: text };
}

const key = { apikey: REST_KEY };

describe("the platform lane answers as Hono's dispatch does", () => {
  it("finds where the Node adapter keeps an answer (else every request would take the adapter)", () => {
    expect(laneFor(e.app)).toBeTypeOf("function");
  });

  const cases: [string, string, Record<string, string>, string?][] = [
    ["GET", "/v3/users/superhero1", key],
    ["GET", "/v3/users/SUPERHERO1", key],
    ["GET", "/v3/messages/1", key],
    ["GET", "/v3/groups/supergroup", { ...key, onBehalfOf: "superhero2" }],
    ["GET", "/v3/users?perPage=2&page=2", key],
    ["GET", "/v3/users/nobody", key],
    ["GET", "/v3/users/superhero1", {}],
    ["GET", "/v3/nothing/here", key],
    ["GET", "/v3/conversations/pinned", key],
    ["GET", "/v3.0/users/superhero1", key],
    ["POST", "/v3/users", { ...key, "content-type": "application/json" }, "{not json"],
    ["POST", "/v3/messages", { ...key, "content-type": "text/plain" }, "hello"],
    ["PUT", "/v3/users/superhero1", { ...key, "content-type": "application/json" }, JSON.stringify({ name: "Tony" })],
    ["GET", "/apimgmt/apps", {}],
  ];
  for (const [method, path, headers, body] of cases)
    it(`${method} ${path}${headers.apikey ? "" : " (no key)"}`, async () => {
      const served = await overHttp(method, path, headers, body);
      const local = await inProcess(method, path, headers, body);
      expect(served).toEqual(local);
    });

  it("with rate limits on: the limit headers Hono's context prepares go out on the lane too", async () => {
    e.rateLimits.enabled = true;
    try {
      const served = await overHttp("GET", "/v3/users/superhero2", key);
      expect(served.status).toBe(200);
      expect(served.headers["x-rate-limit"]).toMatch(/^\d+$/);
      expect(Number(served.headers["x-rate-limit-remaining"])).toBeGreaterThan(0);
      expect(JSON.parse(served.body).data.uid).toBe("superhero2");
    } finally {
      e.rateLimits.enabled = false;
    }
  });

  it("a host label and a path label reach the same handler as the default address", async () => {
    const app = e.defaultApp!;
    const viaHost = await overHttp("GET", "/v3/users/superhero1", { ...key, host: `${app.appId}.api-${app.region}.localhost` });
    const viaPath = await overHttp("GET", `/${app.appId}.api-${app.region}/v3/users/superhero1`, key);
    const plain = await overHttp("GET", "/v3/users/superhero1", key);
    expect([viaHost.status, viaPath.status]).toEqual([200, 200]);
    expect(viaHost.body).toBe(plain.body);
    expect(viaPath.body).toBe(plain.body);
  });

  it("a rule that resets the connection drops it there, a latency rule delays the answer, and the next request is answered", async () => {
    const reset = e.rules.add({ match: { method: "GET", path: "/v3/users/superhero4" }, effect: { reset: true } });
    const slow = e.rules.add({ match: { method: "GET", path: "/v3/groups/*" }, effect: { latencyMs: 40 } });
    try {
      await expect(overHttp("GET", "/v3/users/superhero4", key)).rejects.toThrow(/ECONNRESET|socket hang up/);
      const started = performance.now();
      const delayed = await overHttp("GET", "/v3/groups/supergroup", key);
      expect([delayed.status, performance.now() - started >= 35]).toEqual([200, true]);
      expect((await overHttp("GET", "/v3/users/superhero1", key)).status).toBe(200);
    } finally {
      e.rules.remove(reset.id);
      e.rules.remove(slow.id);
    }
  });

  it("the journal keeps lane requests as it keeps the others (URL, status, response)", async () => {
    e.journal.clear();
    await overHttp("GET", "/v3/users/superhero3?x=1", key);
    const [entry] = e.journal.list({ path: "/v3/users/superhero3" });
    expect(entry).toMatchObject({ method: "GET", path: "/v3/users/superhero3", query: { x: "1" }, status: 200, plane: "rest" });
    expect((entry.responseBody as { data: { uid: string } }).data.uid).toBe("superhero3");
  });
});
