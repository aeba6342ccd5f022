import { request } from "node:http";
import { beforeEach, describe, expect, it } from "vitest";
import { startEmulator } from "../src/index.js";
import { APP_ID, AUTH_KEY, emulator, expectError, REST_KEY, type TestEmulator } from "./helpers.js";
import { BAD_SEEDS } from "./seed-cases.js";

let e: TestEmulator;
beforeEach(async () => {
  e = await emulator();
  e.clock.freeze(2_000_000_000_000);
});

const T = 2_000_000_000;
const CALLS = `/${APP_ID}.call-us/v3/calls`;
const SESSION_ID = new RegExp(`^v1\\.us\\.${APP_ID}\\.\\d{10}[0-9a-f]{40}$`);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Records a call through the control API and answers its session id. */
async function record(body: Record<string, unknown>): Promise<string> {
  const r = await e.post(`/_emulator/apps/${APP_ID}/calls`, body);
  if (r.status !== 201) throw new Error(`record failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.call.sessionId;
}
const list = (query = "", onBehalfOf?: string) => e.get(`${CALLS}${query}`, { onBehalfOf });
const sessions = async (query = "", onBehalfOf?: string) => {
  const r = await list(query, onBehalfOf);
  if (r.status !== 200) throw new Error(`list failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data.map((k: any) => k.sessionId);
};

/** The reference's one-on-one example, at T: rang at T, answered at T+14, over at T+33. */
const example = {
  initiator: "superhero1",
  receiver: "superhero2",
  type: "audio",
  initiatedAt: T,
  startedAt: T + 14,
  endedAt: T + 33,
  participants: [
    { uid: "superhero1", joinedAt: T + 15, leftAt: T + 31 },
    { uid: "superhero2", joinedAt: T + 19, leftAt: T + 33 },
  ],
};

describe("calls plane: addresses, keys and separation from the REST plane", () => {
  it("answers at the path label /{appId}.call-{region}/v3 and the Host label {appId}.call-{region}.<anything>", async () => {
    const byPath = await e.get(`/${APP_ID}.call-us/v3/calls`);
    expect(byPath.status).toBe(200);
    expect(byPath.body.data).toHaveLength(3);
    const byHost = await e.get(`http://${APP_ID}.call-us.cometchat.io/v3/calls`);
    expect(byHost.body).toEqual(byPath.body);
    expect((await e.get(`/${APP_ID}.call-us/v3.0/calls`)).status).toBe(200);
  });

  it("answers a real HTTP request addressed only by its Host header", async () => {
    const server = await startEmulator({ port: 0, quiet: true });
    try {
      const reply = await new Promise<{ status: number; body: any }>((resolve, reject) => {
        const req = request(
          { host: "127.0.0.1", port: server.port, path: "/v3/calls", headers: { host: `${APP_ID}.call-us.localhost`, apikey: REST_KEY } },
          (res) => {
            let text = "";
            res.on("data", (chunk) => (text += chunk));
            res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
          },
        );
        req.on("error", reject);
        req.end();
      });
      expect(reply.status).toBe(200);
      expect(reply.body.meta.pagination.total).toBe(3);
    } finally {
      await server.close();
    }
  });

  it("keeps the planes apart: each answers ERR_API_NOT_FOUND for the other's paths", async () => {
    expectError(await e.get("/v3/calls"), 404, "ERR_API_NOT_FOUND");
    expectError(await e.get(`/${APP_ID}.api-us/v3/calls`), 404, "ERR_API_NOT_FOUND");
    expectError(await e.get(`http://${APP_ID}.api-us.cometchat.io/v3/calls`), 404, "ERR_API_NOT_FOUND");
    expectError(await e.get(`/${APP_ID}.call-us/v3/users`), 404, "ERR_API_NOT_FOUND");
    expectError(await e.get(`http://${APP_ID}.call-us.cometchat.io/v3/stats?fromDate=0&toDate=1`), 404, "ERR_API_NOT_FOUND");
    expectError(await e.call("POST", CALLS), 404, "ERR_API_NOT_FOUND");
  });

  it("checks app, region and key like the REST plane; an authOnly key has no access", async () => {
    expectError(await e.get(CALLS, { key: null }), 401, "AUTH_ERR_EMPTY_APIKEY");
    expectError(await e.get(CALLS, { key: "0".repeat(40) }), 401, "AUTH_ERR_APIKEY_NOT_FOUND");
    expectError(await e.get(CALLS, { key: AUTH_KEY }), 403, "AUTH_ERR_NO_ACCESS");
    expectError(await e.get(`/${APP_ID}.call-eu/v3/calls`), 401, "AUTH_ERR_INVALID_APPID");
    expectError(await e.get(`/0000000000000000.call-us/v3/calls`), 401, "AUTH_ERR_INVALID_APPID");
  });
});

describe("GET /calls", () => {
  it("lists the sample calls most recent first, with session ids in the platform's format", async () => {
    const r = await list();
    expect(r.body.meta).toEqual({ pagination: { total: 3, count: 3, per_page: 100, current_page: 1, total_pages: 1 } });
    expect(r.body.data.map((k: any) => [k.initiator, k.receiver, k.type, k.status])).toEqual([
      ["superhero4", "superhero5", "audio", "unanswered"],
      ["superhero1", "supergroup", "video", "ended"],
      ["superhero1", "superhero2", "audio", "ended"],
    ]);
    for (const k of r.body.data) expect(k.sessionId).toMatch(SESSION_ID);
    const group = r.body.data[1];
    expect(group).toMatchObject({ totalVideoMinutes: 20, totalDuration: "00:20:00", totalParticipants: 2, hasRecording: true, hasTranscription: true });
    expect(group.participants.map((p: any) => [p.uid, p.isJoined, p.state])).toEqual([
      ["superhero1", true, "ended"],
      ["superhero2", true, "ended"],
      ["superhero3", false, "unanswered"],
    ]);
  });

  it("shows call and participant objects exactly as the reference, keys in its order", async () => {
    const sessionId = await record(example);
    const k = (await list()).body.data[0];
    expect(k).toEqual({
      sessionId,
      totalAudioMinutes: 19 / 60,
      totalVideoMinutes: 0,
      totalDuration: "00:00:19",
      hasRecording: false,
      hasTranscription: false,
      initiatedAt: T,
      initiator: "superhero1",
      mode: "call",
      receiver: "superhero2",
      receiverType: "user",
      status: "ended",
      totalDurationInMinutes: 19 / 60,
      totalParticipants: 2,
      type: "audio",
      mid: expect.stringMatching(UUID),
      startedAt: T + 14,
      endedAt: T + 33,
      participants: [
        {
          uid: "superhero1",
          totalAudioMinutes: 16 / 60,
          totalVideoMinutes: 0,
          totalDuration: 16 / 60,
          deviceId: expect.stringMatching(/^[0-9a-f-]{36}@rtc\.[a-z.-]+\/[0-9a-f]{8}$/),
          isJoined: true,
          joinedAt: T + 15,
          mid: k.mid,
          state: "ended",
          leftAt: T + 31,
        },
        expect.objectContaining({ uid: "superhero2", totalAudioMinutes: 14 / 60, joinedAt: T + 19, leftAt: T + 33 }),
      ],
    });
    expect(sessionId).toMatch(new RegExp(`^v1\\.us\\.${APP_ID}\\.${T}[0-9a-f]{40}$`));
    expect(Object.keys(k)).toEqual([
      "sessionId", "totalAudioMinutes", "totalVideoMinutes", "totalDuration", "hasRecording", "hasTranscription", "initiatedAt",
      "initiator", "mode", "receiver", "receiverType", "status", "totalDurationInMinutes", "totalParticipants", "type", "mid",
      "startedAt", "endedAt", "participants",
    ]);
    expect(Object.keys(k.participants[0])).toEqual([
      "uid", "totalAudioMinutes", "totalVideoMinutes", "totalDuration", "deviceId", "isJoined", "joinedAt", "mid", "state", "leftAt",
    ]);
  });

  it("shows participants who never answered with only uid, zero totals, isJoined false and their state", async () => {
    await record({ initiator: "superhero1", receiver: "superhero2", status: "rejected", initiatedAt: T, endedAt: T + 5 });
    const k = (await list()).body.data[0];
    expect(k).toMatchObject({ status: "rejected", totalDuration: "00:00:00", totalParticipants: 0, endedAt: T + 5 });
    expect(k).not.toHaveProperty("startedAt");
    expect(k.participants[1]).toEqual({ uid: "superhero2", totalAudioMinutes: 0, totalVideoMinutes: 0, totalDuration: 0, isJoined: false, state: "rejected" });
  });

  it("counts an ongoing call up to now", async () => {
    await record({ initiator: "superhero1", receiver: "superhero2", type: "video", status: "ongoing", initiatedAt: T - 70, startedAt: T - 60 });
    const before = (await list()).body.data[0];
    expect(before).toMatchObject({ status: "ongoing", totalVideoMinutes: 1, totalDuration: "00:01:00", totalParticipants: 2 });
    expect(before).not.toHaveProperty("endedAt");
    expect(before.participants[0]).toMatchObject({ state: "ongoing", isJoined: true, totalVideoMinutes: 1 });
    expect(before.participants[0]).not.toHaveProperty("leftAt");
    e.clock.advance(3600);
    expect((await list()).body.data[0]).toMatchObject({ totalVideoMinutes: 61, totalDuration: "01:01:00" });
  });

  it("filters by type, mode, status, receiverType, participantsCount, startedAt, endedAt, hasRecording, hasTranscription and uid", async () => {
    const audio = await record({ ...example });
    const video = await record({ initiator: "superhero2", receiver: "superhero3", type: "video", initiatedAt: T + 100, startedAt: T + 110, endedAt: T + 200, hasRecording: true });
    const meet = await record({
      initiator: "superhero1",
      receiverType: "group",
      receiver: "supergroup",
      mode: "meet",
      initiatedAt: T + 300,
      startedAt: T + 300,
      endedAt: T + 900,
      participants: ["superhero1", "superhero2", "superhero3"],
      hasTranscription: true,
    });
    const missed = await record({ initiator: "superhero3", receiver: "superhero1", status: "unanswered", initiatedAt: T + 1000, endedAt: T + 1030 });
    const since = `startedAt=${T}`;
    expect(await sessions(`?${since}`)).toEqual([meet, video, audio]);
    expect(await sessions(`?type=video&${since}`)).toEqual([video]);
    expect(await sessions(`?type=audio&${since}`)).toEqual([meet, audio]);
    expect(await sessions("?mode=meet")).toEqual([meet]);
    expect(await sessions(`?status=unanswered&startedAt=0`)).toEqual([]);
    expect((await sessions("?status=unanswered")).slice(0, 1)).toEqual([missed]);
    expect(await sessions(`?receiverType=group&${since}`)).toEqual([meet]);
    expect(await sessions(`?participantsCount=3`)).toEqual([meet]);
    expect(await sessions(`?participantsCount=2&${since}`)).toEqual([video, audio]);
    expect(await sessions(`?startedAt=${T + 110}`)).toEqual([meet, video]);
    expect(await sessions(`?endedAt=${T + 200}&${since}`)).toEqual([video, audio]);
    expect(await sessions(`?startedAt=${T + 100}&endedAt=${T + 200}`)).toEqual([video]);
    expect(await sessions(`?hasRecording=true&${since}`)).toEqual([video]);
    expect(await sessions(`?hasRecording=false&${since}`)).toEqual([meet, audio]);
    expect(await sessions(`?hasTranscription=1&${since}`)).toEqual([meet]);
    expect(await sessions(`?uid=superhero3&${since}`)).toEqual([meet, video]);
    expect(await sessions(`?uid=SUPERHERO3&${since}`)).toEqual([meet, video]);
    expect(await sessions(`?uid=superhero3&type=audio&mode=meet&${since}`)).toEqual([meet]);
    expect(await sessions(`?uid=nobody`)).toEqual([]);
  });

  it("refuses bad filter values with ERR_BAD_REQUEST details", async () => {
    const err = expectError(await list("?type=fax&mode=solo&status=lost&receiverType=bot&participantsCount=two&hasRecording=maybe&perPage=0"), 400, "ERR_BAD_REQUEST");
    expect(err.details).toEqual({
      type: ["The selected type is invalid."],
      mode: ["The selected mode is invalid."],
      status: ["The selected status is invalid."],
      receiverType: ["The selected receiverType is invalid."],
      participantsCount: ["The participantsCount must be an integer."],
      hasRecording: ["The hasRecording field must be true or false."],
      perPage: ["The perPage must be at least 1."],
    });
    expectError(await list("?perPage=1001"), 400, "ERR_BAD_REQUEST");
  });

  it("pages with perPage and page", async () => {
    for (let i = 0; i < 5; i++) await record({ initiator: "superhero1", receiver: "superhero2", initiatedAt: T + i });
    const first = await list("?perPage=3&status=ended&startedAt=" + T);
    expect(first.body.meta.pagination).toEqual({ total: 5, count: 3, per_page: 3, current_page: 1, total_pages: 2 });
    expect(first.body.data.map((k: any) => k.initiatedAt)).toEqual([T + 4, T + 3, T + 2]);
    const second = await list("?perPage=3&page=2&status=ended&startedAt=" + T);
    expect(second.body.data.map((k: any) => k.initiatedAt)).toEqual([T + 1, T]);
    expect(second.body.meta.pagination).toMatchObject({ count: 2, current_page: 2 });
    const unfiltered = await list("?perPage=2&page=4");
    expect(unfiltered.body.meta.pagination).toEqual({ total: 8, count: 2, per_page: 2, current_page: 4, total_pages: 4 });
  });

  it("onBehalfOf scopes the list to the calls that user took part in", async () => {
    const mine = await record({ initiator: "superhero3", receiver: "superhero5", initiatedAt: T });
    expect(await sessions("", "superhero5")).toEqual([mine, expect.any(String)]);
    // superhero3 was also rung (unanswered) in the sample group call.
    expect(await sessions("", "superhero3")).toEqual([mine, expect.any(String)]);
    expect(await sessions("?receiverType=user", "superhero3")).toEqual([mine]);
    expect(await sessions("?uid=superhero5", "superhero3")).toEqual([mine]);
    expect(await sessions("?uid=superhero4", "superhero3")).toEqual([]);
    expectError(await list("", "ghost"), 404, "ERR_UID_NOT_FOUND");
  });
});

describe("GET /calls/{sessionId}", () => {
  it("answers one call with metaData and tags", async () => {
    const sessionId = await record({ ...example, tags: ["support"] });
    const r = await e.get(`${CALLS}/${sessionId}`);
    expect(r.status).toBe(200);
    const listed = (await list()).body.data[0];
    expect(r.body.data).toEqual({ ...listed, metaData: [], tags: ["support"] });
    expect(Object.keys(r.body.data).slice(3, 6)).toEqual(["totalDuration", "metaData", "hasRecording"]);
    const withMetadata = await record({ ...example, metadata: { topic: "plans" } });
    expect((await e.get(`${CALLS}/${withMetadata}`)).body.data.metaData).toEqual({ topic: "plans" });
  });

  it("answers ERR_CALL_SESSION_NOT_FOUND for an unknown session", async () => {
    const err = expectError(await e.get(`${CALLS}/v1.us.${APP_ID}.2000000000deadbeef`), 404, "ERR_CALL_SESSION_NOT_FOUND");
    expect(err.message).toContain(`v1.us.${APP_ID}.2000000000deadbeef`);
    expectError(await e.get(`${CALLS}/nope/transcriptions`), 404, "ERR_CALL_SESSION_NOT_FOUND");
  });

  it("onBehalfOf: the call of someone else is ERR_CALL_NOT_A_PART", async () => {
    const sessionId = await record(example);
    expect((await e.get(`${CALLS}/${sessionId}`, { onBehalfOf: "superhero2" })).status).toBe(200);
    expectError(await e.get(`${CALLS}/${sessionId}`, { onBehalfOf: "superhero4" }), 403, "ERR_CALL_NOT_A_PART");
    expectError(await e.get(`${CALLS}/${sessionId}/transcriptions`, { onBehalfOf: "superhero4" }), 403, "ERR_CALL_NOT_A_PART");
  });
});

describe("transcriptions and recordings", () => {
  const seven = Array.from({ length: 7 }, (_, i) => ({ startTime: T + 10 + i * 100, endTime: T + 100 + i * 100 }));
  const transcribed = () =>
    record({ ...example, type: "video", startedAt: T + 10, endedAt: T + 800, participants: undefined, transcriptions: seven, hasRecording: true });

  it("embeds the 5 most recent transcriptions and the recordings in call objects; hideTranscription leaves them out", async () => {
    const sessionId = await transcribed();
    const k = (await e.get(`${CALLS}/${sessionId}`)).body.data;
    expect(k.hasTranscription).toBe(true);
    expect(k.transcriptions.map((t: any) => t.startTime)).toEqual([T + 210, T + 310, T + 410, T + 510, T + 610]);
    expect(k.recordings).toEqual([
      { rid: expect.stringMatching(UUID), duration: 790 / 60, startTime: T + 10, endTime: T + 800, recording_url: expect.stringMatching(/^https:\/\/.+\.mp4$/) },
    ]);
    expect((await e.get(`${CALLS}/${sessionId}?hideTranscription=true`)).body.data).not.toHaveProperty("transcriptions");
    expect((await list("?hideTranscription=true")).body.data[0]).not.toHaveProperty("transcriptions");
  });

  it("GET /calls/{sessionId}/transcriptions pages through all of them, oldest first", async () => {
    const sessionId = await transcribed();
    const r = await e.get(`${CALLS}/${sessionId}/transcriptions?perPage=3&page=3`);
    expect(r.status).toBe(200);
    expect(r.body.meta.pagination).toEqual({ total: 7, count: 1, per_page: 3, current_page: 3, total_pages: 3 });
    const t = r.body.data[0];
    expect(t).toEqual({
      roomName: `${sessionId}@conference.rtc.chat-emulator.invalid`,
      mid: expect.stringMatching(UUID),
      tid: expect.stringMatching(UUID),
      startTime: T + 610,
      endTime: T + 700,
      transcriptDate: new Date((T + 610) * 1000).toISOString(),
      transcriptUrl: expect.stringContaining(`transcript_${new Date((T + 610) * 1000).toISOString()}_${t.tid}.json`),
    });
    const all = await e.get(`${CALLS}/${sessionId}/transcriptions`);
    expect(all.body.meta.pagination).toMatchObject({ total: 7, per_page: 100 });
    expect(all.body.data.map((x: any) => x.startTime)).toEqual(seven.map((s) => s.startTime));
    expectError(await e.get(`${CALLS}/${sessionId}/transcriptions?perPage=1001`), 400, "ERR_BAD_REQUEST");
    const none = await record(example);
    expect((await e.get(`${CALLS}/${none}/transcriptions`)).body).toEqual({
      data: [],
      meta: { pagination: { total: 0, count: 0, per_page: 100, current_page: 1, total_pages: 1 } },
    });
  });
});

describe("call messages", () => {
  it("a call leaves initiated, ongoing and ended call messages in its one-on-one conversation", async () => {
    const created = await e.post(`/_emulator/apps/${APP_ID}/calls`, { ...example, receiver: "superhero3", participants: undefined });
    const sessionId = created.body.call.sessionId;
    const r = await e.get("/v3/users/superhero3/messages?category=call", { onBehalfOf: "superhero1" });
    expect(r.body.data.map((m: any) => m.id)).toEqual(created.body.messageIds);
    expect(r.body.data.map((m: any) => [m.data.action, m.sentAt, m.data.entities.on.entity.status])).toEqual([
      ["initiated", T, "initiated"],
      ["ongoing", T + 14, "ongoing"],
      ["ended", T + 33, "ended"],
    ]);
    const [initiated, ongoing] = r.body.data;
    expect(initiated).toMatchObject({
      conversationId: "superhero1_user_superhero3",
      sender: "superhero1",
      receiverType: "user",
      receiver: "superhero3",
      category: "call",
      type: "audio",
      data: {
        action: "initiated",
        entities: {
          by: { entity: { uid: "superhero1", name: "Iron Man" }, entityType: "user" },
          for: { entity: { uid: "superhero3", conversationId: "superhero1_user_superhero3" }, entityType: "user" },
          on: {
            entity: {
              sessionid: sessionId,
              conversationId: "superhero1_user_superhero3",
              sender: "superhero1",
              receiverType: "user",
              receiver: "superhero3",
              status: "initiated",
              type: "audio",
              data: { entities: { sender: { entityType: "user" }, receiver: { entityType: "user" } } },
              wsChannel: { secret: expect.any(String), service: expect.any(String), identity: "superhero1" },
              initiatedAt: T,
              joinedAt: T,
            },
            entityType: "call",
          },
        },
      },
    });
    expect(initiated.data.entities.on.entity).not.toHaveProperty("startedAt");
    expect(ongoing.data.entities.by.entity.uid).toBe("superhero3");
    expect(ongoing.data.entities.on.entity.startedAt).toBe(T + 14);
    // The conversation now exists for both, with the last call message as its last message.
    const conversation = await e.get("/v3/users/superhero1/conversation", { onBehalfOf: "superhero3" });
    expect(conversation.body.data.lastMessage).toMatchObject({ category: "call", data: { action: "ended" } });
    // Call messages are records of what happened: they cannot be edited or deleted.
    expectError(await e.put(`/v3/messages/${initiated.id}`, { data: { text: "x" } }), 403, "ERR_MESSAGE_ACTION_NOT_ALLOWED");
  });

  it("a group call's messages go to the group; a canceled call ends with action cancelled", async () => {
    await record({ initiator: "superhero2", receiverType: "group", receiver: "supergroup", type: "video", status: "canceled", initiatedAt: T, endedAt: T + 3 });
    const r = await e.get("/v3/groups/supergroup/messages?category=call&limit=2&affix=prepend");
    expect(r.body.data.map((m: any) => m.data.action)).toEqual(["initiated", "cancelled"]);
    expect(r.body.data[0].data.entities.for).toMatchObject({ entityType: "group", entity: { guid: "supergroup", membersCount: 3, conversationId: "group_supergroup" } });
  });

  it("the sample calls left their messages after the sample chat messages", async () => {
    const all = (await e.get("/v3/messages?limit=100")).body.data;
    expect(all.map((m: any) => [m.conversationId, m.category, m.data.action ?? m.data.text])).toEqual([
      ["group_supergroup", "message", "Welcome to the Comic Heros' Hangout!"],
      ["group_supergroup", "message", "Glad to be here."],
      ["superhero1_user_superhero2", "message", "Hi Cap, ready for the mission?"],
      ["superhero1_user_superhero2", "call", "initiated"],
      ["superhero1_user_superhero2", "call", "ongoing"],
      ["superhero1_user_superhero2", "call", "ended"],
      ["group_supergroup", "call", "initiated"],
      ["group_supergroup", "call", "ongoing"],
      ["group_supergroup", "call", "ended"],
      ["superhero4_user_superhero5", "call", "initiated"],
      ["superhero4_user_superhero5", "call", "unanswered"],
    ]);
    const sentAt = all.map((m: any) => m.sentAt);
    expect(sentAt).toEqual([...sentAt].sort((a: number, b: number) => a - b));
  });
});

describe("POST /_emulator/apps/{appId}/calls", () => {
  const bad = async (body: Record<string, unknown>, field: string, problem: string | RegExp) => {
    const err = expectError(await e.post(`/_emulator/apps/${APP_ID}/calls`, body), 400, "ERR_BAD_REQUEST");
    expect(err.source).toBe("emulator");
    expect(Object.keys(err.details!)).toEqual([field]);
    expect(err.details![field][0]).toMatch(problem);
  };

  it("creates an ended audio call between initiator and receiver at now by default, and tells persistence", async () => {
    let changes = 0;
    e.store.onChange(() => changes++);
    const r = await e.post(`/_emulator/apps/${APP_ID}/calls`, { initiator: "SuperHero1", receiver: "superhero2" });
    expect(r.status).toBe(201);
    expect(r.body.call).toMatchObject({ type: "audio", mode: "call", status: "ended", initiator: "superhero1", initiatedAt: T, startedAt: T, endedAt: T, totalParticipants: 2 });
    expect(r.body.messageIds).toHaveLength(3);
    expect(changes).toBe(1);
    expect((await e.get(`${CALLS}/${r.body.call.sessionId}`)).status).toBe(200);
  });

  it("takes a given session id of the app once", async () => {
    const sessionId = `v1.us.${APP_ID}.${T}${"ab".repeat(20)}`;
    expect(await record({ ...example, sessionId })).toBe(sessionId);
    await bad({ ...example, sessionId }, "sessionId", /names the existing call/);
    await bad({ ...example, sessionId: `v1.eu.${APP_ID}.${T}${"ab".repeat(20)}` }, "sessionId", /must have the form v1\.us\./);
  });

  it("refuses calls that could not have happened, naming the field", async () => {
    await bad({ initiator: "ghost", receiver: "superhero2" }, "initiator", "The initiator names the unknown user ghost.");
    await bad({ initiator: "superhero1", receiver: "ghost" }, "receiver", /unknown user ghost/);
    await bad({ initiator: "superhero1", receiverType: "group", receiver: "nogroup" }, "receiver", /unknown group nogroup/);
    await bad({ initiator: "superhero1", receiver: "superhero1" }, "receiver", /nobody can call themselves/);
    await bad({ initiator: "superhero4", receiverType: "group", receiver: "supergroup" }, "initiator", /not a member of the group supergroup/);
    await bad({ initiator: "superhero1", receiver: "superhero2", participants: ["superhero1", "ghost"] }, "participants[1].uid", /unknown user ghost/);
    await bad({ initiator: "superhero1", receiver: "superhero2", participants: ["superhero3"] }, "participants[0].uid", /neither initiator nor receiver/);
    await bad({ initiator: "superhero1", receiverType: "group", receiver: "supergroup", participants: ["superhero1", "superhero5"] }, "participants[1].uid", /not a member/);
    await bad({ initiator: "superhero1", receiver: "superhero2", participants: Array(51).fill("superhero1") }, "participants", /at most 50/);
    await bad({ initiator: "superhero1", receiver: "superhero2", type: "fax" }, "type", /must be one of audio, video/);
    await bad({ initiator: "superhero1", receiver: "superhero2", status: "lost" }, "status", /must be one of/);
    await bad({ initiator: "superhero1", receiver: "superhero2", status: "unanswered", startedAt: T }, "startedAt", /never started/);
    await bad({ initiator: "superhero1", receiver: "superhero2", status: "ongoing", endedAt: T }, "endedAt", /must be absent/);
    await bad({ initiator: "superhero1", receiver: "superhero2", initiatedAt: T, startedAt: T - 1 }, "startedAt", /before initiatedAt/);
    await bad({ initiator: "superhero1", receiver: "superhero2", startedAt: T, endedAt: T - 1, initiatedAt: T - 5 }, "endedAt", /before startedAt/);
    await bad({ ...example, participants: [{ uid: "superhero1", joinedAt: T + 40 }] }, "participants[0].joinedAt", /within the call/);
    await bad({ ...example, participants: [{ uid: "superhero1", state: "ongoing" }] }, "participants[0].state", /only be ongoing while the call is/);
    await bad({ ...example, participants: [{ uid: "superhero2", state: "unanswered" }] }, "participants", /someone who joined/);
    await bad({ initiator: "superhero1", receiver: "superhero2", status: "rejected", participants: [{ uid: "superhero2", state: "ended" }] }, "participants[0].state", /never started/);
    await bad({ ...example, participants: [{ uid: "superhero2", state: "rejected", joinedAt: T + 20 }] }, "participants[0].joinedAt", /never joined/);
    await bad({ initiator: "superhero1", receiver: "superhero2", status: "unanswered", hasRecording: true }, "recordings", /never started/);
    await bad({ ...example, transcriptions: [{ startTime: T + 20, endTime: T + 99 }] }, "transcriptions[0]", /within the call/);
    await bad({ ...example, hasTranscription: false, transcriptions: [{}] }, "hasTranscription", /is false/);
    expect((await list()).body.meta.pagination.total).toBe(3);
  });

  it("answers ERR_APP_NOT_FOUND from the emulator for an unknown app, and refuses deactivated users", async () => {
    const err = expectError(await e.post("/_emulator/apps/nosuchapp/calls", example), 404, "ERR_APP_NOT_FOUND");
    expect(err.source).toBe("emulator");
    await e.del("/v3/users", { uidsToDeactivate: ["superhero2"] });
    await bad(example, "receiver", /unknown user superhero2/);
  });
});

describe("calls in state and seed files", () => {
  it("round-trip through GET/PUT /_emulator/state without doubling their messages", async () => {
    const sessionId = await record({ ...example, hasTranscription: true, tags: ["t"] });
    const before = (await e.get(`${CALLS}/${sessionId}`)).body;
    const messages = (await e.get("/v3/messages?limit=1000")).body.data.length;
    const state = (await e.get("/_emulator/state")).body;
    expect(state.apps[0].calls).toHaveLength(4);
    await e.post("/_emulator/reset");
    expectError(await e.get(`${CALLS}/${sessionId}`), 404, "ERR_CALL_SESSION_NOT_FOUND");
    expect((await e.put("/_emulator/state", state)).status).toBe(200);
    expect((await e.get(`${CALLS}/${sessionId}`)).body).toEqual(before);
    expect((await e.get("/v3/messages?limit=1000")).body.data).toHaveLength(messages);
  });

  it("a seed's calls get their call messages; a bad call is refused with its path", async () => {
    const app = { appId: "callseed", name: "Calls", region: "eu" };
    const apiKeys = [{ apiKey: "c".repeat(40), name: "Rest API Key", scope: "fullAccess" }];
    const users = [{ uid: "a", name: "A" }, { uid: "b", name: "B" }];
    const seeded = await emulator({ seed: { apps: [{ app, apiKeys, users, calls: [{ initiator: "a", receiver: "b", initiatedAt: T, startedAt: T + 1, endedAt: T + 61 }] }] } });
    const r = await seeded.get("/callseed.call-eu/v3/calls", { key: "c".repeat(40) });
    expect(r.body.data[0]).toMatchObject({ sessionId: expect.stringMatching(/^v1\.eu\.callseed\.2000000000[0-9a-f]{40}$/), totalAudioMinutes: 1 });
    const messages = await seeded.get("/callseed.api-eu/v3/users/b/messages", { key: "c".repeat(40), onBehalfOf: "a" });
    expect(messages.body.data.map((m: any) => m.data.action)).toEqual(["initiated", "ongoing", "ended"]);
    await expect(emulator({ seed: BAD_SEEDS.unknownCallee.doc })).rejects.toThrow(`seed: ${BAD_SEEDS.unknownCallee.error}`);
  });
});
