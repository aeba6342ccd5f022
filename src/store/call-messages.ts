import { MEDIA_DOMAIN } from "./calls.js";
import { conversationIdOf } from "./conversation-ids.js";
import type { CallRecord, CallStatus, GroupRecord, JsonObject, MessageRecord, UserRecord } from "./types.js";

/** Who and what a call message names, looked up as they are when the messages are made. */
export interface CallParties {
  user(uid: string): UserRecord | undefined;
  group(guid: string): GroupRecord | undefined;
  membersCount(guid: string): number;
}

/** A call message before it gets its id; its `updatedAt` is its `sentAt`. */
export type CallMessage = Omit<MessageRecord, "id" | "updatedAt">;

/** The message action of each final status (the SDK spells the canceled one "cancelled"). */
const FINAL_ACTION: Record<Exclude<CallStatus, "initiated" | "ongoing">, string> = {
  ended: "ended",
  unanswered: "unanswered",
  rejected: "rejected",
  canceled: "cancelled",
};

type Entity = { entity: JsonObject; entityType: string };

function userSnapshot(u: UserRecord | undefined, uid: string): JsonObject {
  const out: JsonObject = { uid, name: u?.name ?? uid };
  if (u?.avatar !== undefined) out.avatar = u.avatar;
  Object.assign(out, { status: u?.status ?? "offline", role: u?.role ?? "default" });
  if (u) out.createdAt = u.createdAt;
  return out;
}

function groupSnapshot(g: GroupRecord | undefined, guid: string, membersCount: number, conversationId: string): JsonObject {
  const out: JsonObject = { guid, name: g?.name ?? guid };
  if (g?.icon !== undefined) out.icon = g.icon;
  if (g) Object.assign(out, { type: g.type, createdAt: g.createdAt });
  if (g?.owner !== undefined) out.owner = g.owner;
  return Object.assign(out, { membersCount, conversationId });
}

/** The message action a call status leaves (`ongoing` once answered; the SDK spells the canceled one "cancelled"). */
export function callAction(status: CallStatus): string {
  return status === "initiated" || status === "ongoing" ? status : FINAL_ACTION[status];
}

/**
 * The `category: "call"` messages a call leaves in its conversation, one per status it went through, as the
 * platform shows them: `initiated` when it rang, `ongoing` once answered, then how it ended. The receiver of a
 * one-on-one call answers or rejects it; everything else is the initiator's doing.
 */
export function callMessages(call: CallRecord, parties: CallParties): CallMessage[] {
  const events: [string, number][] = [["initiated", call.initiatedAt]];
  if (call.startedAt !== undefined) events.push(["ongoing", call.startedAt]);
  if (call.status !== "initiated" && call.status !== "ongoing")
    events.push([FINAL_ACTION[call.status], call.endedAt ?? call.startedAt ?? call.initiatedAt]);
  return events.map(([action, at]) =>
    callMessage(call, parties, action, at, call.receiverType === "user" && (action === "ongoing" || action === "rejected") ? call.receiver : call.initiator),
  );
}

/**
 * One call message: `action` (the call's status it reports, or `busy`) taken by `actor` at `at`. It carries `by`
 * (who acted), `for` (the receiver) and `on` (the call entity as it is at that moment). Entities are snapshots
 * taken now, like those of action messages.
 */
export function callMessage(call: CallRecord, parties: CallParties, action: string, at: number, actor: string): CallMessage {
  const conversationId = conversationIdOf({ sender: call.initiator, receiver: call.receiver, receiverType: call.receiverType });
  const initiator: Entity = { entity: userSnapshot(parties.user(call.initiator), call.initiator), entityType: "user" };
  const receiver: Entity =
    call.receiverType === "user"
      ? { entity: { ...userSnapshot(parties.user(call.receiver), call.receiver), conversationId }, entityType: "user" }
      : {
          entity: groupSnapshot(parties.group(call.receiver), call.receiver, parties.membersCount(call.receiver), conversationId),
          entityType: "group",
        };
  const by: Entity = actor === call.initiator ? initiator : { entity: userSnapshot(parties.user(actor), actor), entityType: "user" };
  const on: JsonObject = {
    sessionid: call.sessionId,
    conversationId,
    sender: call.initiator,
    receiverType: call.receiverType,
    receiver: call.receiver,
    status: action,
    type: call.type,
    data: { entities: { sender: initiator, receiver }, metadata: call.metadata ?? {} },
    wsChannel: { secret: call.mid.replace(/-/g, ""), service: `rtc.${MEDIA_DOMAIN}`, identity: call.initiator },
    initiatedAt: call.initiatedAt,
    joinedAt: call.initiatedAt,
  };
  if (action !== "initiated" && call.startedAt !== undefined) on.startedAt = call.startedAt;
  return {
    conversationId,
    sender: call.initiator,
    receiverType: call.receiverType,
    receiver: call.receiver,
    category: "call",
    type: call.type,
    data: { action, entities: { by, for: receiver, on: { entity: on, entityType: "call" } } },
    sentAt: at,
  };
}
