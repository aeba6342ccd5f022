import { request as httpRequest } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

  it("answers the requests read in one turn of the event loop each on its own connection", async () => {
    const uids = ["superhero1", "superhero2", "superhero3", "superhero4", "superhero5"];
    const answers = await Promise.all([...uids, ...uids].map((uid) => overHttp("GET", `/v3/users/${uid}`, key)));
    expect(answers.map((a) => [a.status, JSON.parse(a.body).data.uid])).toEqual([...uids, ...uids].map((uid) => [200, uid]));
  });

  it("reads a body sent whole, in pieces after the headers, chunked, or pipelined; pipelined answers keep their order", async () => {
    const port = new URL(e.url).port;
    const post = (text: string) => {
      const body = JSON.stringify({ receiver: "superhero2", receiverType: "user", data: { text } });
      const head = `POST /v3/messages HTTP/1.1\r\nHost: localhost\r\napikey: ${REST_KEY}\r\nonBehalfOf: superhero1\r\ncontent-type: application/json\r\n`;
      return { whole: `${head}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`, head, body };
    };
    /** Writes `parts` to one connection, `gapMs` apart; resolves with the message texts of the `answers` answers. */
    const exchange = (parts: string[], answers: number, gapMs = 0) =>
      new Promise<{ statuses: number[]; texts: string[] }>((resolve, reject) => {
        const socket = connect(Number(port), "127.0.0.1");
        let got = "";
        socket.setEncoding("utf8").on("data", (d: string) => {
          got += d;
          const bodies = got.split("\r\n\r\n").slice(1).map((b) => b.slice(0, b.lastIndexOf("}") + 1));
          if (bodies.length < answers || !bodies.every((b) => b.endsWith("}"))) return;
          socket.destroy();
          const statuses = [...got.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
          resolve({ statuses, texts: bodies.map((b) => JSON.parse(b.slice(b.indexOf("{"))).data?.data?.text) });
        });
        socket.on("error", reject);
        (async () => {
          for (const part of parts) {
            socket.write(part);
            if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
          }
        })();
      });
    const whole = post("whole").whole;
    expect(await exchange([whole], 1)).toEqual({ statuses: [200], texts: ["whole"] });
    const late = post("in pieces");
    const headersEnd = late.whole.length - late.body.length;
    const parts = [late.whole.slice(0, headersEnd), late.whole.slice(headersEnd, headersEnd + 10), late.whole.slice(headersEnd + 10)];
    expect(await exchange(parts, 1, 30)).toEqual({
      statuses: [200],
      texts: ["in pieces"],
    });
    const chunked = post("chunked");
    const size = Buffer.byteLength(chunked.body).toString(16);
    expect(await exchange([`${chunked.head}transfer-encoding: chunked\r\n\r\n${size}\r\n${chunked.body}\r\n0\r\n\r\n`], 1)).toEqual({
      statuses: [200],
      texts: ["chunked"],
    });
    expect(await exchange([post("first").whole + post("second").whole], 2)).toEqual({ statuses: [200, 200], texts: ["first", "second"] });
    // Answers ready at once (reads) go out after the poll phase: two pipelined in one write keep their order.
    const idOf = async (text: string) => {
      const sent = await inProcess("POST", "/v3/messages", { ...key, onBehalfOf: "superhero1", "content-type": "application/json" }, post(text).body);
      return (JSON.parse(sent.body) as { data: { id: string } }).data.id;
    };
    const read = (id: string) => `GET /v3/messages/${id} HTTP/1.1\r\nHost: localhost\r\napikey: ${REST_KEY}\r\n\r\n`;
    const [one, two] = [await idOf("one"), await idOf("two")];
    expect(await exchange([read(two) + read(one)], 2)).toEqual({ statuses: [200, 200], texts: ["two", "one"] });
  });
});

describe("pipelined requests see the effects of the ones before them on their connection", () => {
  /** Writes `raw` to a new connection of `url` at once; resolves with the `count` answers' bodies, in order. */
  const pipelined = (url: string, raw: string, count: number) =>
    new Promise<{ statuses: number[]; bodies: any[] }>((resolve, reject) => {
      const socket = connect(Number(new URL(url).port), "127.0.0.1");
      let got = "";
      socket.setEncoding("utf8").on("data", (d: string) => {
        got += d;
        const parts = got.split(/HTTP\/1\.1 /).slice(1);
        if (parts.length < count) return;
        const bodies = parts.map((p) => p.slice(p.indexOf("\r\n\r\n") + 4));
        if (!bodies.every((b) => b.endsWith("}"))) return;
        socket.destroy();
        resolve({ statuses: parts.map((p) => Number(p.slice(0, 3))), bodies: bodies.map((b) => JSON.parse(b)) });
      });
      socket.on("error", reject);
      socket.write(raw);
    });
  const head = (method: string, path: string, extra = "") => `${method} ${path} HTTP/1.1\r\nHost: localhost\r\napikey: ${REST_KEY}\r\n${extra}`;
  const withBody = (method: string, path: string, body: unknown, extra = "") => {
    const text = JSON.stringify(body);
    return `${head(method, path, extra)}content-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`;
  };

  for (const data of [false, true])
    it(`a PUT then a GET of a user, and an edit then a read of a message${data ? ", with --data" : ""}`, async () => {
      const dir = data ? mkdtempSync(join(tmpdir(), "chat-emulator-pipelined-")) : undefined;
      const em = await startEmulator({ quiet: true, ...(dir ? { data: join(dir, "state.json") } : {}) });
      try {
        for (let round = 0; round < 10; round++) {
          const name = `Renamed ${round}`;
          const user = await pipelined(em.url, withBody("PUT", "/v3/users/superhero1", { name }) + `${head("GET", "/v3/users/superhero1")}\r\n`, 2);
          expect(user.statuses).toEqual([200, 200]);
          expect(user.bodies.map((b) => b.data.name)).toEqual([name, name]);
        }
        const sent = await pipelined(
          em.url,
          withBody("POST", "/v3/messages", { receiver: "superhero2", receiverType: "user", data: { text: "before" } }, "onBehalfOf: superhero1\r\n"),
          1,
        );
        const id = sent.bodies[0].data.id as string;
        const edit = await pipelined(
          em.url,
          withBody("PUT", `/v3/messages/${id}`, { data: { text: "after" } }, "onBehalfOf: superhero1\r\n") + `${head("GET", `/v3/messages/${id}`)}\r\n`,
          2,
        );
        expect(edit.statuses).toEqual([200, 200]);
        // The edit answers its action message, whose entity is the edited message.
        expect([edit.bodies[0].data.data.entities.on.entity.data.text, edit.bodies[1].data.data.text]).toEqual(["after", "after"]);
      } finally {
        await em.close();
        if (dir) rmSync(dir, { recursive: true, force: true });
      }
    });
});
