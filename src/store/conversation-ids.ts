/** Conversation ids as the platform forms them (reference §1.2). */

const GROUP_PREFIX = "group_";
const USER_SEPARATOR = "_user_";

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
  // Exactly one separator with something either side (what `split` would say, without the array).
  const at = id.indexOf(USER_SEPARATOR);
  const end = at + USER_SEPARATOR.length;
  if (at <= 0 || end >= id.length || id.indexOf(USER_SEPARATOR, end) !== -1) return undefined;
  return { uids: [id.slice(0, at), id.slice(end)] };
}
