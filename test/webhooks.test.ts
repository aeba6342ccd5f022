import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { APP_ID, emulator, expectError, MGMT, type TestEmulator } from "./helpers.js";
import { pollDeliveries, useReceiver } from "./receiver.helpers.js";

/** A real local receiver: records every request; `answer` decides each reply (default 200). */
const rx = useReceiver("/hook", (_, res) => res.end("ok"));

let e: TestEmulator;
beforeEach(async () => {
  e = await emulator();
});
afterEach(async () => {
  e.emulator.webhooks.close();
});

const V2 = { "x-webhook-version": "2" };
const mgmt = (method: string, path: string, body?: unknown, headers: Record<string, string> = V2) =>
  e.call(method, `/apimgmt/apps/${APP_ID}${path}`, { body, key: null, headers: { ...MGMT, ...headers } });
async function register(triggerIds: string[], extra: Record<string, unknown> = {}, id = "hook1") {
  const r = await mgmt("POST", "/webhooks", { id, name: "My hook", webhookURL: rx.url, ...extra });
  expect(r.status).toBe(200);
  expect((await mgmt("POST", `/webhooks/${id}/triggers`, { triggerIds })).status).toBe(200);
}
const deliveries = (q = "") => e.get(`/_emulator/webhooks/deliveries${q}`, { key: null });
const waitDelivered = (n: number, q = "") => pollDeliveries(() => deliveries(`?status=delivered${q}`), n);
const say = (text: string, from = "superhero1", to = "superhero2") =>
  e.post("/v3/messages", { receiver: to, receiverType: "user", data: { text } }, { onBehalfOf: from });

