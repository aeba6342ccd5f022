import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createEmulator } from "../src/index.js";
import { listen, type Listening } from "../src/server.js";
import { APP_ID, emulator, expectError, MGMT, REST_KEY, type TestEmulator } from "./helpers.js";

/** The live streams (server-sent events) of the journal and of webhook deliveries. */

interface SseEvent {
  event: string;
  id?: string;
  data: any;
}

/** Reads events off an event-stream body, one at a time; `next()` rejects when none comes within a second. */
function reader(res: Response) {
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
  const stream = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  async function next(): Promise<SseEvent> {
    for (;;) {
      const end = buffer.indexOf("\n\n");
      if (end !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields: Record<string, string> = {};
        for (const line of block.split("\n")) {
          const colon = line.indexOf(":");
          if (colon > 0) fields[line.slice(0, colon)] = line.slice(colon + 1).trimStart();
        }
        if (fields.event) return { event: fields.event, id: fields.id, data: JSON.parse(fields.data) };
        continue; // retry and keep-alive comments
      }
      const chunk = await Promise.race([
        stream.read(),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error("no event within 1 s")), 1000)),
      ]);
      if (chunk.done) throw new Error("stream ended");
      buffer += decoder.decode(chunk.value, { stream: true });
    }
  }
  return { next, cancel: () => stream.cancel() };
}

const listeners = (set: object) => (set as { listeners: Set<unknown> }).listeners.size;

describe("GET /_emulator/requests/stream", () => {
  let e: TestEmulator;
  const stream = async (query = "", headers: Record<string, string> = {}) =>
    reader(await e.app.request(`http://localhost/_emulator/requests/stream${query}`, { headers }));

  it("sends the journaled requests, then each new one as it is answered", async () => {
    e = await emulator();
    await e.get("/v3/users/superhero1");
    const s = await stream();
    const first = await s.next();
    expect(first).toMatchObject({ event: "request", id: "1", data: { id: 1, method: "GET", path: "/v3/users/superhero1", status: 200 } });
    await e.post("/v3/messages", { receiver: "supergroup", receiverType: "group", data: { text: "hi" } }, { onBehalfOf: "superhero2" });
    const live = await s.next();
    expect(live.id).toBe("2");
    expect(live.data).toMatchObject({ method: "POST", path: "/v3/messages", status: 200, requestBody: { data: { text: "hi" } }, rules: [] });
    expect(live.data.responseBody.data.sender).toBe("superhero2");
    await s.cancel();
    expect(listeners(e.emulator.control.journal)).toBe(0);
  });

  it("takes the journal's filters, `limit` for the backlog, and resumes after Last-Event-ID", async () => {
    e = await emulator();
    for (const uid of ["superhero1", "superhero2", "superhero3"]) await e.get(`/v3/users/${uid}`);
    const newest = await stream("?limit=1");
    expect((await newest.next()).data.path).toBe("/v3/users/superhero3");
    await newest.cancel();

    const resumed = await stream("", { "last-event-id": "2" });
    expect((await resumed.next()).id).toBe("3");
    await resumed.cancel();

    const failures = await stream("?status=4xx&method=GET");
    await e.get("/v3/users/ghost");
    await e.post("/v3/users", {}); // 400, but a POST
    expect((await failures.next()).data).toMatchObject({ path: "/v3/users/ghost", status: 404 });
    await e.get("/v3/users/nobody");
    expect((await failures.next()).data.path).toBe("/v3/users/nobody");
    await failures.cancel();
  });

  it("names the rules that touched a request", async () => {
    e = await emulator();
    const s = await stream();
    e.rules.add({ match: { method: "POST", path: "/v3/messages" }, effect: { status: 503 }, times: 1 });
    await e.post("/v3/messages", { receiver: "superhero1", receiverType: "user", data: { text: "x" } });
    expect((await s.next()).data).toMatchObject({ status: 503, rules: ["r1"] });
    await s.cancel();
  });

  it("refuses bad filters and a journal that is off", async () => {
    e = await emulator();
    expectError(await e.get("/_emulator/requests/stream?status=abc", { key: null }), 400, "ERR_BAD_REQUEST");
    e = await emulator({ journalSize: 0 });
    expectError(await e.get("/_emulator/requests/stream", { key: null }), 400, "ERR_BAD_REQUEST");
  });
});

