import type { AppState } from "../../store/app-state.js";
import type { CallParticipantRecord, CallRecord, MessageRecord } from "../../store/types.js";
import { messageView } from "../../views/messages.js";

/**
 * The webhook payloads of the calls triggers (reference §3.4), for calls recorded through the control plane and
 * calls signalled by the SDK alike.
 */

/** A participant as `call_participant_*` and `call_ended` name them. */
export function occupantOf(app: AppState, call: CallRecord, p: CallParticipantRecord) {
  return { uid: p.uid, name: app.users.get(p.uid)?.name ?? p.uid, joined_at: p.joinedAt, left_at: p.leftAt, audio_call: String(call.type === "audio") };
}

/** `data` of a calls trigger: `message` is the call message it reports, `p` the participant who joined or left. */
export function callEventData(app: AppState, call: CallRecord, trigger: string, message?: MessageRecord, p?: CallParticipantRecord): unknown {
  const sessionId = call.sessionId;
  switch (trigger) {
    case "call_initiated":
      return { call: messageView(app, message!) };
    case "call_started":
      return { created_at: call.startedAt, sessionId };
    case "call_participant_joined":
    case "call_participant_left":
      return { occupant: occupantOf(app, call, p!), sessionId };
    case "call_ended":
      return {
        all_occupants: call.participants.filter((x) => x.joinedAt !== undefined).map((x) => occupantOf(app, call, x)),
        destroyed_at: call.endedAt,
        created_at: call.startedAt ?? call.initiatedAt,
        sessionId,
      };
    default:
      return { call: messageView(app, message!), sessionId };
  }
}
