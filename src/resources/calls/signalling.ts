import type { Ctx } from "../../http/context.js";
import { apiError } from "../../http/errors.js";
import { ok } from "../../http/reply.js";
import { operation, routes } from "../../http/operation.js";
import type { AppState } from "../../store/app-state.js";
import { MEDIA_DOMAIN, takesPart } from "../../store/calls.js";
import { callAction } from "../../store/call-messages.js";
import { MAX_CALL_PARTICIPANTS } from "../../store/seed.js";
import { CALL_TYPES, type CallParticipantRecord, type CallRecord, type UserRecord } from "../../store/types.js";
import { randomHex, randomUuid } from "../../util/random.js";
import { pathGroup } from "../groups/membership.js";
import { messageView } from "../../views/messages.js";
import { requireUser } from "../users/lookup.js";
import { callEventData } from "./events.js";
import { callView } from "../../views/calls.js";

/**
 * The chat SDK's call signalling on the client plane (`initiateCall`, `acceptCall`, `rejectCall`, `cancelCall`,
 * `endCall`, the busy and unanswered answers, `updateCallType`). Each step changes the call record the calls plane
 * reads, leaves a call message in the conversation and publishes its trigger with it; realtime turns that into the
 * `message` frame the other side's call listener hears. The media session itself is the calls SDK's, not emulated.
 */

/** What `PUT /calls/{sessionId}` may set, as the SDK spells it (`cancelled`, `busy`). */
const STEPS = ["ongoing", "rejected", "busy", "cancelled", "unanswered", "ended"] as const;
type Step = (typeof STEPS)[number];

/** The webhook trigger of each step (a later join of a group call is `call_participant_joined`). */
const TRIGGER: Record<Step, string> = {
  ongoing: "call_started",
  rejected: "call_rejected",
  busy: "call_busy",
  cancelled: "call_cancelled",
  unanswered: "call_unanswered",
  ended: "call_ended",
};

function deviceId(): string {
  return `${randomUuid()}@rtc.${MEDIA_DOMAIN}/${randomHex(8)}`;
}

/** The call named by the path, with `actor` a part of it (a group call: any member of the group). */
function pathCall(c: Ctx, actor: UserRecord): CallRecord {
  const app = c.get("app");
  const sessionId = c.req.param("sessionId")!;
  const call = app.calls.get(sessionId);
  if (!call) throw apiError("ERR_CALL_SESSION_NOT_FOUND", { sessionId });
  const party = call.receiverType === "group" ? app.groups.member(call.receiver, actor.uid) !== undefined || takesPart(call, actor.uid) : takesPart(call, actor.uid);
  if (!party) throw apiError("ERR_CALL_NOT_A_PART", { uid: actor.uid, sessionId });
  return call;
}

/**
 * Stores the step's call message, publishes `trigger` with it (and `call_participant_joined` / `_left` for
 * `moved`), answers the message as the SDK reads it.
 */
function step(c: Ctx, call: CallRecord, action: string, actor: UserRecord, trigger: string, moved: { joined?: CallParticipantRecord[]; left?: CallParticipantRecord[] } = {}) {
  const app = c.get("app");
  const m = app.addCallStep(call, action, c.get("emulator").clock.now(), actor.uid);
  // A later join of a group call reports the joiner: it carries the message so that realtime pushes it.
  const joinOnly = trigger === "call_participant_joined";
  app.emit(trigger, () => callEventData(app, call, trigger, m, joinOnly ? moved.joined![0] : undefined), m);
  for (const p of joinOnly ? [] : (moved.joined ?? [])) app.emit("call_participant_joined", () => callEventData(app, call, "call_participant_joined", undefined, p));
  for (const p of moved.left ?? []) app.emit("call_participant_left", () => callEventData(app, call, "call_participant_left", undefined, p));
  return ok(c, messageView(app, m, actor));
}

/** The user joins the call now: a participant with a device of its own (or their earlier record, rejoining). */
function join(app: AppState, call: CallRecord, uid: string, now: number): CallParticipantRecord {
  let p = call.participants.find((x) => x.uid === uid);
  if (!p) app.calls.addParticipant(call, (p = { uid, state: "ongoing" }));
  Object.assign(p, { state: "ongoing", deviceId: p.deviceId ?? deviceId(), joinedAt: now });
  delete p.leftAt;
  app.activity.noteJoin(uid, now);
  return p;
}

