import { beforeEach, describe, expect, it } from "vitest";
import { emulator, expectError, type TestEmulator } from "./helpers.js";

const KEY = "0123456789abcdef0123456789abcdef01234567";
const seed = {
  apps: [
    {
      app: { appId: "metrics", name: "Metrics", region: "us" },
      apiKeys: [{ apiKey: KEY, name: "Rest API Key", scope: "fullAccess" }],
      users: ["a", "b", "c", "d"].map((uid) => ({ uid, name: uid.toUpperCase() })),
      groups: [{ guid: "team", name: "Team", members: [{ uid: "a", scope: "admin" }, { uid: "b" }, { uid: "c" }] }],
    },
  ],
};

/** A 5-minute boundary: slot k of the script is [T + 300k, T + 300(k + 1)). */
const T = 2_000_000_100;

let e: TestEmulator;
const at = (t: number) => e.clock.freeze(t * 1000);
const send = (receiver: string, text: string, onBehalfOf?: string, receiverType = "user") =>
  e.post("/v3/messages", { receiver, receiverType, data: { text } }, { key: KEY, onBehalfOf });
const stats = (query: string) => e.get(`/v3/stats${query}`, { key: KEY });

/**
 * The script: chat in slots 0 and 1, receipts in slots 1 and 2, a message sent and deleted for good, an audio call
 * a-b (2 x 2 minutes) and a recorded video group call (c 10 minutes, a 160 seconds, b unanswered) overlapping it.
 */
beforeEach(async () => {
  e = await emulator({ seed });
  at(T);
  const first = await send("b", "hi", "a");
  at(T + 10);
  await send("a", "hello", "b");
  at(T + 400);
  await send("team", "standup?", "c", "group");
  await e.post("/v3/users/a/conversation/read", { messageId: Number(first.body.data.id) }, { key: KEY, onBehalfOf: "b" });
  at(T + 700);
  const groupMessage = await send("team", "announcement", undefined, "group");
  await e.post("/v3/groups/team/conversation/delivered", { messageId: Number(groupMessage.body.data.id) }, { key: KEY, onBehalfOf: "a" });
  const oops = await send("a", "oops", "d");
  await e.del(`/v3/messages/${oops.body.data.id}`, { permanent: true }, { key: KEY });
  const call = (body: Record<string, unknown>) => e.post("/_emulator/apps/metrics/calls", body);
  expect((await call({ initiator: "a", receiver: "b", initiatedAt: T + 720, startedAt: T + 730, endedAt: T + 850 })).status).toBe(201);
  const group = await call({
    initiator: "c",
    receiverType: "group",
    receiver: "team",
    type: "video",
    initiatedAt: T + 800,
    startedAt: T + 800,
    endedAt: T + 1400,
    participants: [{ uid: "c" }, { uid: "a", joinedAt: T + 840, leftAt: T + 1000 }, { uid: "b", state: "unanswered" }],
    hasRecording: true,
  });
  expect(group.status).toBe(201);
  at(T + 1500);
});

describe("GET /stats", () => {
  it("reports usage computed from the store: user-minutes, recorded minutes, active and concurrent users", async () => {
    const r = await stats(`?fromDate=${T}&toDate=${T + 1500}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      data: {
        // audio: 120 s each for a and b; video: 600 s (c) + 160 s (a), rounded up; the recording spans the call.
        // d's only message was deleted for good, so d was never active; at T+840..850 four devices were in calls.
        metrics: { audio_minutes: 4, video_minutes: 13, recorded_minutes: 10, active_users: 3, concurrent_users: 4 },
        time_range: { fromDate: T * 1000, toDate: (T + 1500) * 1000 },
      },
    });
  });

  it("counts only what falls in the period, and takes milliseconds as well", async () => {
    const narrow = await stats(`?fromDate=${(T + 700) * 1000}&toDate=${(T + 750) * 1000}`);
    expect(narrow.body.data).toEqual({
      metrics: { audio_minutes: 4, video_minutes: 0, recorded_minutes: 0, active_users: 2, concurrent_users: 2 },
      time_range: { fromDate: (T + 700) * 1000, toDate: (T + 750) * 1000 },
    });
    expect((await stats(`?fromDate=${T + 20}&toDate=${T + 390}`)).body.data.metrics).toEqual({
      audio_minutes: 0,
      video_minutes: 0,
      recorded_minutes: 0,
      active_users: 0,
      concurrent_users: 0,
    });
    expect((await stats(`?fromDate=${T}&toDate=${T}`)).body.data.metrics.active_users).toBe(1);
  });

  it("follows new activity at once", async () => {
    await send("a", "back", "d");
    expect((await stats(`?fromDate=${T}&toDate=${T + 1500}`)).body.data.metrics.active_users).toBe(4);
  });

  it("requires integer fromDate and toDate, toDate not before fromDate", async () => {
    const missing = expectError(await stats(""), 400, "ERR_BAD_REQUEST");
    expect(missing.details).toEqual({ fromDate: ["The fromDate field is required."], toDate: ["The toDate field is required."] });
    expect(expectError(await stats(`?fromDate=yesterday&toDate=${T}`), 400, "ERR_BAD_REQUEST").details).toEqual({
      fromDate: ["The fromDate must be an integer."],
    });
    expect(expectError(await stats(`?fromDate=${T}&toDate=${T - 1}`), 400, "ERR_BAD_REQUEST").details).toEqual({
      toDate: ["The toDate must be a date after or equal to fromDate."],
    });
  });
});

describe("GET /stats/messages", () => {
  it("reports the last hour in 5-minute data points: messages sent, read and delivery receipts", async () => {
    const r = await e.get("/v3/stats/messages", { key: KEY });
    expect(r.status).toBe(200);
    const ms = (t: number) => String(t * 1000);
    // Now is T+1500 (slot 5): the window is the twelve slots up to and including it, from T-1800 to T+1800.
    expect(r.body.data).toMatchObject({ startTime: ms(T - 1800), endTime: ms(T + 1800), appId: "metrics" });
    const points = r.body.data.dataPoints;
    expect(points).toHaveLength(12);
    points.forEach((p: any, i: number) => {
      expect(p.startTime).toBe(ms(T - 1800 + i * 300));
      expect(p.endTime).toBe(ms(T - 1500 + i * 300));
    });
    const counts = points.map((p: any) => [p.messagesSent, p.readReceipts, p.deliveryReceipts]);
    expect(counts).toEqual([
      [0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0],
      // slot 0: a and b chat; slot 1: c writes, b reads (and so has delivered); slot 2: the app writes, a has it
      // delivered, d's message was deleted for good; call messages are not chat messages.
      [2, 0, 0], [1, 1, 1], [1, 0, 1], [0, 0, 0], [0, 0, 0], [0, 0, 0],
    ]);
    expect(Object.keys(points[0])).toEqual(["messagesSent", "readReceipts", "deliveryReceipts", "startTime", "endTime"]);
  });

  it("moves its window with the clock", async () => {
    at(T + 3900);
    const r = await e.get("/v3/stats/messages", { key: KEY });
    expect(r.body.data.startTime).toBe(String((T + 600) * 1000));
    expect(r.body.data.dataPoints.map((p: any) => p.messagesSent)).toEqual([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  });
});
