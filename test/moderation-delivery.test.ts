import { beforeEach, describe, expect, it } from "vitest";
import { APP_ID, MGMT } from "./helpers.js";
import { text, useSocketServer } from "./realtime.helpers.js";
import { useReceiver } from "./receiver.helpers.js";

/**
 * A held message against a real server: no realtime frame, no `message_sent` webhook, no push in the notification
 * outbox, until a moderator approves it; then all three. Each "nothing" is checked after a clean message sent
 * later has come through the same channel (frames, webhook deliveries and outbox entries keep the send order),
 * so no test waits for a guessed while.
 */

const { url, rest, connect } = useSocketServer();
const rx = useReceiver("/hook", (_, res) => res.end("ok"));

beforeEach(async () => {
  await control("DELETE", "/webhooks/deliveries");
  await control("DELETE", "/notifications");
});

async function control(method: string, path: string) {
  const res = await fetch(`${url()}/_emulator${path}`, { method });
  return res.json() as Promise<any>;
}

async function management(path: string, body: unknown) {
  const headers = { ...MGMT, "x-webhook-version": "2", "content-type": "application/json" };
  const res = await fetch(`${url()}/apimgmt/apps/${APP_ID}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
}

/** Webhook deliveries of one trigger, waiting until there are `n`. */
async function delivered(trigger: string, n: number): Promise<any[]> {
  for (let i = 0; i < 100; i++) {
    const { deliveries } = await control("GET", `/webhooks/deliveries?status=delivered&trigger=${trigger}&wait=${i === 0 ? 0 : 100}`);
    if (deliveries.length >= n) return deliveries.map((d: any) => d.payload.data);
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`fewer than ${n} ${trigger} deliveries`);
}

/** The ids of the messages whose push reached `uid`'s device, once `id` is among them. */
async function pushedIds(uid: string, id: string): Promise<string[]> {
  for (let i = 0; i < 100; i++) {
    const { notifications } = await control("GET", `/notifications?uid=${uid}&channel=push&provider=fcm&wait=100`);
    const ids = notifications.map((n: any) => String(n.messageId));
    if (ids.includes(id)) return ids;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no push of message ${id} to ${uid}`);
}

const say = async (text: string, receiver = "superhero2", receiverType = "user") =>
  (await rest("POST", "/messages", { receiver, receiverType, data: { text } }, "superhero1")).body.data;
const review = (id: string, status: string) => rest("PATCH", `/moderation/blocked-messages/${id}`, { status }, "superhero5");

/** A webhook for messages and moderation, a phone for superhero2, and a rule that blocks "darn". */
async function setUp() {
  await management("/webhooks", { id: "hook", name: "Hook", webhookURL: rx.url });
  await management("/webhooks/hook/triggers", { triggerIds: ["message_sent", "moderation_engine_blocked", "moderation_manual_approved"] });
  const fcm = { providerId: "fcm-main", serviceAccountCreds: { project_id: "p1", client_email: "sa@p1.test", private_key: "key0123456789" } };
  expect((await rest("POST", "/notifications/push/v1/providers/fcm", fcm)).status).toBe(200);
  const authToken = (await rest("POST", "/users/superhero2/auth_tokens", { force: true })).body.data.authToken;
  expect((await rest("POST", "/notifications/push/v1/tokens", { platform: "fcm_android", fcmToken: "phone", authToken })).status).toBe(200);
  expect((await rest("POST", "/moderation/keywords", { id: "banned", name: "Banned", searchTerms: ["darn"] })).status).toBe(200);
  const rule = { id: "no-banned", name: "No banned words", enabled: true, conditions: [{ operand: "text", category: "word", isKeywordsReferencePresent: true, value: ["banned"] }] };
  expect((await rest("POST", "/moderation/rules", rule)).status).toBe(200);
}

describe("a held message on the delivery channels", () => {
  it("one-on-one: no frame, webhook or push until approved; approval delivers all three", async () => {
    await setUp();
    const bob = await connect("superhero2");
    const held = await say("well darn it");
    expect(held.data.moderation.status).toBe("disapproved");
    const marker = await say("clean one");

    await bob.next(text("clean one"));
    expect(bob.frames.filter((f) => f.type === "message").map((f) => f.body.data.text)).toEqual(["clean one"]);
    expect((await delivered("message_sent", 1)).map((d) => d.message.id)).toEqual([marker.id]);
    const [blocked] = await delivered("moderation_engine_blocked", 1);
    expect(blocked).toMatchObject({ message: { id: held.id, data: { moderation: { status: "disapproved" } } }, moderation: [{ rule: { id: "no-banned" } }] });
    expect(await pushedIds("superhero2", marker.id)).toEqual([marker.id]);

    expect((await review(held.id, "approved")).status).toBe(200);
    const frame = await bob.next(text("well darn it"));
    expect(frame.body).toMatchObject({ id: held.id, sender: "superhero1", data: { moderation: { status: "approved" } } });
    expect((await delivered("message_sent", 2)).map((d) => d.message.id)).toEqual([marker.id, held.id]);
    const [approved] = await delivered("moderation_manual_approved", 1);
    expect(approved).toMatchObject({ message: { id: held.id, data: { text: "well darn it" } }, reviewedBy: "superhero5" });
    expect(await pushedIds("superhero2", held.id)).toEqual([marker.id, held.id]);
    bob.ws.close();
  });

  it("group: a rejected message stays off every channel; the rejection is recorded with who and when", async () => {
    await setUp();
    const bob = await connect("superhero2");
    const held = await say("darn group", "supergroup", "group");
    expect((await review(held.id, "rejected")).status).toBe(200);
    const marker = await say("clean group", "supergroup", "group");

    await bob.next(text("clean group"));
    expect(bob.frames.filter((f) => f.type === "message").map((f) => f.body.data.text)).toEqual(["clean group"]);
    expect((await delivered("message_sent", 1)).map((d) => d.message.id)).toEqual([marker.id]);
    expect(await pushedIds("superhero2", marker.id)).toEqual([marker.id]);
    const { deliveries } = await control("GET", "/webhooks/deliveries?trigger=moderation_manual_approved");
    expect(deliveries).toEqual([]);

    const queue = (await rest("GET", "/moderation/blocked-messages?status=rejected")).body.data;
    expect(queue).toEqual([expect.objectContaining({ status: "rejected", reviewedBy: "superhero5", reviewedAt: expect.any(Number), message: expect.objectContaining({ id: held.id }) })]);
    const messages = (await rest("GET", "/groups/supergroup/messages?limit=100", undefined, "superhero2")).body.data;
    expect(messages.map((m: any) => m.id)).not.toContain(held.id);
    bob.ws.close();
  });
  it("an edit held back reaches nobody's socket until approved", async () => {
    await setUp();
    const bob = await connect("superhero2");
    const sent = await say("fine words");
    await bob.next(text("fine words"));
    const edit = await rest("PUT", `/messages/${sent.id}`, { data: { text: "darn words" } }, "superhero1");
    expect(edit.body.data.data.moderation.status).toBe("disapproved");
    await say("clean one");
    await bob.next(text("clean one"));
    expect(bob.frames.filter((f) => f.type === "message").map((f) => f.body.data?.text ?? f.body.data?.action)).toEqual(["fine words", "clean one"]);

    expect((await review(sent.id, "approved")).status).toBe(200);
    const edited = await bob.next((f) => f.type === "message" && f.body.data?.action === "edited");
    expect(edited.body.data.entities.on.entity).toMatchObject({ id: sent.id, data: { text: "darn words", moderation: { status: "approved" } } });
    bob.ws.close();
  });
});
