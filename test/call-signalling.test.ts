import { describe, expect, it } from "vitest";
import { APP_ID, REST_KEY } from "./helpers.js";
import { useSocketServer } from "./realtime.helpers.js";

/**
 * The chat SDK's call signalling on the client plane (`POST /calls`, `PUT /calls/{sessionId}`,
 * `PATCH /calls/{sessionId}/type`): each step answers its call message, pushes it to the other side as a
 * `message` frame (what the SDK's call listener hears), leaves it in the conversation, and changes the call the
 * calls plane shows.
 */
const { url, connect, rest } = useSocketServer();

const callFrame = (action: string) => (f: any) => f.type === "message" && f.body?.category === "call" && f.body.data?.action === action;
const sessionOf = (m: any): string => m.data.entities.on.entity.sessionid;

async function callsPlane(path: string) {
  const res = await fetch(`${url()}/${APP_ID}.call-us/v3${path}`, { headers: { apikey: REST_KEY } });
  return { status: res.status, body: await res.json() };
}

describe("one-on-one call: initiate, accept, end", () => {
  it("reaches the other side at each step, leaves three call messages and a call with both participants and its times", async () => {
    const caller = await connect("superhero1");
    const callee = await connect("superhero2");
    const made = await caller.api("POST", "/calls", { receiver: "superhero2", receiverType: "user", type: "video", category: "call", status: "initiated" });
    expect(made.status).toBe(200);
    expect(made.body.data).toMatchObject({ category: "call", type: "video", sender: "superhero1", receiver: "superhero2", data: { action: "initiated" } });
    const sessionId = sessionOf(made.body.data);
    expect(sessionId).toMatch(new RegExp(`^v1\\.us\\.${APP_ID}\\.\\d+[0-9a-f]{40}$`));
    expect(made.body.data.data.entities.on.entity).toMatchObject({ sessionid: sessionId, status: "initiated", type: "video" });

    // onIncomingCallReceived on the callee; the frame names the caller's device, whose SDK drops its own echo.
    const ringing = await callee.next(callFrame("initiated"));
    expect(ringing).toMatchObject({ sender: "superhero1", receiver: "superhero2", receiverType: "user", deviceId: caller.deviceId });
    expect(sessionOf(ringing.body)).toBe(sessionId);

    const accepted = await callee.api("PUT", `/calls/${sessionId}`, { status: "ongoing" });
    expect(accepted.status).toBe(200);
    expect(accepted.body.data.data).toMatchObject({ action: "ongoing", entities: { by: { entity: { uid: "superhero2" } } } });
    // onOutgoingCallAccepted on the caller.
    expect(sessionOf((await caller.next(callFrame("ongoing"))).body)).toBe(sessionId);

    const ended = await caller.api("PUT", `/calls/${sessionId}`, { status: "ended" });
    expect(ended.status).toBe(200);
    expect(ended.body.data.data.action).toBe("ended");
    // onCallEndedMessageReceived on the callee.
    await callee.next(callFrame("ended"));

    const call = await callsPlane(`/calls/${sessionId}`);
    expect(call.status).toBe(200);
    expect(call.body.data).toMatchObject({ sessionId, status: "ended", type: "video", mode: "call", initiator: "superhero1", receiver: "superhero2", totalParticipants: 2 });
    expect(call.body.data.startedAt).toBeGreaterThanOrEqual(call.body.data.initiatedAt);
    expect(call.body.data.endedAt).toBeGreaterThanOrEqual(call.body.data.startedAt);
    expect(call.body.data.participants.map((p: any) => [p.uid, p.state, p.isJoined, typeof p.joinedAt, typeof p.leftAt])).toEqual([
      ["superhero1", "ended", true, "number", "number"],
      ["superhero2", "ended", true, "number", "number"],
    ]);
    const listed = await callsPlane("/calls?uid=superhero2&status=ended");
    expect(listed.body.data.map((k: any) => k.sessionId)).toContain(sessionId);

    const conversation = await rest("GET", "/users/superhero2/messages?categories=call", undefined, "superhero1");
    const mine = conversation.body.data.filter((m: any) => sessionOf(m) === sessionId);
    expect(mine.map((m: any) => m.data.action)).toEqual(["initiated", "ongoing", "ended"]);
  });
});

