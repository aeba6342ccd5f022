import { describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { APP_ID } from "./helpers.js";
import { text, useSocketServer } from "./realtime.helpers.js";

/** Protocol tests with a plain WebSocket client, against a real server (what the SDK does, frame by frame). */

const { url, CLIENT, rest, connect, none } = useSocketServer();

describe("realtime: the socket", () => {
  it("authenticates with the jwt, answers ping with pong, and refuses bad jwts and other paths", async () => {
    const a = await connect("superhero1");
    a.ws.send(JSON.stringify({ action: "ping", ack: "true" }));
    expect(await a.next((f) => f.action === "pong")).toEqual({ action: "pong" });

    const bad = new WebSocket(url().replace(/^http/, "ws"));
    const reply = new Promise<any>((resolve) => bad.on("message", (d) => resolve(JSON.parse(d.toString()))));
    const closed = new Promise<number>((resolve) => bad.on("close", resolve));
    await new Promise((r) => bad.once("open", r));
    bad.send(JSON.stringify({ appId: APP_ID, type: "auth", sender: "superhero1", body: { auth: a.jwt.slice(0, -2) + "xx" } }));
    expect((await reply).body).toMatchObject({ status: "ERROR", code: "401" });
    expect(await closed).toBe(1008);

    const elsewhere = new WebSocket(`${url().replace(/^http/, "ws")}/chat`);
    const failed = await new Promise<string>((resolve) => elsewhere.on("error", (e) => resolve(e.message)));
    expect(failed).toMatch(/404/);

    // A token deleted after login makes its jwt useless.
    await rest("DELETE", `/users/superhero2/auth_tokens`);
    const minted = await rest("POST", `/users/superhero2/auth_tokens`, {});
    const res = await fetch(`${CLIENT()}/me`, { method: "PUT", headers: { appid: APP_ID, authtoken: minted.body.data.authToken, "content-type": "application/json" }, body: "{}" });
    const { jwt } = (await res.json()).data;
    await rest("DELETE", `/users/superhero2/auth_tokens/${minted.body.data.authToken}`);
    const stale = new WebSocket(url().replace(/^http/, "ws"));
    const staleClosed = new Promise<number>((resolve) => stale.on("close", resolve));
    await new Promise((r) => stale.once("open", r));
    stale.send(JSON.stringify({ type: "auth", body: { auth: jwt } }));
    expect(await staleClosed).toBe(1008);
  });

  it("lists sessions, closes a user's sockets on request, and journals connects, auths and closes", async () => {
    const a = await connect("superhero1");
    const listed = await (await fetch(`${url()}/_emulator/sessions?uid=superhero1`)).json();
    expect(listed.sessions).toEqual([expect.objectContaining({ appId: APP_ID, uid: "superhero1", deviceId: a.deviceId, platform: "WEB", since: expect.any(String) })]);
    const closed = await (await fetch(`${url()}/_emulator/sessions?uid=superhero1`, { method: "DELETE" })).json();
    expect(closed).toEqual({ closed: 1 });
    expect(await a.closed).toBe(1001);
    const journal = (await (await fetch(`${url()}/_emulator/requests?method=WS`)).json()).requests;
    const events = journal.map((e: any) => e.requestBody.event);
    expect(events).toEqual(expect.arrayContaining(["connect", "auth", "close"]));
    const auth = journal.find((e: any) => e.requestBody.event === "auth");
    expect(auth).toMatchObject({ plane: "client", appId: APP_ID, status: 200 });
    expect(auth.requestBody.body.auth).toContain("*");
    const frames = await (await fetch(`${url()}/_emulator/realtime/frames`)).json();
    expect(frames.frames).toEqual(expect.any(Array));
  });
});

describe("realtime: events reach who may see them", () => {
  it("pushes messages from any plane, edits, deletes, reactions and receipts to both parties", async () => {
    const a = await connect("superhero1");
    const b = await connect("superhero2");
    const c = await connect("superhero3");
    // A backend's REST send reaches both sides (no device to skip).
    const sent = await rest("POST", "/messages", { receiver: "superhero2", receiverType: "user", category: "message", type: "text", data: { text: "from backend" } }, "superhero1");
    const atB = await b.next(text("from backend"));
    expect(atB).toMatchObject({ appId: APP_ID, receiver: "superhero2", receiverType: "user", sender: "superhero1", type: "message" });
    expect(atB.body).toMatchObject({ id: sent.body.data.id, sender: "superhero1", category: "message" });
    expect(atB.deviceId).toBeUndefined();
    await a.next(text("from backend"));
    // A client-plane send names the sending device, so that session can drop its own echo.
    const mine = await a.api("POST", "/messages", { receiver: "superhero2", receiverType: "user", category: "message", type: "text", data: { text: "from A" } });
    expect((await b.next(text("from A"))).deviceId).toBe(a.deviceId);
    const id = mine.body.data.id;
    await a.api("PUT", `/messages/${id}`, { data: { text: "edited" } });
    const edit = await b.next((f) => f.body?.category === "action" && f.body?.data?.action === "edited");
    expect(edit.body.data.entities.on.entity).toMatchObject({ id, data: { text: "edited" } });
    await a.api("POST", `/messages/${id}/reactions/👍`);
    const reaction = await b.next((f) => f.type === "reaction");
    expect(reaction).toMatchObject({ sender: "superhero1", deviceId: a.deviceId, body: { action: "message_reaction_added", messageId: id, reaction: "👍", uid: "superhero1" } });
    await a.api("DELETE", `/messages/${id}/reactions/👍`);
    await b.next((f) => f.type === "reaction" && f.body.action === "message_reaction_removed");
    await a.api("DELETE", `/messages/${id}`);
    await b.next((f) => f.body?.data?.action === "deleted");
    // B reads over the REST plane of the client: A hears the receipt.
    await b.api("POST", "/users/superhero1/conversation/read", { messageId: id });
    const receipt = await a.next((f) => f.type === "receipts" && f.body.action === "read");
    expect(receipt).toMatchObject({ sender: "superhero2", deviceId: b.deviceId, messageSender: "superhero1", body: { messageId: id, user: { uid: "superhero2" } } });
    // C is no party to any of it.
    await none(c, (f) => f.type !== "presence" && f.type !== "auth");
  });

  it("takes receipts over the socket as the SDK sends them, and records them", async () => {
    const a = await connect("superhero1");
    const b = await connect("superhero2");
    const sent = await a.api("POST", "/messages", { receiver: "superhero2", receiverType: "user", category: "message", type: "text", data: { text: "read me" } });
    const id = sent.body.data.id;
    b.ws.send(JSON.stringify({ appId: APP_ID, receiver: "superhero1", receiverType: "user", deviceId: b.deviceId, type: "receipts", sender: "superhero2", messageSender: "superhero1", body: { action: "read", messageId: id, user: { uid: "superhero2" } } }));
    const receipt = await a.next((f) => f.type === "receipts" && f.body.action === "read");
    expect(receipt).toMatchObject({ receiver: "superhero1", receiverType: "user", sender: "superhero2", body: { messageId: id } });
    const conv = await rest("GET", "/users/superhero1/conversation", undefined, "superhero2");
    expect(conv.body.data.unreadMessageCount).toBe("0");
    // A receipt for a message the reader cannot see is ignored.
    const c = await connect("superhero3");
    c.ws.send(JSON.stringify({ receiver: "superhero1", receiverType: "user", type: "receipts", body: { action: "read", messageId: id } }));
    await none(a, (f) => f.type === "receipts" && f.sender === "superhero3");
  });

  it("sends group messages and member actions to members, not outsiders; a kicked member hears of the kick", async () => {
    const owner = await connect("superhero1");
    const member = await connect("superhero3");
    const outsider = await connect("superhero5");
    await rest("POST", "/messages", { receiver: "supergroup", receiverType: "group", category: "message", type: "text", data: { text: "to the group" } }, "superhero2");
    await owner.next(text("to the group"));
    await member.next(text("to the group"));
    await none(outsider, text("to the group"));
    await owner.api("DELETE", "/groups/supergroup/members/superhero3");
    const kicked = await member.next((f) => f.body?.data?.action === "kicked");
    expect(kicked).toMatchObject({ receiver: "supergroup", receiverType: "group", body: { category: "action", type: "groupMember" } });
    await owner.next((f) => f.body?.data?.action === "kicked");
    await rest("POST", "/messages", { receiver: "supergroup", receiverType: "group", category: "message", type: "text", data: { text: "after the kick" } }, "superhero1");
    await owner.next(text("after the kick"));
    await none(member, text("after the kick"));
    await outsider.api("POST", "/groups/supergroup/members", {});
    await owner.next((f) => f.body?.data?.action === "joined" && f.sender === "superhero5");
  });

  it("pushes call messages of a recorded call to its parties", async () => {
    const a = await connect("superhero4");
    const b = await connect("superhero5");
    const res = await fetch(`${url()}/_emulator/apps/${APP_ID}/calls`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ initiator: "superhero4", receiver: "superhero5", receiverType: "user", type: "video", status: "ended", participants: [{ uid: "superhero4", state: "ended" }, { uid: "superhero5", state: "ended" }] }),
    });
    expect(res.status).toBe(201);
    for (const action of ["initiated", "ongoing", "ended"]) {
      await a.next((f) => f.body?.category === "call" && f.body?.data?.action === action);
      await b.next((f) => f.body?.category === "call" && f.body?.data?.action === action);
    }
  });
});

