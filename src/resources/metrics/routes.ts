import { ok } from "../../http/reply.js";
import { badRequest, keyedMap, type Details } from "../../http/errors.js";
import { operation, routes } from "../../http/operation.js";
import { q } from "../../http/query-spec.js";
import { SLOT_SECONDS, slotOf } from "../../store/activity.js";
import type { AppState } from "../../store/app-state.js";
import { participantSeconds } from "../../store/calls.js";

/** `GET /stats/messages` covers the last hour in 5-minute data points. */
const WINDOW_SLOTS = 12;

/** Timestamps from 10^11 on are taken as milliseconds (the reference's example sends milliseconds). */
const toSeconds = (t: number) => (t >= 1e11 ? Math.floor(t / 1000) : t);
const toMs = (t: number) => (t >= 1e11 ? t : t * 1000);

/**
 * Usage in [from, to] (seconds), from the calls initiated in it (a binary-searched range of the call index) and
 * the activity index: user-minutes of audio and video (each device's time in the call, rounded up to whole
 * minutes), recorded minutes, users active (sent a message or joined a call) and the peak of devices in calls at
 * the same time. Over several apps (a multi-tenant account's pooled usage) the figures add up and the peak is the
 * peak of all their calls together.
 */
export function usage(apps: readonly AppState[], from: number, to: number, now: number) {
  let audio = 0;
  let video = 0;
  let recorded = 0;
  const changes: [number, number][] = [];
  let active = 0;
  for (const app of apps) {
    for (const call of app.calls.initiatedBetween(from, to)) {
      for (const p of call.participants) {
        if (p.joinedAt === undefined) continue;
        if (call.type === "audio") audio += participantSeconds(p, now);
        else video += participantSeconds(p, now);
        changes.push([p.joinedAt, 1], [p.leftAt ?? now, -1]);
      }
      for (const r of call.recordings) recorded += r.endTime - r.startTime;
    }
    active += app.activity.activeUsers(from, to);
  }
  // Leaving at t and joining at t do not overlap: at equal times, departures count first.
  changes.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let inCalls = 0;
  let peak = 0;
  for (const [, change] of changes) peak = Math.max(peak, (inCalls += change));
  return {
    audio_minutes: Math.ceil(audio / 60),
    video_minutes: Math.ceil(video / 60),
    recorded_minutes: Math.ceil(recorded / 60),
    active_users: active,
    concurrent_users: peak,
  };
}

/**
 * Read and delivery receipts per 5-minute slot of [start, end): each user's latest read and delivered marker per
 * conversation, as the conversation states keep them (one state per user and conversation, never per message).
 */
function receipts(app: AppState, start: number, end: number) {
  const read = new Map<number, number>();
  const delivered = new Map<number, number>();
  const note = (counts: Map<number, number>, at: number | undefined) => {
    if (at !== undefined && at >= start && at < end) counts.set(slotOf(at), (counts.get(slotOf(at)) ?? 0) + 1);
  };
  for (const s of app.conversations.toData()) {
    note(read, s.readAt);
    note(delivered, s.deliveredAt);
  }
  return { read, delivered };
}

/** Metrics (`GET /stats`, `GET /stats/messages`), computed from the app's live store on every request. */
export const metrics = routes(
  operation({
    id: "usage-metrics",
    method: "GET",
    path: "/stats",
    plane: "rest",
    query: { fromDate: q.int(), toDate: q.int() },
    handler: (c, { query }) => {
      // Both are required, and a range may not end before it starts (the declaration checks that they are integers).
      const { fromDate, toDate } = query;
      const details: Details = keyedMap();
      if (fromDate === undefined) details.fromDate = ["The fromDate field is required."];
      if (toDate === undefined) details.toDate = ["The toDate field is required."];
      if (fromDate !== undefined && toDate !== undefined && toSeconds(toDate) < toSeconds(fromDate))
        details.toDate = ["The toDate must be a date after or equal to fromDate."];
      if (fromDate === undefined || toDate === undefined || details.toDate) throw badRequest(details);
      return ok(c, {
        metrics: usage([c.get("app")], toSeconds(fromDate), toSeconds(toDate), c.get("emulator").clock.now()),
        time_range: { fromDate: toMs(fromDate), toDate: toMs(toDate) },
      });
    },
  }),

  operation({
    id: "message-receipt-metrics",
    method: "GET",
    path: "/stats/messages",
    plane: "rest",
    handler: (c) => {
      const app = c.get("app");
      const end = slotOf(c.get("emulator").clock.now()) + SLOT_SECONDS;
      const start = end - WINDOW_SLOTS * SLOT_SECONDS;
      const { read, delivered } = receipts(app, start, end);
      const ms = (t: number) => String(t * 1000);
      const dataPoints = [];
      for (let t = start; t < end; t += SLOT_SECONDS)
        dataPoints.push({
          messagesSent: app.activity.sentIn(t),
          readReceipts: read.get(t) ?? 0,
          deliveryReceipts: delivered.get(t) ?? 0,
          startTime: ms(t),
          endTime: ms(t + SLOT_SECONDS),
        });
      return ok(c, { startTime: ms(start), endTime: ms(end), dataPoints, appId: app.meta.appId });
    },
  }),
);