describe("calls that never start", () => {
  it("rejected by the callee, cancelled by the caller, busy, unanswered: each reaches the other side and ends the call so", async () => {
    const caller = await connect("superhero1");
    const callee = await connect("superhero2");
    const start = async () => sessionOf((await caller.api("POST", "/calls", { receiver: "superhero2", receiverType: "user", type: "audio" })).body.data);

    const rejected = await start();
    expect((await callee.api("PUT", `/calls/${rejected}`, { status: "rejected" })).status).toBe(200);
    await caller.next((f) => callFrame("rejected")(f) && sessionOf(f.body) === rejected); // onOutgoingCallRejected
    const cancelled = await start();
    expect((await caller.api("PUT", `/calls/${cancelled}`, { status: "cancelled" })).status).toBe(200);
    await callee.next((f) => callFrame("cancelled")(f) && sessionOf(f.body) === cancelled); // onIncomingCallCancelled
    const busy = await start();
    expect((await callee.api("PUT", `/calls/${busy}`, { status: "busy" })).status).toBe(200);
    await caller.next((f) => callFrame("busy")(f) && sessionOf(f.body) === busy);
    const unanswered = await start();
    expect((await caller.api("PUT", `/calls/${unanswered}`, { status: "unanswered" })).status).toBe(200);
    await callee.next((f) => callFrame("unanswered")(f) && sessionOf(f.body) === unanswered);

    const statuses = Object.fromEntries(
      await Promise.all([rejected, cancelled, busy, unanswered].map(async (s) => [s, (await callsPlane(`/calls/${s}`)).body.data.status])),
    );
    expect([rejected, cancelled, busy, unanswered].map((s) => statuses[s])).toEqual(["rejected", "canceled", "rejected", "unanswered"]);
    const r = (await callsPlane(`/calls/${rejected}`)).body.data;
    expect(r.totalParticipants).toBe(0);
    expect(r.participants.find((p: any) => p.uid === "superhero2")).toMatchObject({ state: "rejected", isJoined: false });
  });

  it("refuses what the call's state or the actor's side does not allow, with the platform's codes, changing nothing", async () => {
    const caller = await connect("superhero1");
    const callee = await connect("superhero2");
    const stranger = await connect("superhero3");
    const expectError = (r: { status: number; body: any }, status: number, code: string) => {
      expect(r.status).toBe(status);
      expect(r.body.error.code).toBe(code);
    };
    expectError(await caller.api("POST", "/calls", { receiver: "superhero1", receiverType: "user", type: "audio" }), 400, "ERR_CALLING_SELF");
    expectError(await caller.api("POST", "/calls", { receiver: "nobody", receiverType: "user", type: "audio" }), 404, "ERR_UID_NOT_FOUND");
    expectError(await caller.api("POST", "/calls", { receiver: "superhero2", receiverType: "user", type: "hologram" }), 400, "ERR_BAD_REQUEST");
    expectError(await caller.api("POST", "/calls", { receiverType: "user", type: "audio" }), 400, "ERR_BAD_REQUEST");
    expectError(await caller.api("PUT", "/calls/v1.us.nosuchcall", { status: "ended" }), 404, "ERR_CALL_SESSION_NOT_FOUND");

    const sessionId = sessionOf((await caller.api("POST", "/calls", { receiver: "superhero2", receiverType: "user", type: "audio" })).body.data);
    expectError(await stranger.api("PUT", `/calls/${sessionId}`, { status: "ongoing" }), 403, "ERR_CALL_NOT_A_PART");
    expectError(await caller.api("PUT", `/calls/${sessionId}`, { status: "ended" }), 400, "ERR_CALL_NOT_STARTED");
    expectError(await callee.api("PUT", `/calls/${sessionId}`, { status: "cancelled" }), 400, "ERR_CALL_INVALID_INIT");
    expectError(await caller.api("PUT", `/calls/${sessionId}`, { status: "ongoing" }), 400, "ERR_CALL_INVALID_INIT");
    expectError(await callee.api("PUT", `/calls/${sessionId}`, { status: "paused" }), 400, "ERR_BAD_REQUEST");
    expect((await callsPlane(`/calls/${sessionId}`)).body.data.status).toBe("initiated");

    expect((await callee.api("PUT", `/calls/${sessionId}`, { status: "ongoing" })).status).toBe(200);
    expectError(await callee.api("PUT", `/calls/${sessionId}`, { status: "ongoing" }), 400, "ERR_CALL_USER_ALREADY_JOINED");
    expectError(await callee.api("PUT", `/calls/${sessionId}`, { status: "rejected" }), 400, "ERR_CALL_ONGOING_TO_INVALID");
    // updateCallType: an audio call switched to video.
    const switched = await caller.api("PATCH", `/calls/${sessionId}/type`, { type: "video" });
    expect(switched.status).toBe(200);
    expect(switched.body.data).toMatchObject({ sessionId, type: "video", status: "ongoing" });
    expectError(await caller.api("PATCH", `/calls/${sessionId}/type`, { type: "3d" }), 400, "ERR_BAD_REQUEST");
    expect((await callee.api("PUT", `/calls/${sessionId}`, { status: "ended" })).status).toBe(200);
    expectError(await caller.api("PUT", `/calls/${sessionId}`, { status: "ended" }), 400, "ERR_CALL_TERMINATED");
    expectError(await caller.api("PATCH", `/calls/${sessionId}/type`, { type: "audio" }), 400, "ERR_CALL_TERMINATED");
    expect((await callsPlane(`/calls/${sessionId}`)).body.data).toMatchObject({ status: "ended", type: "video" });
  });
});