describe("realtime: relays and presence", () => {
  it("relays typing and transient messages to the other party, never back to the sender, not across blocks", async () => {
    const a = await connect("superhero1");
    const b = await connect("superhero2");
    const c = await connect("superhero3");
    a.ws.send(JSON.stringify({ appId: APP_ID, receiver: "superhero2", receiverType: "user", deviceId: a.deviceId, type: "typing_indicator", sender: "superhero1", body: { action: "started", user: { uid: "forged" } } }));
    const typing = await b.next((f) => f.type === "typing_indicator");
    expect(typing).toMatchObject({ receiver: "superhero2", receiverType: "user", sender: "superhero1", deviceId: a.deviceId, body: { action: "started", user: { uid: "superhero1" } } });
    a.ws.send(JSON.stringify({ receiver: "supergroup", receiverType: "group", type: "transient_message", body: { data: { live: 1 } } }));
    await c.next((f) => f.type === "transient_message" && f.body.data.live === 1);
    await b.next((f) => f.type === "transient_message");
    await none(a, (f) => f.type === "typing_indicator" || f.type === "transient_message");
    await rest("POST", "/users/superhero2/blockedusers", { blockedUids: ["superhero1"] });
    a.ws.send(JSON.stringify({ receiver: "superhero2", receiverType: "user", type: "typing_indicator", body: { action: "ended" } }));
    await none(b, (f) => f.type === "typing_indicator" && f.body.action === "ended");
  });

  it("makes a user available while a session lives and tells subscribers when they come and go", async () => {
    const watcher = await connect("superhero1");
    const friendsOnly = await connect("superhero3", { presence: "FRIENDS" });
    const b = await connect("superhero2");
    const online = await watcher.next((f) => f.type === "presence" && f.sender === "superhero2");
    expect(online).toMatchObject({ type: "presence", body: { action: "online", user: { uid: "superhero2", status: "available" } } });
    expect((await rest("GET", "/users/superhero2")).body.data.status).toBe("available");
    const second = await connect("superhero2");
    b.ws.close();
    await b.closed;
    await none(watcher, (f) => f.type === "presence" && f.body.action === "offline");
    expect((await rest("GET", "/users/superhero2")).body.data.status).toBe("available");
    await second.api("DELETE", "/me");
    const offline = await watcher.next((f) => f.type === "presence" && f.body.action === "offline");
    expect(offline.body.user).toMatchObject({ uid: "superhero2", status: "offline" });
    expect(await second.closed).toBe(1000);
    expect((await rest("GET", "/users/superhero2")).body.data.status).toBe("offline");
    // superhero3 subscribed to friends only and is no friend of superhero2.
    await none(friendsOnly, (f) => f.type === "presence" && f.sender === "superhero2");
  });
});