/** The call in progress that `uid` is in (joined and not left), if any. */
function busyIn(app: AppState, uid: string): CallRecord | undefined {
  for (const call of app.calls.ongoing()) if (call.participants.some((p) => p.uid === uid && p.state === "ongoing")) return call;
  return undefined;
}

/** The documented busy refusals of a new call: the caller in another call, then the group's or the receiver's. */
function refuseBusy(app: AppState, caller: string, receiverType: "user" | "group", receiver: string): void {
  const mine = busyIn(app, caller);
  if (mine) throw apiError("ERR_CALL_BUSY_SELF", { uid: caller, sessionId: mine.sessionId });
  if (receiverType === "user") {
    if (busyIn(app, receiver)) throw apiError("ERR_CALL_BUSY_USER", { uid: receiver });
    return;
  }
  for (const call of app.calls.ongoing())
    if (call.receiverType === "group" && call.receiver === receiver) throw apiError("ERR_CALL_BUSY_GROUP", { guid: receiver, sessionId: call.sessionId });
}

/** A group call records at most 50 users: a 51st cannot join it. */
function requireRoom(call: CallRecord, uid: string): void {
  if (call.participants.length >= MAX_CALL_PARTICIPANTS && !call.participants.some((p) => p.uid === uid))
    throw apiError("ERR_PLAN_QUOTA_RESTRICTION", { what: `A call can have at most ${MAX_CALL_PARTICIPANTS} participants.` });
}

