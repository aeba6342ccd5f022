/** Conversation ids as the platform forms them (reference §1.2). */

const GROUP_PREFIX = "group_";

/** One-on-one: both uids in ascending order around `_user_`. */
export function userConversationId(a: string, b: string): string {
  return a < b ? `${a}_user_${b}` : `${b}_user_${a}`;
}

export function groupConversationId(guid: string): string {
  return GROUP_PREFIX + guid;
}

export function conversationIdOf(m: { sender: string; receiver: string; receiverType: "user" | "group" }): string {
  return m.receiverType === "group" ? groupConversationId(m.receiver) : userConversationId(m.sender, m.receiver);
}


/** `group_<guid>` -> guid; a one-on-one id -> its two uids; anything else -> undefined. */
export function parseConversationId(id: string): { guid: string } | { uids: [string, string] } | undefined {
  if (id.startsWith(GROUP_PREFIX)) return { guid: id.slice(GROUP_PREFIX.length) };
  const parts = id.split("_user_");
  return parts.length === 2 && parts[0] && parts[1] ? { uids: [parts[0], parts[1]] } : undefined;
}
