/** Conversation ids as the platform forms them (reference §1.2). */

/** One-on-one: both uids in ascending order around `_user_`. */
export function userConversationId(a: string, b: string): string {
  return a < b ? `${a}_user_${b}` : `${b}_user_${a}`;
}

export function groupConversationId(guid: string): string {
  return `group_${guid}`;
}

export function conversationIdOf(m: { sender: string; receiver: string; receiverType: "user" | "group" }): string {
  return m.receiverType === "group" ? groupConversationId(m.receiver) : userConversationId(m.sender, m.receiver);
}