describe("webhook management", () => {
  it("creates, lists, gets, updates and deletes webhooks (X-Webhook-Version: 2)", async () => {
    const r = await mgmt("POST", "/webhooks", { id: "orders", name: "Orders", webhookURL: rx.url, useBasicAuth: true, username: "u", password: "p", retryOnFailure: true });
    expect(r.body.data).toEqual({
      id: "orders",
      name: "Orders",
      webhookURL: rx.url,
      useBasicAuth: true,
      username: "u",
      enabled: true,
      retryOnFailure: true,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    await mgmt("POST", "/webhooks", { id: "audit", name: "Audit log", webhookURL: rx.url });
    const list = await mgmt("GET", "/webhooks?searchKey=audit");
    expect(list.body.data.map((w: any) => w.id)).toEqual(["audit"]);
    expect(list.body.meta.pagination.total).toBe(1);
    expect((await mgmt("GET", "/webhooks/orders")).body.data.name).toBe("Orders");
    expect((await mgmt("PUT", "/webhooks/orders", { enabled: false, name: "Orders v2" })).body.data).toMatchObject({ enabled: false, name: "Orders v2" });
    expect((await mgmt("DELETE", "/webhooks/orders")).body).toEqual({ data: { success: true, message: "Deleted Webhook successfully." } });
    expectError(await mgmt("GET", "/webhooks/orders"), 404, "ERR_WEBHOOK_NOT_FOUND");
  });

  it("keeps the legacy system (no version header) apart", async () => {
    await mgmt("POST", "/webhooks", { id: "legacy", name: "Legacy", webhookURL: rx.url }, {});
    expect((await mgmt("GET", "/webhooks")).body.data).toEqual([]);
    expect((await mgmt("GET", "/webhooks", undefined, {})).body.data.map((w: any) => w.id)).toEqual(["legacy"]);
    expectError(await mgmt("GET", "/webhooks/legacy"), 404, "ERR_WEBHOOK_NOT_FOUND");
    const t = await mgmt("POST", "/webhooks/legacy/triggers", { triggerIds: ["after_message", "message_sent"] }, {});
    expect(t.body.data.after_message.success).toBe(true);
    expect(t.body.data.message_sent.error.code).toBe("ERR_TRIGGER_NOT_FOUND");
    await say("legacy hello");
    const [d] = await waitDelivered(1);
    expect(d).toMatchObject({ webhook: "legacy", event: "after_message", payload: { trigger: "after_message", data: { message: { data: { text: "legacy hello" } } } } });
  });

  it("validates input and limits: id ≤ 50, URL ≤ 255, basic auth needs credentials, 25 per app", async () => {
    const bad = await mgmt("POST", "/webhooks", { id: "x".repeat(51), webhookURL: "not a rx.url" });
    expect(expectError(bad, 400, "ERR_BAD_REQUEST").details).toEqual({
      id: ["The id may not be greater than 50 characters."],
      name: ["The name field is required."],
      webhookURL: ["The webhookURL must be a valid URL."],
    });
    const long = await mgmt("POST", "/webhooks", { id: "l", name: "L", webhookURL: `https://x.io/${"a".repeat(250)}` });
    expect(expectError(long, 400, "ERR_BAD_REQUEST").details).toEqual({ webhookURL: ["The webhookURL may not be greater than 255 characters."] });
    const auth = await mgmt("POST", "/webhooks", { id: "a", name: "A", webhookURL: rx.url, useBasicAuth: true, username: "u" });
    expect(expectError(auth, 400, "ERR_BAD_REQUEST").details).toEqual({ password: ["The password field is required when use basic auth is true."] });
    for (let i = 0; i < 25; i++) expect((await mgmt("POST", "/webhooks", { id: `w${i}`, name: "W", webhookURL: rx.url })).status).toBe(200);
    expectError(await mgmt("POST", "/webhooks", { id: "w0", name: "W", webhookURL: rx.url }), 400, "ERR_BAD_REQUEST");
    expectError(await mgmt("POST", "/webhooks", { id: "w26", name: "W", webhookURL: rx.url }), 403, "ERR_PLAN_QUOTA_RESTRICTION");
    expectError(await e.call("GET", "/apimgmt/apps/nope/webhooks", { key: null, headers: { ...MGMT } }), 404, "ERR_APP_NOT_FOUND");
  });

  it("adds, lists and removes triggers; unknown trigger ids are refused per item", async () => {
    await mgmt("POST", "/webhooks", { id: "t", name: "T", webhookURL: rx.url });
    const add = await mgmt("POST", "/webhooks/t/triggers", { triggerIds: ["message_sent", "group_created", "nope"] });
    expect(add.body.data.message_sent).toEqual({ success: true, message: "Triggers has been added successfully." });
    expect(add.body.data.nope).toMatchObject({ success: false, error: { code: "ERR_TRIGGER_NOT_FOUND" } });
    const list = await mgmt("GET", "/webhooks/t/triggers");
    expect(list.body.data).toEqual([
      { id: "message_sent", category: "messages", description: "A message was sent." },
      { id: "group_created", category: "groups", description: "A group was created." },
    ]);
    expect((await mgmt("DELETE", "/webhooks/t/triggers", { triggerIds: ["message_sent"] })).body.data).toEqual({ success: true, message: "Removed trigger successfully." });
    expect((await mgmt("GET", "/webhooks/t/triggers")).body.data.map((t: any) => t.id)).toEqual(["group_created"]);
    expectError(await mgmt("POST", "/webhooks/t/triggers", {}), 400, "ERR_BAD_REQUEST");
  });
});

describe("delivery", () => {
  it("POSTs the envelope {trigger, data, appId, region, webhook} with Basic auth, built like the REST reply", async () => {
    await register(["message_sent"], { useBasicAuth: true, username: "user", password: "secret" });
    const sent = (await say("hello")).body.data;
    await waitDelivered(1);
    expect(rx.received).toHaveLength(1);
    expect(rx.received[0].headers.authorization).toBe(`Basic ${Buffer.from("user:secret").toString("base64")}`);
    expect(rx.received[0].headers["content-type"]).toBe("application/json");
    expect(rx.received[0].body).toEqual({ trigger: "message_sent", data: { message: sent }, appId: APP_ID, region: "us", webhook: "hook1" });
  });

  it("delivers only subscribed triggers of enabled webhooks", async () => {
    await register(["group_created"]);
    await say("not subscribed");
    await mgmt("PUT", "/webhooks/hook1", { enabled: false });
    await e.post("/v3/groups", { guid: "quiet", name: "Q", type: "public" });
    await mgmt("PUT", "/webhooks/hook1", { enabled: true });
    await e.post("/v3/groups", { guid: "loud", name: "L", type: "public" }, { onBehalfOf: "superhero1" });
    const [d] = await waitDelivered(1);
    expect(d.payload.data).toMatchObject({ group: { guid: "loud", onlineMembersCount: 0, membersCount: 1 }, by: { uid: "superhero1" } });
    expect((await deliveries()).body.deliveries).toHaveLength(1);
  });

  it("keeps per-webhook order and never holds up the API response", async () => {
    await register(["message_sent"]);
    const held: ServerResponse[] = [];
    rx.answer = (_, res) => held.push(res);
    expect((await say("m1")).status).toBe(200);
    while (rx.received.length === 0) await new Promise((r) => setTimeout(r, 5));
    // Every API call answers while the receiver still holds the first delivery, and nothing overtakes it.
    for (let i = 2; i <= 5; i++) expect((await say(`m${i}`)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 50));
    expect(rx.received).toHaveLength(1);
    rx.answer = (_, res) => res.end();
    held.forEach((res) => res.end());
    await waitDelivered(5);
    expect(rx.received.map((r) => r.body.data.message.data.text)).toEqual(["m1", "m2", "m3", "m4", "m5"]);
  });

  it("retries a failed delivery twice, 10 s and 30 s later on the emulator clock", async () => {
    await register(["message_sent"], { retryOnFailure: true });
    e.clock.freeze();
    rx.answer = (_, res) => {
      res.statusCode = 500;
      res.end();
    };
    await say("flaky");
    const wait = async (status: string, attempts: number) => {
      for (let i = 0; i < 200; i++) {
        const [d] = (await deliveries()).body.deliveries;
        if (d?.status === status && d.attempts.length === attempts) return d;
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error(`no ${status} delivery with ${attempts} attempts`);
    };
    expect((await wait("retrying", 1)).attempts[0]).toMatchObject({ status: 500, durationMs: expect.any(Number) });
    e.clock.advance(9);
    await new Promise((r) => setTimeout(r, 50));
    expect(rx.received).toHaveLength(1);
    e.clock.advance(1);
    await wait("retrying", 2);
    e.clock.advance(30);
    const failed = await wait("failed", 3);
    expect(failed.attempts.map((a: any) => a.at - failed.attempts[0].at)).toEqual([0, 10_000, 40_000]);
    // Without retryOnFailure a failure is final at once.
    await mgmt("PUT", "/webhooks/hook1", { retryOnFailure: false });
    rx.answer = (_, res) => res.end();
    await say("fine");
    await waitDelivered(1);
  });

  it("no answer within 2 s is a failed attempt", async () => {
    await register(["message_sent"]);
    rx.answer = () => {}; // never answers
    await say("slow");
    const [d] = (await deliveries("?status=failed&wait=4000")).body.deliveries;
    expect(d.attempts).toEqual([{ at: expect.any(Number), error: "no answer within 2000 ms", durationMs: expect.any(Number) }]);
    expect(d.attempts[0].durationMs).toBeGreaterThanOrEqual(1900);
  });

  it("a network error is a failed attempt with its error", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await mgmt("POST", "/webhooks", { id: "dead", name: "Dead", webhookURL: `http://127.0.0.1:${port}/none` });
    await mgmt("POST", "/webhooks/dead/triggers", { triggerIds: ["message_sent"] });
    await say("into the void");
    for (let i = 0; i < 200; i++) {
      const [d] = (await deliveries("?status=failed&wait=2000")).body.deliveries;
      if (d) {
        expect(d.attempts[0].error).toMatch(/ECONNREFUSED|fetch failed/);
        return;
      }
    }
    throw new Error("no failed delivery");
  });

  it("message, reaction, receipt, block and group events carry the reference's shapes", async () => {
    await register([
      "message_edited",
      "message_deleted",
      "message_reaction_added",
      "message_read_receipt",
      "user_blocked",
      "user_mentioned",
      "group_member_added",
      "group_member_scope_changed",
      "group_owner_transferred",
      "group_member_removed",
    ]);
    const m = (await say("hi <@uid:superhero2>")).body.data;
    await e.put(`/v3/messages/${m.id}`, { data: { text: "edited" } }, { onBehalfOf: "superhero1" });
    await e.post(`/v3/messages/${m.id}/reactions/👍`, undefined, { onBehalfOf: "superhero2" });
    await e.post("/v3/users/superhero1/conversation/read", { messageId: Number(m.id) }, { onBehalfOf: "superhero2" });
    await e.del(`/v3/messages/${m.id}`);
    await e.post("/v3/users/superhero3/blockedusers", { blockedUids: ["superhero4"] });
    await e.post("/v3/groups/supergroup/members", { participants: ["superhero4"] }, { onBehalfOf: "superhero1" });
    await e.put("/v3/groups/supergroup/members/superhero2", { scope: "moderator" });
    await e.put("/v3/groups/supergroup", { owner: "superhero2" });
    await e.del("/v3/users/superhero3", { permanent: true });
    // Every event above, the last one included: 12, as the ownership transfer also makes the former owner a
    // participant (a second group_member_scope_changed).
    const all = await waitDelivered(12);
    const by: Record<string, any> = {};
    for (const d of all) by[d.event] ??= d.payload.data;
    expect(by.user_mentioned.message.id).toBe(m.id);
    expect(by.message_edited.message).toMatchObject({ category: "action", type: "message", data: { action: "edited", entities: { on: { entity: { id: m.id, editedBy: "superhero1" } } } } });
    expect(by.message_deleted.message.data).toMatchObject({ action: "deleted", entities: { on: { entity: { id: m.id, deletedBy: "app_system" } } } });
    expect(by.message_reaction_added.reaction).toEqual({ id: expect.any(String), messageId: m.id, reaction: "👍", uid: "superhero2", reactedAt: expect.any(Number), reactedBy: { uid: "superhero2", name: "Captain America" } });
    expect(by.message_read_receipt).toEqual({
      receiver: "superhero1",
      receiverType: "user",
      type: "receipts",
      sender: "superhero2",
      messageSender: "superhero1",
      body: { action: "read", messageId: m.id, user: { uid: "superhero2", name: "Captain America", status: "offline" }, timestamp: expect.any(Number) },
    });
    expect(by.user_blocked).toEqual({ users: { superhero4: { uid: "superhero4", name: "Wolverine" } }, by: { uid: "superhero3", name: "Spiderman" } });
    expect(by.group_member_added).toMatchObject({ group: { guid: "supergroup", membersCount: 4 }, members: { superhero4: { uid: "superhero4" } }, by: { uid: "superhero1" } });
    expect(by.group_member_scope_changed.members.superhero2).toMatchObject({ scope: "moderator", oldScope: "participant" });
    expect(by.group_owner_transferred.group).toMatchObject({ owner: "superhero2", oldOwner: "superhero1" });
    expect(by.group_member_removed).toMatchObject({ group: { guid: "supergroup" }, members: { superhero3: { uid: "superhero3" } }, by: { uid: "app_system" } });
  });

  it("a recorded call raises the calls triggers in order", async () => {
    await register(["call_initiated", "call_started", "call_participant_joined", "call_ended"]);
    const r = await e.post(`/_emulator/apps/${APP_ID}/calls`, { initiator: "superhero1", receiver: "superhero2", type: "video", initiatedAt: 1700000000, startedAt: 1700000005, endedAt: 1700000125 }, { key: null });
    expect(r.status).toBe(201);
    const all = await waitDelivered(5);
    expect(all.map((d: any) => d.event)).toEqual(["call_initiated", "call_started", "call_participant_joined", "call_participant_joined", "call_ended"]);
    expect(all[0].payload.data.call).toMatchObject({ category: "call", type: "video", data: { action: "initiated" } });
    expect(all[1].payload.data).toEqual({ created_at: 1700000005, sessionId: r.body.call.sessionId });
    expect(all[4].payload.data).toMatchObject({ destroyed_at: 1700000125, created_at: 1700000005, all_occupants: [expect.objectContaining({ uid: "superhero1", audio_call: "false" }), expect.objectContaining({ uid: "superhero2" })] });
  });

  it("deliveries filter by app, webhook, trigger and status, wait for a first match, and clear", async () => {
    await register(["message_sent", "message_edited"]);
    const waiting = deliveries(`?trigger=message_sent&appId=${APP_ID}&webhook=hook1&wait=3000`);
    await say("awaited");
    const r = await waiting;
    expect(r.status).toBe(200);
    expect(r.body.deliveries).toEqual([
      expect.objectContaining({ appId: APP_ID, webhook: "hook1", event: "message_sent", payload: expect.objectContaining({ trigger: "message_sent" }), attempts: expect.any(Array), createdAt: expect.any(Number) }),
    ]);
    expect((await deliveries("?trigger=message_edited")).body.deliveries).toEqual([]);
    expect((await deliveries("?wait=10&trigger=message_edited")).body.deliveries).toEqual([]);
    expectError(await deliveries("?status=lost"), 400, "ERR_BAD_REQUEST");
    expect((await e.del("/_emulator/webhooks/deliveries", undefined, { key: null })).body).toEqual({ cleared: true });
    expect((await deliveries()).body.deliveries).toEqual([]);
  });
});
