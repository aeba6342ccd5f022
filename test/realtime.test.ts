import { describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { APP_ID, surveyForm } from "./helpers.js";
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

    // No jwt, a jwt that is not one, and frames that are not JSON objects: refused or ignored, never a crash.
    for (const auth of [undefined, "not-a-jwt", 42]) {
      const ws = new WebSocket(url().replace(/^http/, "ws"));
      const replied = new Promise<any>((resolve) => ws.on("message", (d) => resolve(JSON.parse(d.toString()))));
      const shut = new Promise<number>((resolve) => ws.on("close", resolve));
      await new Promise((r) => ws.once("open", r));
      ws.send("{not json");
      ws.send("[1,2]");
      ws.send(JSON.stringify({ type: "typing_indicator", receiver: "superhero1", receiverType: "user", body: {} }));
      ws.send(JSON.stringify({ type: "auth", body: { auth } }));
      expect((await replied).body).toMatchObject({ status: "ERROR", code: "401", message: expect.any(String) });
      expect(await shut).toBe(1008);
    }
    await none(a, (f) => f.type === "typing_indicator");

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

  it("deleting or flushing an auth token closes the sockets opened with it, and them only (1008)", async () => {
    const a = await connect("superhero1");
    const b = await connect("superhero1");
    const other = await connect("superhero2");
    expect((await rest("DELETE", `/users/superhero1/auth_tokens/${a.token}`)).status).toBe(200);
    expect(await a.closed).toBe(1008);
    // b's token lives: it still receives the user's messages.
    await rest("POST", "/messages", { receiver: "superhero1", receiverType: "user", data: { text: "still here" } }, "superhero2");
    await b.next(text("still here"));
    expect((await rest("DELETE", "/users/superhero1/auth_tokens")).status).toBe(200);
    expect(await b.closed).toBe(1008);
    const sessions = (await (await fetch(`${url()}/_emulator/sessions`)).json()).sessions;
    expect(sessions.map((s: any) => s.uid)).toEqual(["superhero2"]);
    expect(other.ws.readyState).toBe(WebSocket.OPEN);
    // The SDK's next call with the deleted token: AUTH_ERR_AUTH_TOKEN_NOT_FOUND, on which it logs out.
    expect((await a.api("GET", "/me")).body.error.code).toBe("AUTH_ERR_AUTH_TOKEN_NOT_FOUND");
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

describe("realtime: fault rules on socket auths", () => {
  /** A socket that presents `jwt`: what it is answered, and how it closes. */
  async function attempt(jwt: string) {
    const ws = new WebSocket(url().replace(/^http/, "ws"));
    const replies: any[] = [];
    ws.on("message", (d) => replies.push(JSON.parse(d.toString())));
    const closed = new Promise<number>((resolve) => ws.on("close", resolve));
    ws.on("error", () => {});
    await new Promise((r) => ws.once("open", r));
    ws.send(JSON.stringify({ type: "auth", body: { auth: jwt } }));
    return { ws, replies, closed };
  }
  const addRule = async (rule: unknown) => {
    const res = await fetch(`${url()}/_emulator/rules`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(rule) });
    expect(res.status).toBe(201);
    return (await res.json()).id as string;
  };

  it("drop, refuse or delay the next auths of a matching app, then let them through; HTTP rules leave sockets alone", async () => {
    const a = await connect("superhero1");
    await addRule({ effect: { status: 503 } }); // every HTTP request, but no socket
    const reset = await addRule({ match: { method: "ws", appId: APP_ID }, effect: { reset: true }, times: 1 });
    const refused = await addRule({ match: { method: "WS", plane: "client" }, effect: { status: 429, code: "ERR_TOO_MANY_REQUESTS", message: "slow down" }, times: 1 });
    const dropped = await attempt(a.jwt);
    expect(await dropped.closed).toBe(1006);
    expect(dropped.replies).toEqual([]);
    const refusedNow = await attempt(a.jwt);
    expect(await refusedNow.closed).toBe(1008);
    expect(refusedNow.replies).toEqual([{ type: "auth", body: { status: "ERROR", code: "429", message: "slow down" } }]);
    await addRule({ match: { method: "WS" }, effect: { latencyMs: 150 }, times: 1 });
    const started = Date.now();
    const late = await attempt(a.jwt);
    await new Promise<void>((resolve) => late.ws.on("message", () => resolve()));
    expect(late.replies[0].body).toEqual({ status: "OK", code: "200" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    late.ws.close();
    const journal = (await (await fetch(`${url()}/_emulator/requests?method=WS`)).json()).requests;
    const auths = journal.filter((e: any) => e.requestBody.event === "auth" && e.rules.length > 0);
    expect(auths.map((e: any) => [e.status, e.rules])).toEqual(expect.arrayContaining([[null, [reset]], [429, [refused]]]));
    // A bad rule is refused whole.
    const bad = await fetch(`${url()}/_emulator/rules`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ match: { method: "SOCKET" }, effect: { reset: true } }) });
    expect(bad.status).toBe(400);
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
    // Every session of each party gets it: B's second tab, and A's own other tab (the sending tab drops its echo by deviceId).
    const bTab = await connect("superhero2");
    const aTab = await connect("superhero1");
    const mine = await a.api("POST", "/messages", { receiver: "superhero2", receiverType: "user", category: "message", type: "text", data: { text: "from A" } });
    expect((await b.next(text("from A"))).deviceId).toBe(a.deviceId);
    expect((await bTab.next(text("from A"))).deviceId).toBe(a.deviceId);
    expect((await aTab.next(text("from A"))).deviceId).toBe(a.deviceId);
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

  it("sends thread replies, adds, scope changes, bans, unbans and leaves to the members and the member they are about", async () => {
    const owner = await connect("superhero1");
    const member = await connect("superhero3");
    const newcomer = await connect("superhero5");
    const action = (name: string, sender = "superhero1") => (f: any) => f.type === "message" && f.body?.data?.action === name && f.sender === sender;
    const parent = await owner.api("POST", "/messages", { receiver: "supergroup", receiverType: "group", category: "message", type: "text", data: { text: "parent" } });
    const sent = await owner.api("POST", `/messages/${parent.body.data.id}/thread`, { receiver: "supergroup", receiverType: "group", category: "message", type: "text", data: { text: "reply" } });
    expect(sent.status).toBe(200);
    const reply = await member.next(text("reply"));
    expect(reply).toMatchObject({ receiver: "supergroup", receiverType: "group", sender: "superhero1", deviceId: owner.deviceId, body: { id: sent.body.data.id, parentId: parent.body.data.id } });
    await none(newcomer, text("reply"));

    await owner.api("PUT", "/groups/supergroup/members", { participants: ["superhero5"] });
    const added = await newcomer.next(action("added"));
    expect(added.body).toMatchObject({ category: "action", type: "groupMember", data: { entities: { on: { entity: { uid: "superhero5" } } } } });
    await member.next(action("added"));
    await owner.api("PUT", "/groups/supergroup/members/superhero5", { scope: "moderator" });
    const scope = await newcomer.next(action("scopeChanged"));
    expect(scope.body.data.extras.scope).toEqual({ new: "moderator", old: "participant" });
    await member.next(action("scopeChanged"));

    await owner.api("POST", "/groups/supergroup/bannedusers/superhero5", {});
    await newcomer.next(action("banned"));
    await member.next(action("banned"));
    await rest("POST", "/messages", { receiver: "supergroup", receiverType: "group", category: "message", type: "text", data: { text: "after the ban" } }, "superhero1");
    await member.next(text("after the ban"));
    await none(newcomer, text("after the ban"));
    await owner.api("DELETE", "/groups/supergroup/bannedusers/superhero5");
    await newcomer.next(action("unbanned"));
    await member.next(action("unbanned"));

    await member.api("DELETE", "/groups/supergroup/members");
    const left = await owner.next(action("left", "superhero3"));
    expect(left.deviceId).toBe(member.deviceId);
  });

  // sdk/javascript/delivery-read-receipts.mdx, all-real-time-listeners.mdx: onMessagesDeliveredToAll "triggered when
  // a group message is delivered to all members", onMessagesReadByAll when it is read by all.
  it("tells a group message's sender once it is delivered to all and read by all members", async () => {
    const a = await connect("superhero1");
    const b = await connect("superhero2");
    const c = await connect("superhero3");
    const sent = await a.api("POST", "/messages", { receiver: "supergroup", receiverType: "group", category: "message", type: "text", data: { text: "to all" } });
    const id = sent.body.data.id;
    const all = (action: string) => (f: any) => f.type === "receipts" && f.body.action === action && f.body.messageId === id;
    await b.api("POST", "/groups/supergroup/conversation/delivered", { messageId: id });
    await a.next((f) => all("delivered")(f) && f.sender === "superhero2");
    await none(a, all("deliveredToAll"));
    await c.api("POST", "/groups/supergroup/conversation/delivered", { messageId: id });
    const delivered = await a.next(all("deliveredToAll"));
    expect(delivered).toMatchObject({ appId: APP_ID, receiver: "supergroup", receiverType: "group", type: "receipts", body: { action: "deliveredToAll", messageId: id, user: { uid: "superhero3" }, timestamp: expect.any(Number) } });
    await b.api("POST", "/groups/supergroup/conversation/read", { messageId: id });
    await none(a, all("readByAll"));
    await c.api("POST", "/groups/supergroup/conversation/read", { messageId: id });
    await a.next(all("readByAll"));
    // Once each, and only to the sender.
    await c.api("POST", "/groups/supergroup/conversation/read", { messageId: id });
    await none(b, all("readByAll"));
    expect([a.frames.filter(all("deliveredToAll")).length, a.frames.filter(all("readByAll")).length]).toEqual([1, 1]);
  });

  // sdk/javascript/interactive-messages.mdx: onInteractionGoalCompleted when a user's interactions meet the goal.
  it("tells an interactive message's sender and the interacting user when the goal is completed, once", async () => {
    const a = await connect("superhero1");
    const b = await connect("superhero2");
    const c = await connect("superhero3");
    const form = surveyForm("superhero2");
    const goal = { type: "anyOf", elementIds: ["submit"] };
    const sent = await a.api("POST", "/messages", { ...form, data: { ...form.data, interactionGoal: goal } });
    const id = sent.body.data.id;
    const completed = (f: any) => f.type === "interaction_completed" && f.body.messageId === id;
    expect((await b.api("PATCH", `/messages/${id}/interacted`, { interactions: ["name"] })).status).toBe(200);
    await none(a, completed);
    expect((await b.api("PATCH", `/messages/${id}/interacted`, { interactions: ["submit"] })).status).toBe(200);
    const frame = await a.next(completed);
    expect(frame).toMatchObject({
      appId: APP_ID,
      receiver: "superhero2",
      receiverType: "user",
      sender: "superhero2",
      messageSender: "superhero1",
      type: "interaction_completed",
      body: { messageId: id, user: { uid: "superhero2" }, interactions: [{ elementId: "name" }, { elementId: "submit" }] },
    });
    await b.next(completed);
    await b.api("PATCH", `/messages/${id}/interacted`, { interactions: ["submit"] });
    await none(c, completed);
    expect(a.frames.filter(completed)).toHaveLength(1);
  });

  // sdk/javascript/ai-moderation.mdx: a message "is held in a PENDING state while the moderation service analyzes
  // it, then marked as APPROVED or DISAPPROVED via the onMessageModerated event".
  it("answers the SDK's send of a screened message as pending, then tells its sender the verdict", async () => {
    const rule = { id: "no-darn", name: "No darn", enabled: true, action: ["blockMessage"], conditions: [{ entity: "message", operand: "text", operator: "contains", category: "word", value: ["darn"] }] };
    expect((await rest("POST", "/moderation/rules", rule)).status).toBe(200);
    const a = await connect("superhero1");
    const b = await connect("superhero2");
    const send = (text: string) => a.api("POST", "/messages", { receiver: "superhero2", receiverType: "user", category: "message", type: "text", data: { text } });
    const verdict = (id: string) => (f: any) => f.type === "on_moderation_status_changed" && f.body.id === id;
    for (const [text, status] of [["well darn it", "disapproved"], ["all fine", "approved"]] as const) {
      const sent = await send(text);
      expect(sent.status).toBe(200);
      expect(sent.body.data.data.moderation).toEqual({ status: "pending" });
      const frame = await a.next(verdict(sent.body.data.id));
      expect(frame).toMatchObject({ appId: APP_ID, sender: "superhero1", receiver: "superhero2", body: { id: sent.body.data.id, data: { text, moderation: { status } } } });
      await none(b, verdict(sent.body.data.id));
    }
    // A REST (apikey) send answers the verdict at once, as the REST examples show.
    const byKey = await rest("POST", "/messages", { receiver: "superhero2", receiverType: "user", data: { text: "darn" } }, "superhero1");
    expect(byKey.body.data.data.moderation.status).toBe("disapproved");
  });

  it("tells the sender of deliveries, marked over the client plane or the socket, and nobody else", async () => {
    const a = await connect("superhero1");
    const b = await connect("superhero2");
    const c = await connect("superhero3");
    const first = await a.api("POST", "/messages", { receiver: "superhero2", receiverType: "user", category: "message", type: "text", data: { text: "one" } });
    await b.api("POST", "/users/superhero1/conversation/delivered", { messageId: first.body.data.id });
    const viaRest = await a.next((f) => f.type === "receipts" && f.body.action === "delivered");
    expect(viaRest).toMatchObject({ appId: APP_ID, sender: "superhero2", deviceId: b.deviceId, body: { messageId: first.body.data.id, user: { uid: "superhero2" } } });
    const second = await a.api("POST", "/messages", { receiver: "superhero2", receiverType: "user", category: "message", type: "text", data: { text: "two" } });
    b.ws.send(JSON.stringify({ receiver: "superhero1", receiverType: "user", type: "receipts", body: { action: "delivered", messageId: second.body.data.id } }));
    await a.next((f) => f.type === "receipts" && f.body.action === "delivered" && f.body.messageId === second.body.data.id);
    const conv = await rest("GET", "/users/superhero2/conversation", undefined, "superhero1");
    expect(conv.body.data.lastMessage).toMatchObject({ id: second.body.data.id, deliveredAt: expect.any(Number) });
    await none(b, (f) => f.type === "receipts");
    await none(c, (f) => f.type === "receipts");
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
    expect((await rest("POST", "/users", { uid: "blocked6", name: "Blocked" })).status).toBe(200);
    await rest("POST", "/users/superhero2/blockedusers", { blockedUids: ["blocked6"] });
    const blocked = await connect("blocked6");
    await rest("POST", "/users/superhero4/friends", { accepted: ["superhero2"] });
    const friend = await connect("superhero4", { presence: "FRIENDS" });
    const unsubscribed = await connect("superhero5", { presence: "NONE" });
    const b = await connect("superhero2");
    const online = await watcher.next((f) => f.type === "presence" && f.sender === "superhero2");
    await friend.next((f) => f.type === "presence" && f.sender === "superhero2" && f.body.action === "online");
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
    await none(unsubscribed, (f) => f.type === "presence");
    await none(blocked, (f) => f.type === "presence" && f.sender === "superhero2");
    await friend.next((f) => f.type === "presence" && f.sender === "superhero2" && f.body.action === "offline");
  });
});
