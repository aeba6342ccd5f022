import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../src/index.js";
import { APP_ID, MGMT, REST_KEY } from "./helpers.js";
import { CLIENT } from "./client.helpers.js";
import { halfClosed, wire, type RawAnswer } from "./raw-http.helpers.js";

/**
 * A client that sends its request and closes its side at once (the request and the FIN together: HTTP/1.0-style
 * clients, scripts over raw sockets) gets every answer it asked for, in order, each plane, on the lane and off it,
 * behind a latency rule, with the change log; the last answer says `Connection: close` and the connection closes.
 */

const rest = { apikey: REST_KEY };
const setups = [
  { name: "in memory", options: {} },
  { name: "with --data", options: { data: "state.json" } },
  { name: "over HTTPS", options: { https: true } },
];

/** status and error code (or the data's uid, name or text) of each answer, in order. */
const summary = (answers: RawAnswer[]) =>
  answers.map((a) => {
    const body = JSON.parse(a.body);
    return [a.status, body.error?.code ?? body.data?.uid ?? body.data?.name ?? body.data?.data?.text ?? body.status];
  });

for (const setup of setups)
  describe(`a client that closes its side with its request, ${setup.name}`, () => {
    let e: RunningEmulator;
    let ca: string | undefined;
    const lines: string[] = [];
    let token: string;
    let dir: string;
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "chat-emulator-half-close-"));
      const data = setup.options.data && join(dir, setup.options.data);
      e = await startEmulator({ quiet: true, requestLog: (l) => lines.push(l), ...setup.options, ...(data ? { data } : {}) });
      ca = e.tls && readFileSync(e.tls.certPath, "utf8");
      const minted = await e.app.request(`/v3/users/superhero1/auth_tokens`, { method: "POST", headers: { ...rest, "content-type": "application/json" }, body: "{}" });
      token = (await minted.json()).data.authToken;
    });
    afterAll(async () => {
      await e.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const send = (requests: string) => halfClosed(e.url, requests, { ca });

    it("REST: a DELETE of an unknown user, an HTTP/1.0 GET and a PUT are answered, and the PUT is applied", async () => {
      const gone = await send(wire("DELETE", "/v3/users/nosuchuser", rest));
      expect([summary(gone.answers), gone.rest]).toEqual([[[404, "ERR_UID_NOT_FOUND"]], ""]);
      const old = await send(wire("GET", "/v3/users/superhero1", rest).replace(" HTTP/1.1\r\n", " HTTP/1.0\r\n"));
      expect(summary(old.answers)).toEqual([[200, "superhero1"]]);
      const put = await send(wire("PUT", "/v3/users/superhero2", rest, { name: "Piped" }));
      expect(summary(put.answers)).toEqual([[200, "superhero2"]]);
      expect([JSON.parse(put.answers[0].body).data.name, e.store.apps.get(APP_ID)!.users.get("superhero2")!.name]).toEqual(["Piped", "Piped"]);
      expect(lines.filter((l) => l.includes("/v3/users/") && l.includes("(aborted)"))).toEqual([]);
    });

    it("management, client and control planes", async () => {
      const mgmt = await send(wire("GET", "/apimgmt/apps", { key: MGMT.key, secret: MGMT.secret }));
      expect([mgmt.answers.length, mgmt.answers[0].status, JSON.parse(mgmt.answers[0].body).data[0].id]).toEqual([1, 200, APP_ID]);
      const client = { appid: APP_ID, authtoken: token };
      const sent = await send(
        wire("GET", `${CLIENT}/users/superhero2`, client) +
          wire("POST", `${CLIENT}/messages`, client, { receiver: "superhero2", receiverType: "user", category: "message", type: "text", data: { text: "bye" } }),
      );
      expect(summary(sent.answers)).toEqual([
        [200, "superhero2"],
        [200, "bye"],
      ]);
      const health = await send(wire("GET", "/_emulator/health"));
      expect(summary(health.answers)).toEqual([[200, "ok"]]);
    });

    it("pipelined: two GETs, and a PUT then a GET, each answered in order (the GET sees the PUT)", async () => {
      const gets = await send(wire("GET", "/v3/users/superhero1", rest) + wire("GET", "/v3/users/superhero3", rest));
      expect(summary(gets.answers)).toEqual([
        [200, "superhero1"],
        [200, "superhero3"],
      ]);
      const both = await send(wire("PUT", "/v3/users/superhero4", rest, { name: "Then read" }) + wire("GET", "/v3/users/superhero4", rest));
      expect(both.answers.map((a) => [a.status, JSON.parse(a.body).data.name])).toEqual([
        [200, "Then read"],
        [200, "Then read"],
      ]);
    });

    it("a request cut short by the FIN (headers or body) behind complete ones: their answers, then Node's 400", async () => {
      const put = wire("PUT", "/v3/users/superhero5", rest, { name: "Before the cut" });
      for (const cut of [wire("GET", "/v3/users/superhero1", rest).slice(0, 30), put.slice(0, -5)]) {
        const got = await send(wire("GET", "/v3/users/superhero1", rest) + put + cut);
        expect(summary(got.answers)).toEqual([
          [200, "superhero1"],
          [200, "superhero5"],
        ]);
        expect(got.rest).toBe("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
      }
    });

    it("a request Node cannot read is answered as Node does: 400 when malformed, 431 for headers too large", async () => {
      expect((await send("NOT HTTP AT ALL\r\n\r\n")).rest).toBe("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
      const large = await send(wire("GET", "/v3/users/superhero1", { ...rest, "x-large": "a".repeat(20_000) }));
      expect(large.rest).toBe("HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n");
    });

    it("behind a latency rule, on the lane and off it (a target the adapter normalises)", async () => {
      const slow = e.rules.add({ match: { path: "/v3/users/*" }, effect: { latencyMs: 30 } });
      try {
        const started = performance.now();
        const put = await send(wire("PUT", "/v3/users/superhero5", rest, { name: "Slow" }) + wire("GET", "/v3/users/superhero5?via=%61dapter", rest));
        expect(performance.now() - started).toBeGreaterThanOrEqual(55);
        expect(put.answers.map((a) => [a.status, JSON.parse(a.body).data.name, a.headers.connection])).toEqual([
          [200, "Slow", "keep-alive"],
          [200, "Slow", "close"], // Node ends the connection after it (the FIN was read by then)
        ]);
      } finally {
        e.rules.remove(slow.id);
      }
    });
  });

describe("a client that resets the connection before its answer", () => {
  it("has its request applied with a trace, as any server would: the log line and the journal entry with its answer", async () => {
    const lines: string[] = [];
    const e = await startEmulator({ quiet: true, requestLog: (l) => lines.push(l) });
    const until = async (done: () => boolean) => {
      while (!done()) await new Promise((r) => setTimeout(r, 5));
    };
    try {
      const slow = e.rules.add({ match: { method: "PUT" }, effect: { latencyMs: 100 } });
      const reset = await halfClosed(e.url, wire("PUT", "/v3/users/superhero2", rest, { name: "Gone" }), {
        // Once the server holds the request (behind the rule) and the FIN is out (a reset while it is being sent fails).
        then: (socket) => socket.once("finish", () => until(() => e.rules.get(slow.id)!.hits === 1).then(() => socket.resetAndDestroy())),
      });
      expect(reset.answers).toEqual([]);
      // Past the FIN, Node reads no more: the reset shows only when the answer is written, if at all.
      await until(() => lines.length > 0);
      expect(lines).toEqual([expect.stringMatching(/ PUT +\S+ \/v3\/users\/superhero2 200 /)]);
      const [entry] = e.journal.list({ path: "/v3/users/superhero2" });
      expect([entry.status, (entry.responseBody as { data: { name: string } }).data.name]).toEqual([200, "Gone"]);
      expect(e.store.apps.get(APP_ID)!.users.get("superhero2")!.name).toBe("Gone");
    } finally {
      await e.close();
    }
  });
});