/** Served on the client plane only (the chat SDK's calls): the platform publishes no operation ids for them. */
export const callSignalling = routes(
  operation({
    method: "POST",
    path: "/calls",
    plane: "client",
    body: {
      receiver: { required: true, type: "string", max: 100 },
      receiverType: { required: true, type: "string", in: ["user", "group"] },
      type: { required: true, type: "string", in: CALL_TYPES },
      metadata: { type: "object", maxKb: 4 },
    },
    handler: (c, { body }) => {
      const app = c.get("app");
      const actor = c.get("actor");
      const receiverType = body.receiverType as "user" | "group";
      let receiver: string;
      if (receiverType === "group") {
        const group = pathGroup(app, body.receiver as string);
        if (!app.groups.member(group.guid, actor.uid)) {
          const params = { uid: actor.uid, guid: group.guid };
          throw apiError(app.groups.ban(group.guid, actor.uid) ? "ERR_BANNED_GROUPMEMBER" : "ERR_GROUP_NOT_JOINED", params);
        }
        receiver = group.guid;
      } else {
        const user = requireUser(app, body.receiver as string);
        if (user.uid === actor.uid) throw apiError("ERR_CALLING_SELF", { uid: actor.uid });
        const params = { uid: actor.uid, receiver: user.uid };
        if (app.relations.blockOf(actor.uid, user.uid)) throw apiError("ERR_BLOCKED_RECEIVER", params);
        if (app.relations.blockOf(user.uid, actor.uid)) throw apiError("ERR_BLOCKED_SENDER", params);
        receiver = user.uid;
      }
      refuseBusy(app, actor.uid, receiverType, receiver);
      const now = c.get("emulator").clock.now();
      const participants: CallParticipantRecord[] = [{ uid: actor.uid, state: "unanswered" }];
      if (receiverType === "user") participants.push({ uid: receiver, state: "unanswered" });
      const call: CallRecord = {
        sessionId: `v1.${app.meta.region}.${app.meta.appId}.${now}${randomHex(40)}`,
        mid: randomUuid(),
        type: body.type as CallRecord["type"],
        mode: "call",
        status: "initiated",
        initiator: actor.uid,
        receiverType,
        receiver,
        initiatedAt: now,
        participants,
        recordings: [],
        transcriptions: [],
        tags: [],
      };
      if (body.metadata !== undefined) call.metadata = body.metadata as CallRecord["metadata"];
      return step(c, call, "initiated", actor, "call_initiated");
    },
  }),

  operation({
    method: "PUT",
    path: "/calls/:sessionId",
    plane: "client",
    // `initiated` is taken so that it gets its documented refusal ("Call status cannot be updated to initiated").
    body: { status: { required: true, type: "string", in: ["initiated", ...STEPS] }, joinedAt: { type: "integer" } },
    handler: (c, { body }) => {
      const actor = c.get("actor");
      const call = pathCall(c, actor);
      if (body.status === "initiated")
        throw apiError("ERR_CALL_INVALID_INIT", { uid: actor.uid, sessionId: call.sessionId, action: "initiated", reason: "a call's status cannot be updated to initiated" });
      const action = body.status as Step;
      const now = c.get("emulator").clock.now();
      const sessionId = call.sessionId;
      const isInitiator = actor.uid === call.initiator;
      const group = call.receiverType === "group";
      const refuse = (reason: string) => apiError("ERR_CALL_INVALID_INIT", { uid: actor.uid, sessionId, action, reason });
      if (call.status !== "initiated" && call.status !== "ongoing") throw apiError("ERR_CALL_TERMINATED", { sessionId, status: callAction(call.status), action });

      switch (action) {
        case "ongoing": {
          const mine = call.participants.find((p) => p.uid === actor.uid);
          if (mine?.joinedAt !== undefined && mine.leftAt === undefined)
            throw apiError(group ? "ERR_CALL_GROUP_ALREADY_JOINED" : "ERR_CALL_USER_ALREADY_JOINED", { uid: actor.uid, sessionId });
          if (isInitiator) throw refuse("the initiator is in the call from the start");
          requireRoom(call, actor.uid);
          const app = c.get("app");
          const first = call.startedAt === undefined;
          if (first) {
            call.status = "ongoing";
            call.startedAt = now;
            join(app, call, call.initiator, now);
          }
          const p = join(app, call, actor.uid, now);
          const joined = first ? call.participants.filter((x) => x.state === "ongoing") : [p];
          return step(c, call, "ongoing", actor, first ? "call_started" : "call_participant_joined", { joined });
        }
        case "rejected":
        case "busy":
          if (action === "busy" && group) throw apiError("ERR_CALL_GROUP_INVALID_STATUS", { action });
          if (call.status === "ongoing" && !group) throw apiError("ERR_CALL_ONGOING_TO_INVALID", { sessionId, action });
          if (isInitiator) throw refuse("the initiator cancels a call instead");
          if (group) {
            const mine = call.participants.find((p) => p.uid === actor.uid);
            if (mine?.joinedAt !== undefined) throw apiError("ERR_CALL_GROUP_ALREADY_JOINED", { uid: actor.uid, sessionId });
            if (mine) mine.state = "rejected";
            // A full call's record keeps its 50 users: a further member's rejection is told, not recorded.
            else if (call.participants.length < MAX_CALL_PARTICIPANTS) c.get("app").calls.addParticipant(call, { uid: actor.uid, state: "rejected" });
          } else {
            call.status = "rejected";
            call.endedAt = now;
            for (const p of call.participants) if (p.uid === actor.uid) p.state = "rejected";
          }
          return step(c, call, action, actor, TRIGGER[action]);
        case "cancelled":
        case "unanswered":
          if (call.status === "ongoing") throw apiError("ERR_CALL_ONGOING_TO_INVALID", { sessionId, action });
          if (action === "cancelled" && !isInitiator) throw refuse("only its initiator can cancel it; the receiver rejects it");
          call.status = action === "cancelled" ? "canceled" : "unanswered";
          call.endedAt = now;
          return step(c, call, action, actor, TRIGGER[action]);
        case "ended": {
          if (call.status === "initiated") throw apiError("ERR_CALL_NOT_STARTED", { sessionId });
          call.status = "ended";
          call.endedAt = now;
          const left = call.participants.filter((p) => p.state === "ongoing");
          for (const p of left) Object.assign(p, { state: "ended", leftAt: now });
          return step(c, call, "ended", actor, "call_ended", { left });
        }
      }
    },
  }),

  // `updateCallType` (an audio call switched to video): the call's type; answered as the calls API shows the call.
  operation({
    method: "PATCH",
    path: "/calls/:sessionId/type",
    plane: "client",
    body: { type: { required: true, type: "string", in: CALL_TYPES } },
    handler: (c, { body }) => {
      const call = pathCall(c, c.get("actor"));
      if (call.status !== "initiated" && call.status !== "ongoing")
        throw apiError("ERR_CALL_TERMINATED", { sessionId: call.sessionId, status: callAction(call.status), action: String(body.type) });
      call.type = body.type as CallRecord["type"];
      c.get("app").calls.touch(call);
      return ok(c, callView(call, c.get("emulator").clock.now(), { single: true }));
    },
  }),
);
