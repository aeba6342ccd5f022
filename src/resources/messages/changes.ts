import type { AppState } from "../../store/app-state.js";
import type { JsonObject, MessageRecord, UserRecord } from "../../store/types.js";
import { groupEntity } from "../../views/groups.js";
import { mentionsIn } from "./send.js";
import { actorEntity, entity, messageView, SYSTEM_UID } from "../../views/messages.js";

/** An edit as checked by the route: the message's new data and, when given, its new tags. */
export interface Edit {
  data: JsonObject;
  tags?: string[];
}

/** The edited/deleted action message: `by` the actor, `on` the message as it is now, `for` its receiver. */
function messageAction(app: AppState, now: number, m: MessageRecord, action: "edited" | "deleted", actor: UserRecord | undefined) {
  const by = actor?.uid ?? SYSTEM_UID;
  const group = m.receiverType === "group" ? app.groups.get(m.receiver) : undefined;
  const receiver = group ? entity(groupEntity(app, group), "group") : entity(actorEntity(app, m.receiver), "user");
  return app.addMessage({
    conversationId: m.conversationId,
    sender: by,
    receiverType: m.receiverType,
    receiver: m.receiver,
    category: "action",
    type: "message",
    data: {
      action,
      entities: { by: entity(actorEntity(app, by), "user"), for: receiver, on: entity(messageView(app, m), "message") },
    } as JsonObject,
    sentAt: now,
    updatedAt: now,
  });
}

/** Applies a checked edit (from the route, or from a moderator approving a held edit); returns the action message. */
export function commitEdit(app: AppState, now: number, m: MessageRecord, edit: Edit, actor: UserRecord | undefined): MessageRecord {
  m.data = edit.data;
  if (edit.tags) m.tags = edit.tags;
  const mentioned = mentionsIn(app, m.data.text);
  if (mentioned) m.mentionedUids = mentioned;
  else delete m.mentionedUids;
  m.editedAt = now;
  m.editedBy = actor?.uid ?? SYSTEM_UID;
  m.updatedAt = now;
  app.messages.touch(m);
  const action = messageAction(app, now, m, "edited", actor);
  app.emit("message_edited", () => ({ message: messageView(app, action) }), action);
  return action;
}

/** Soft-deletes a message (the first delete counts); returns the action message. */
export function commitDelete(app: AppState, now: number, m: MessageRecord, actor: UserRecord | undefined): MessageRecord {
  m.deletedAt ??= now;
  m.deletedBy ??= actor?.uid ?? SYSTEM_UID;
  m.updatedAt = now;
  app.messages.touch(m);
  const action = messageAction(app, now, m, "deleted", actor);
  app.emit("message_deleted", () => ({ message: messageView(app, action) }), action);
  return action;
}
