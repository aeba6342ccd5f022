import { callSeconds, MEDIA_DOMAIN, participantSeconds } from "../store/calls.js";
import type { CallParticipantRecord, CallRecord, RecordingRecord, TranscriptionRecord } from "../store/types.js";

/** A call object embeds at most this many transcriptions, the most recent ones. */
export const EMBEDDED_TRANSCRIPTIONS = 5;

/** `"HH:MM:SS"`, as `totalDuration` shows it. */
export function clockTime(seconds: number): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${pad(Math.floor(seconds / 3600))}:${pad(Math.floor(seconds / 60) % 60)}:${pad(seconds % 60)}`;
}

/** Devices that joined: the platform counts each device of a user once. */
export function totalParticipants(call: CallRecord): number {
  let n = 0;
  for (const p of call.participants) if (p.joinedAt !== undefined) n++;
  return n;
}

/** Minutes (floats) go to the audio or the video total by the call's type. */
function minutes(call: CallRecord, seconds: number) {
  const m = seconds / 60;
  return { totalAudioMinutes: call.type === "audio" ? m : 0, totalVideoMinutes: call.type === "video" ? m : 0 };
}

function participantView(call: CallRecord, p: CallParticipantRecord, now: number): Record<string, unknown> {
  const seconds = participantSeconds(p, now);
  const out: Record<string, unknown> = { uid: p.uid, ...minutes(call, seconds), totalDuration: seconds / 60 };
  if (p.deviceId !== undefined) out.deviceId = p.deviceId;
  out.isJoined = p.joinedAt !== undefined;
  if (p.joinedAt !== undefined) {
    out.joinedAt = p.joinedAt;
    out.mid = call.mid;
  }
  out.state = p.state;
  if (p.leftAt !== undefined) out.leftAt = p.leftAt;
  return out;
}

export function transcriptionView(call: CallRecord, t: TranscriptionRecord): Record<string, unknown> {
  return {
    roomName: `${call.sessionId}@conference.rtc.${MEDIA_DOMAIN}`,
    mid: call.mid,
    tid: t.tid,
    startTime: t.startTime,
    endTime: t.endTime,
    transcriptDate: t.transcriptDate,
    transcriptUrl: t.transcriptUrl,
  };
}

function recordingView(r: RecordingRecord): Record<string, unknown> {
  return { rid: r.rid, duration: (r.endTime - r.startTime) / 60, startTime: r.startTime, endTime: r.endTime, recording_url: r.recording_url };
}

export interface CallViewOptions {
  /** `GET /calls/{sessionId}` adds `metaData` and `tags`. */
  single?: boolean;
  hideTranscription?: boolean;
}

/**
 * A call as the calls API shows it, keys in the reference's order. Durations and minutes come from the times (an
 * ongoing call's up to `now`); optional times are left out when unset; recordings and the 5 most recent
 * transcriptions are embedded when the call has them.
 */
export function callView(call: CallRecord, now: number, opts: CallViewOptions = {}): Record<string, unknown> {
  const seconds = callSeconds(call, now);
  const out: Record<string, unknown> = { sessionId: call.sessionId, ...minutes(call, seconds), totalDuration: clockTime(seconds) };
  if (opts.single) out.metaData = call.metadata ?? [];
  out.hasRecording = call.recordings.length > 0;
  out.hasTranscription = call.transcriptions.length > 0;
  for (const key of ["initiatedAt", "initiator", "mode", "receiver", "receiverType", "status"] as const) out[key] = call[key];
  if (opts.single) out.tags = call.tags;
  out.totalDurationInMinutes = seconds / 60;
  out.totalParticipants = totalParticipants(call);
  out.type = call.type;
  out.mid = call.mid;
  if (call.startedAt !== undefined) out.startedAt = call.startedAt;
  if (call.endedAt !== undefined) out.endedAt = call.endedAt;
  out.participants = call.participants.map((p) => participantView(call, p, now));
  if (call.recordings.length > 0) out.recordings = call.recordings.map(recordingView);
  if (call.transcriptions.length > 0 && !opts.hideTranscription)
    out.transcriptions = call.transcriptions.slice(-EMBEDDED_TRANSCRIPTIONS).map((t) => transcriptionView(call, t));
  return out;
}
