import { connect } from "node:net";
import { readFileSync } from "node:fs";
import { Hono } from "hono";
import { WebSocket, WebSocketServer } from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../src/index.js";
import { listen } from "../src/server.js";
import type { Env } from "../src/http/context.js";
import { APP_ID, emulator, expectError, MGMT, REST_KEY } from "./helpers.js";

/** Issue 35, item 5: requests that hung, leaked or read forever. A real server: these live below app.request(). */

let server: RunningEmulator;
beforeAll(async () => {
  server = await startEmulator({ quiet: true });
});
afterAll(() => server.close());

interface Raw {
  head: string;
  body: string;
  closed: boolean;
  /** Bytes of body the client could write before the connection closed. */
  sent: number;
}

/**
 * Sends `request` (headers and any body in one write, as curl does for a small body), then `extra` bytes of body
 * as fast as the server takes them; resolves when the connection closes, or with what came by `waitMs`.
 */
function raw(request: string | Buffer, { extra = 0, waitMs = 3000 } = {}): Promise<Raw> {
  const port = new URL(server.url).port;
  return new Promise((resolve) => {
    const socket = connect(Number(port), "127.0.0.1");
    let answer = "";
    let sent = 0;
    let closed = false;
    const done = () => {
      const [head, ...rest] = answer.split("\r\n\r\n");
      resolve({ head, body: rest.join("\r\n\r\n"), closed, sent });
      socket.destroy();
    };
    socket.on("data", (d) => (answer += d.toString()));
    socket.on("error", () => undefined);
    socket.on("close", () => {
      closed = true;
      done();
    });
    setTimeout(done, waitMs).unref();
    socket.write(request);
    const chunk = Buffer.alloc(1024 * 1024, "a");
    const pump = () => {
      while (!closed && sent < extra) {
        sent += chunk.length;
        if (!socket.write(chunk)) return void socket.once("drain", pump);
      }
    };
    pump();
  });
}

describe("every body reader goes through one cached read", () => {
  it("a multipart certificate upload arriving with its headers answers with the journal on", async () => {
    const mgmt = { "content-type": "application/json", apikey: MGMT.key, ...MGMT };
    const ext = `${server.url}/apimgmt/apps/${APP_ID}/extensions`;
    expect((await fetch(ext, { method: "POST", headers: mgmt, body: JSON.stringify({ enabled: ["push-notification"] }) })).status).toBe(200);
    const key = readFileSync(new URL("./fixtures/apns-test.p8", import.meta.url));
    const boundary = "----emulator-test";
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="certificate"; filename="AuthKey_X.p8"\r\nContent-Type: application/octet-stream\r\n\r\n`),
      key,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const head =
      `POST /apimgmt/apps/${APP_ID}/extensions/push-notification/v1/upload-certificate-p8 HTTP/1.1\r\nHost: localhost\r\n` +
      `key: ${MGMT.key}\r\nsecret: ${MGMT.secret}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
    const r = await raw(Buffer.concat([Buffer.from(head), body]));
    expect(r.head.split("\r\n")[0]).toBe("HTTP/1.1 200 OK");
    expect(JSON.parse(r.body).data.body).toEqual({ success: true });
    const entry = server.journal.list({ path: "*upload-certificate-p8" })[0];
    expect(entry.status).toBe(200);
    expect(String(entry.requestBody)).toContain("AuthKey_X.p8"); // the journal read the body the handler read
  });
});

describe("CORS is decided on the routed path", () => {
  it("the management plane behind dot segments answers without Access-Control-Allow-Origin", async () => {
    for (const target of ["/v3/../apimgmt/apps", "/v3/%2e%2e/apimgmt/apps", "/x/./../apimgmt/apps"]) {
      const r = await raw(`GET ${target} HTTP/1.1\r\nHost: localhost\r\nkey: ${MGMT.key}\r\nsecret: ${MGMT.secret}\r\nConnection: close\r\n\r\n`);
      expect([target, r.head.split("\r\n")[0]]).toEqual([target, "HTTP/1.1 200 OK"]);
      expect(r.head.toLowerCase()).not.toContain("access-control-allow-origin");
    }
    const rest = await raw(`GET /v3/./users HTTP/1.1\r\nHost: localhost\r\napikey: ${REST_KEY}\r\nConnection: close\r\n\r\n`);
    expect(rest.head).toContain("Access-Control-Allow-Origin: *");
  });
});

describe("a body refused before it is read is not read whole", () => {
  it("a declared gigabyte after a wrong key or an unknown route: answered with Connection: close, and closed", async () => {
    const GiB = 1024 * 1024 * 1024;
    for (const [line, key] of [
      ["POST /v3/users HTTP/1.1", "nope"],
      ["POST /v3/no/such/route HTTP/1.1", REST_KEY],
      ["POST /apimgmt/apps/nope HTTP/1.1", "x"],
    ]) {
      const r = await raw(`${line}\r\nHost: localhost\r\napikey: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${GiB}\r\n\r\n`, { extra: GiB, waitMs: 10_000 });
      expect([line, r.closed]).toEqual([line, true]);
      expect(r.head).toMatch(/^HTTP\/1\.1 4\d\d /);
      expect(r.head).toContain("Connection: close");
      expect(r.sent).toBeLessThan(GiB / 4);
    }
  });
});