describe("group call", () => {
  it("rings the members; each who joins is a participant and the initiator hears it; a non-member cannot call the group", async () => {
    const caller = await connect("superhero1");
    const member = await connect("superhero2");
    const made = await caller.api("POST", "/calls", { receiver: "supergroup", receiverType: "group", type: "audio" });
    expect(made.status).toBe(200);
    const sessionId = sessionOf(made.body.data);
    await member.next((f) => callFrame("initiated")(f) && f.receiverType === "group");
    expect((await member.api("PUT", `/calls/${sessionId}`, { status: "ongoing" })).status).toBe(200);
    await caller.next(callFrame("ongoing"));
    const call = (await callsPlane(`/calls/${sessionId}`)).body.data;
    expect(call).toMatchObject({ status: "ongoing", receiverType: "group", receiver: "supergroup", totalParticipants: 2 });
    expect(call.participants.map((p: any) => p.uid).sort()).toEqual(["superhero1", "superhero2"]);
    expect((await callsPlane("/calls?uid=superhero2")).body.data.map((k: any) => k.sessionId)).toContain(sessionId);

    await rest("DELETE", "/groups/supergroup/members/superhero4");
    const outsider = await connect("superhero4");
    const refused = await outsider.api("POST", "/calls", { receiver: "supergroup", receiverType: "group", type: "audio" });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("ERR_GROUP_NOT_JOINED");
  });
});

