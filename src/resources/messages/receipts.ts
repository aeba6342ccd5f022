import type { AppState } from "../../store/app-state.js";
import type { MessageRecord } from "../../store/types.js";
import { userEntity } from "../../views/users.js";

export interface Receipt {
  recipient: Record<string, unknown>;
  deliveredAt?: number;
  readAt?: number;
}

/**
 * Who has received and read a message, as `getMessageReceipts` reads them from `GET messages/{id}`
 * (`data.receipts.data[]`): its receiver in a one-on-one conversation, or each current member of its group other
 * than the sender, whose delivery or read marker has reached it. Reading implies delivery. The cost is the group's
 * members.
 */
export function receiptsOf(app: AppState, m: MessageRecord): Receipt[] {
  const group = m.receiverType === "group" ? app.groups.get(m.receiver) : undefined;
  const recipients = m.receiverType === "user" ? [m.receiver] : group ? app.groups.membership(group.guid).members.keys() : [];
  const out: Receipt[] = [];
  for (const uid of recipients) {
    const user = uid === m.sender ? undefined : app.activeUser(uid);
    if (!user) continue;
    const state = app.conversations.state(uid, m.conversationId);
    // Imported one-on-one history carries its own times.
    const readAt = m.receiverType === "user" && m.readAt !== undefined ? m.readAt : app.messages.upTo(m, state?.readId) ? state!.readAt : undefined;
    const deliveredAt =
      m.receiverType === "user" && m.deliveredAt !== undefined ? m.deliveredAt : app.messages.upTo(m, state?.deliveredId) ? state!.deliveredAt : readAt;
    if (deliveredAt === undefined && readAt === undefined) continue;
    const receipt: Receipt = { recipient: userEntity(user) };
    if (deliveredAt !== undefined) receipt.deliveredAt = deliveredAt;
    if (readAt !== undefined) receipt.readAt = readAt;
    out.push(receipt);
  }
  return out;
}