describe("webhook URLs with credentials", () => {
  it("are refused at creation with details (webhooks, bots, custom notification providers), naming no password", async () => {
    const e = await emulator();
    const mgmt = (method: string, path: string, body?: unknown) =>
      e.call(method, `/apimgmt/apps/${APP_ID}${path}`, { body, key: null, headers: { ...MGMT, "x-webhook-version": "2" } });
    const url = "https://alice:s3cret@hooks.example/cometchat";
    const why = "may not hold a user name or password (user:password@): put them in the basic authentication fields (useBasicAuth, username, password).";
    const hook = expectError(await mgmt("POST", "/webhooks", { id: "wh", name: "W", webhookURL: url }), 400, "ERR_BAD_REQUEST");
    expect(hook.details).toEqual({ webhookURL: [`The webhookURL ${why}`] });
    expect(JSON.stringify(hook)).not.toContain("s3cret");
    expect((await mgmt("POST", "/webhooks", { id: "wh", name: "W", webhookURL: "https://hooks.example/cometchat" })).status).toBe(200);
    expect(expectError(await mgmt("PUT", "/webhooks/wh", { webhookURL: url }), 400, "ERR_BAD_REQUEST").details).toEqual({ webhookURL: [`The webhookURL ${why}`] });
    const bot = expectError(await e.post("/v3/bots", { uid: "b1", webhookURL: url }), 400, "ERR_BAD_REQUEST");
    expect(bot.details).toEqual({ webhookURL: [`The webhookURL ${why}`] });
    const provider = expectError(await e.post("/v3/notifications/push/v1/providers/custom", { isEnabled: true, webhookURL: url }), 400, "ERR_BAD_REQUEST");
    expect(provider.details!.webhookURL).toEqual([`The webhookURL ${why}`]);
  });

  it("one already in the state (an older file) fails its deliveries with a reason that shows no password", async () => {
    const e = await emulator();
    const mgmt = (method: string, path: string, body?: unknown) =>
      e.call(method, `/apimgmt/apps/${APP_ID}${path}`, { body, key: null, headers: { ...MGMT, "x-webhook-version": "2" } });
    expect((await mgmt("POST", "/webhooks", { id: "wh", name: "W", webhookURL: "https://hooks.example/x" })).status).toBe(200);
    expect((await mgmt("POST", "/webhooks/wh/triggers", { triggerIds: ["message_sent"] })).status).toBe(200);
    e.store.defaultApp.webhooks.get("wh")!.webhookURL = "https://alice:s3cret@hooks.example/x";
    await e.post("/v3/messages", { receiver: "superhero2", receiverType: "user", data: { text: "hi" } }, { onBehalfOf: "superhero1" });
    const log = (await e.get("/_emulator/webhooks/deliveries?status=failed&wait=3000", { key: null })).body.deliveries;
    expect(log[0].attempts[0].error).toMatch(/^the URL may not hold a user name or password/);
    expect(JSON.stringify(log)).not.toContain("s3cret");
    e.emulator.webhooks.close();
  });
});

describe("server timeouts", () => {
  it("a slow header sender gets 408 and is cut off; a WebSocket and a slow answer are not", async () => {
    const app = new Hono<Env>().get("/slow", async (c) => {
      await new Promise((r) => setTimeout(r, 900));
      return c.text("done");
    });
    const wss = new WebSocketServer({ noServer: true });
    const s = await listen(app, 0, "127.0.0.1", {
      timeouts: { headersMs: 300, requestMs: 400, checkEveryMs: 100 },
      upgrade: (req, socket, head) => wss.handleUpgrade(req, socket, head, (ws) => ws.on("message", (m) => ws.send(m))),
    });
    try {
      const base = `http://127.0.0.1:${s.port}`;
      const slowHeaders = await new Promise<{ answer: string; closed: boolean }>((resolve) => {
        const socket = connect(s.port, "127.0.0.1");
        let answer = "";
        socket.on("data", (d) => (answer += d.toString()));
        socket.on("close", () => resolve({ answer, closed: true }));
        socket.write("GET /slow HTTP/1.1\r\nHost: localhost\r\n"); // and never the blank line
        setTimeout(() => resolve({ answer, closed: false }), 3000).unref();
      });
      expect(slowHeaders.closed).toBe(true);
      expect(slowHeaders.answer).toMatch(/^HTTP\/1\.1 408/);
      const ws = new WebSocket(`ws://127.0.0.1:${s.port}/`);
      await new Promise((r) => ws.once("open", r));
      expect(await (await fetch(`${base}/slow`)).text()).toBe("done"); // 900 ms: past both timeouts
      ws.send("still here");
      expect(String(await new Promise((r) => ws.once("message", r)))).toBe("still here");
      ws.close();
    } finally {
      wss.close();
      await s.close();
    }
  });
});
