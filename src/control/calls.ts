import { Hono } from "hono";
import type { Env } from "../http/context.js";
import { apiError, badRequest } from "../http/errors.js";
import { readBody } from "../http/validate.js";
import { parseCall, SeedError } from "../store/seed.js";
import type { AppState } from "../store/app-state.js";
import type { CallRecord, MessageRecord } from "../store/types.js";
import { callEventData } from "../resources/calls/events.js";
import { callView } from "../views/calls.js";

/** A call body with many transcriptions or participants outgrows the platform's 10 KB limit. */
const CALL_BODY_LIMIT = 1024 * 1024;

/**
 * The calls triggers (reference §3.4) for a recorded call, in the order things happened: initiated, started,
 * participants joining and leaving, ended, recordings and transcriptions; or busy/unanswered/rejected/cancelled.
 */
function emitCallEvents(app: AppState, call: CallRecord, messages: MessageRecord[]): void {
  // Each trigger that matches a call message carries it (realtime pushes it to the call's parties).
  const emit = (trigger: string, message?: MessageRecord, p?: CallRecord["participants"][number]) =>
    app.emit(trigger, () => callEventData(app, call, trigger, message, p), message);
  const byAction = (action: string) => messages.find((m) => (m.data as { action?: string }).action === action);
  const initiated = byAction("initiated");
  if (initiated) emit("call_initiated", initiated);
  if (call.startedAt !== undefined) emit("call_started", byAction("ongoing"));
  for (const p of call.participants.filter((p) => p.joinedAt !== undefined)) {
    emit("call_participant_joined", undefined, p);
    if (p.leftAt !== undefined) emit("call_participant_left", undefined, p);
  }
  const endings: Record<string, string> = { unanswered: "call_unanswered", rejected: "call_rejected", canceled: "call_cancelled", ended: "call_ended" };
  if (endings[call.status]) emit(endings[call.status], messages.at(-1)!);
  const sessionId = call.sessionId;
  for (const r of call.recordings)
    app.emit("recording_generated", () => ({ recordingDate: r.startTime, duration: r.endTime - r.startTime, startTime: r.startTime, sessionId, recording_url: r.recording_url }));
  for (const t of call.transcriptions)
    app.emit("transcription_generated", () => ({ transcriptDate: t.transcriptDate, startTime: t.startTime, endTime: t.endTime, sessionId, transcription_url: t.transcriptUrl }));
}

/**
 * `POST /_emulator/apps/{appId}/calls`: records a call as the platform would have logged it (the calls API is
 * read-only, so this is how calls come to exist), checked like seed calls, with its call messages left in its
 * conversation. Answers the call as the calls API shows it and the ids of the messages it left.
 */
export const controlCalls = new Hono<Env>().post("/apps/:appId/calls", async (c) => {
  const { store, clock } = c.get("emulator");
  const appId = c.req.param("appId").toLowerCase();
  const app = store.apps.get(appId);
  if (!app) throw apiError("ERR_APP_NOT_FOUND", { appId });
  const body = await readBody(c, CALL_BODY_LIMIT);
  const now = clock.now();
  let call: CallRecord;
  try {
    call = parseCall(body, {
      appId,
      region: app.meta.region,
      now,
      isUser: (uid) => app.activeUser(uid) !== undefined,
      isGroup: (guid) => app.groups.get(guid) !== undefined,
      isMember: (guid, uid) => app.groups.member(guid, uid) !== undefined,
      isTaken: (sessionId) => app.calls.get(sessionId) !== undefined,
    });
  } catch (e) {
    if (e instanceof SeedError && e.path !== undefined) throw badRequest({ [e.path]: [`The ${e.path} ${e.problem}.`] });
    throw e;
  }
  const messages = app.addCall(call);
  emitCallEvents(app, call, messages);
  store.changed();
  return c.json({ call: callView(call, now), messageIds: messages.map((m) => String(m.id)) }, 201);
});