describe("GET /_emulator/webhooks/deliveries/stream", () => {
  let receiver: Server;
  afterEach(async () => {
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it("sends each delivery when it is added and again as it changes", async () => {
    receiver = createServer((req, res) => req.resume().on("end", () => res.end("ok")));
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const e = await emulator();
    const mgmt = (path: string, body: unknown) =>
      e.call("POST", `/apimgmt/apps/${APP_ID}${path}`, { body, key: null, headers: { ...MGMT, "x-webhook-version": "2" } });
    await mgmt("/webhooks", { id: "hook1", name: "Hook", webhookURL: url });
    await mgmt("/webhooks/hook1/triggers", { triggerIds: ["message_sent"] });

    const s = reader(await e.app.request("http://localhost/_emulator/webhooks/deliveries/stream?webhook=hook1"));
    await e.post("/v3/messages", { receiver: "superhero2", receiverType: "user", data: { text: "hook me" } }, { onBehalfOf: "superhero1" });
    const added = await s.next();
    expect(added).toMatchObject({ event: "delivery", data: { id: 1, webhook: "hook1", event: "message_sent", status: "pending", attempts: [] } });
    let d = added.data;
    while (d.status !== "delivered") d = (await s.next()).data;
    expect(d.attempts).toEqual([expect.objectContaining({ status: 200 })]);
    await s.cancel();
    expect(listeners((e.emulator.webhooks as unknown as { log: object }).log)).toBe(0);
    e.emulator.webhooks.close();

    // The backlog: a new stream starts with the log.
    const again = reader(await e.app.request("http://localhost/_emulator/webhooks/deliveries/stream"));
    expect((await again.next()).data).toMatchObject({ id: 1, status: "delivered" });
    await again.cancel();
  });
});

describe("streams over HTTP", () => {
  let served: Listening | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });

  it("send requests as they are answered, and let go of a client that disconnects", async () => {
    const { emulator: core, app } = await createEmulator({ quiet: true, controlToken: "t" });
    served = await listen(app, 0, "127.0.0.1");
    const url = `http://127.0.0.1:${served.port}`;
    const abort = new AbortController();
    const s = reader(await fetch(`${url}/_emulator/requests/stream`, { headers: { "x-emulator-token": "t" }, signal: abort.signal }));
    await fetch(`${url}/v3/users/superhero4`, { headers: { apikey: REST_KEY } });
    expect((await s.next()).data).toMatchObject({ path: "/v3/users/superhero4", status: 200 });
    expect(listeners(core.control.journal)).toBe(1);
    abort.abort();
    await vi.waitFor(() => expect(listeners(core.control.journal)).toBe(0));
  });
});

describe("GET /_emulator/notifications/stream", () => {
  it("sends the matching notifications of the outbox, then each one as it is computed", async () => {
    const e = await emulator();
    await e.post("/v3/notifications/push/v1/providers/fcm", { providerId: "f", serviceAccountCreds: { project_id: "p", client_email: "c@p.test", private_key: "k" } });
    const authToken = (await e.post("/v3/users/superhero2/auth_tokens", {})).body.data.authToken;
    await e.post("/v3/notifications/push/v1/tokens", { platform: "fcm_web", fcmToken: "b-web", authToken });
    const say = (text: string) => e.post("/v3/messages", { receiver: "superhero2", receiverType: "user", data: { text } }, { onBehalfOf: "superhero1" });
    await say("before");
    const s = reader(await e.app.request("http://localhost/_emulator/notifications/stream?uid=superhero2"));
    expect(await s.next()).toMatchObject({ event: "notification", id: "1", data: { uid: "superhero2", body: "before", status: "sent" } });
    await say("after");
    expect(await s.next()).toMatchObject({ event: "notification", id: "2", data: { body: "after", pushToken: "b-web" } });
    await s.cancel();
    expect(listeners((e.emulator.notifications as unknown as { log: object }).log)).toBe(0);
    expectError(await e.get("/_emulator/notifications/stream?status=lost", { key: null }), 400, "ERR_BAD_REQUEST");
    e.emulator.notifications.close();
  });
});
