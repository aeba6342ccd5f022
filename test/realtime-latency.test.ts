import { describe, expect, it } from "vitest";
import { startEmulator } from "../src/index.js";
import { APP_ID, REST_KEY } from "./helpers.js";
import { text, useSocketServer } from "./realtime.helpers.js";

/**
 * Realtime latency (frame rules, `--realtime-latency`): the frames the WebSocket sends are held back as on a real
 * network, so that a page sees a receipt after the send's own answer, and races can be reproduced on purpose.
 */

const { url, connect } = useSocketServer();

const addRule = async (rule: unknown) => {
  const res = await fetch(`${url()}/_emulator/rules`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(rule) });
  return { status: res.status, body: await res.json() };
};

describe("realtime latency", () => {
  it("holds back the frames of one kind, in order with the others on the same socket", async () => {
    const a = await connect("superhero1");
    const b = await connect("superhero2");
    const rule = await addRule({ match: { frame: "message" }, effect: { latencyMs: 300 } });
    expect(rule.status).toBe(201);
    expect(rule.body).toMatchObject({ match: { frame: "message" }, effect: { latencyMs: 300 }, hits: 0 });

    const sent = await a.api("POST", "/messages", { receiver: "superhero2", receiverType: "user", category: "message", type: "text", data: { text: "late" } });
    expect(sent.status).toBe(200);
    // The send has been answered; the frame is still on its way.
    expect(b.frames.filter(text("late"))).toEqual([]);
    // A frame of another kind sent meanwhile is not delayed itself, but a socket is one stream: it comes after.
    a.ws.send(JSON.stringify({ appId: APP_ID, receiver: "superhero2", receiverType: "user", deviceId: a.deviceId, type: "typing_indicator", sender: "superhero1", body: { action: "started" } }));
    await b.next((f) => f.type === "typing_indicator");
    const order = b.frames.filter((f) => f.type === "message" || f.type === "typing_indicator").map((f) => f.type);
    expect(order).toEqual(["message", "typing_indicator"]);
    const listed = await (await fetch(`${url()}/_emulator/rules`)).json();
    expect(listed.rules[0]).toMatchObject({ id: rule.body.id, hits: 1 });
  });

  it("takes only delays, and frame rules never touch HTTP requests", async () => {
    const refused = await addRule({ match: { frame: "receipts" }, effect: { status: 503 } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toHaveProperty("effect");
    const mixed = await addRule({ match: { frame: "*", path: "/v3/users" }, effect: { latencyMs: 10 } });
    expect(mixed.status).toBe(400);
    expect(mixed.body.error.details).toHaveProperty(["match.frame"]);
    const badName = await addRule({ match: { frame: "Message!" }, effect: { latencyMs: 10 } });
    expect(badName.status).toBe(400);
    expect(badName.body.error.details).toHaveProperty(["match.frame"]);

    await addRule({ match: { frame: "*" }, effect: { latencyMs: 5000 } });
    const res = await fetch(`${url()}/v3/users`, { headers: { apikey: REST_KEY } });
    expect(res.status).toBe(200);
    const listed = await (await fetch(`${url()}/_emulator/rules`)).json();
    expect(listed.rules.at(-1).hits).toBe(0);
  });

  it("is a global frame rule with the realtimeLatency option (--realtime-latency)", async () => {
    const emu = await startEmulator({ quiet: true, port: 0, realtimeLatency: "20-60" });
    try {
      const rules = await (await fetch(`${emu.url}/_emulator/rules`)).json();
      expect(rules.rules).toEqual([expect.objectContaining({ match: { frame: "*" }, effect: { latencyMs: 20, jitterMs: 40 } })]);
    } finally {
      await emu.close();
    }
    await expect(startEmulator({ quiet: true, port: 0, realtimeLatency: "60-20" })).rejects.toThrow(/latency must be MS or MIN-MAX/);
  });
});