describe("what the calls SDK asks of the calls plane before media", () => {
  it("answers call_tokens and the user's call logs (authToken instead of apikey), with direction and guid filters", async () => {
    const caller = await connect("superhero1");
    const callee = await connect("superhero2");
    const sessionId = sessionOf((await caller.api("POST", "/calls", { receiver: "superhero2", receiverType: "user", type: "audio" })).body.data);
    const calls = async (token: string, method: string, path: string, body?: unknown) => {
      const res = await fetch(`${url()}/${APP_ID}.call-us/v3.0${path}`, {
        method,
        headers: { authToken: token, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    };
    const token = await calls(callee.token, "POST", "/call_tokens", { sessionId });
    expect(token.status).toBe(200);
    expect(token.body.data.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect((await calls(callee.token, "POST", "/call_tokens", {})).body.error.code).toBe("ERR_BAD_REQUEST");

    const incoming = await calls(callee.token, "GET", "/calls?page=1&perPage=30&direction=incoming");
    expect(incoming.status).toBe(200);
    expect(incoming.body.data.map((k: any) => k.sessionId)).toContain(sessionId);
    expect(incoming.body.meta.pagination).toMatchObject({ current_page: 1 });
    expect((await calls(callee.token, "GET", "/calls?direction=outgoing")).body.data.map((k: any) => k.sessionId)).not.toContain(sessionId);
    // getCallDetails maps a list of call logs; the apikey caller keeps the calls API's single call.
    const details = await calls(caller.token, "GET", `/calls/${sessionId}`);
    expect(details.body.data).toEqual([expect.objectContaining({ sessionId, initiator: "superhero1" })]);
    const byKey = await fetch(`${url()}/${APP_ID}.call-us/v3/calls/${sessionId}`, { headers: { apikey: REST_KEY } });
    expect((await byKey.json()).data).toMatchObject({ sessionId, initiator: "superhero1" });
    const stranger = await connect("superhero3");
    expect((await calls(stranger.token, "GET", `/calls/${sessionId}`)).body.error.code).toBe("ERR_CALL_NOT_A_PART");
    expect((await calls("nope", "GET", "/calls")).status).toBe(401);
  });

  it("a call token carries what startSession decodes, and GET call_tokens (callToken header) answers its payload and WEBRTC_HOST", async () => {
    const caller = await connect("superhero1");
    const sessionId = sessionOf((await caller.api("POST", "/calls", { receiver: "superhero2", receiverType: "user", type: "video" })).body.data);
    const base = `${url()}/${APP_ID}.call-us/v3.0`;
    const made = await fetch(`${base}/call_tokens`, { method: "POST", headers: { authToken: caller.token, "content-type": "application/json" }, body: JSON.stringify({ sessionId }) });
    const token = (await made.json()).data.token as string;
    const payload = JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString());
    const data = { appId: APP_ID, region: "us", authToken: caller.token, user: { uid: "superhero1", name: "Iron Man", avatar: expect.any(String) }, sessionId };
    expect(payload).toMatchObject({ data, room: sessionId });

    const verified = await fetch(`${base}/call_tokens`, { headers: { callToken: token } });
    expect(verified.status).toBe(200);
    const body = await verified.json();
    expect(body.data.payload).toMatchObject({ data, room: sessionId });
    expect(body.data.settings).toEqual({ WEBRTC_HOST: new URL(url()).host, PRESENTER_MODE_ENABLED: true });

    for (const bad of ["nope", token.slice(0, -2) + "xx"]) {
      const refused = await fetch(`${base}/call_tokens`, { headers: { callToken: bad } });
      expect(refused.status).toBe(401);
      expect((await refused.json()).error.code).toBe("AUTH_ERR_INVALID_CALL_TOKEN");
    }
    // A call token does not open the other operations' doors: they still want an apikey or an authToken.
    const elsewhere = await fetch(`${base}/calls`, { headers: { callToken: token } });
    expect([elsewhere.status, (await elsewhere.json()).error.code]).toEqual([401, "AUTH_ERR_EMPTY_APIKEY"]);
    // Once its auth token is gone, the call token is refused too.
    await fetch(`${url()}/v3/users/superhero1/auth_tokens/${caller.token}`, { method: "DELETE", headers: { apikey: REST_KEY } });
    const gone = await fetch(`${base}/call_tokens`, { headers: { callToken: token } });
    expect((await gone.json()).error.code).toBe("AUTH_ERR_INVALID_CALL_TOKEN");
  });
});
