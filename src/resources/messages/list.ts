import { compareMessages, idOrdered, lowerBoundId, lowerBoundKey, type MessageKey } from "../../store/messages.js";
import { firstWhere } from "../../util/search.js";
import { parseConversationId } from "../../store/conversation-ids.js";
import type { AppState } from "../../store/app-state.js";
import type { MessageRecord, UserRecord } from "../../store/types.js";
import { inRange, RANGE } from "../../http/validate.js";
import { badRequest, keyedMap, type Details } from "../../http/errors.js";
import { queryParams } from "../../http/advice.js";
import type { Ignored } from "../../http/operation.js";
import { q, type ParsedQuery } from "../../http/query-spec.js";
import { MESSAGE_TYPES } from "./send.js";
import type { Visible } from "../../views/access.js";
import { allowList } from "../roles/enforce.js";

/** A list of messages in time order (a conversation or a thread), with the id range the reader may see of it. */
export interface Source {
  messages: readonly MessageRecord[];
  after: number;
  until: number;
}

export interface Cursor {
  affix: "append" | "prepend";
  id?: number;
  sentAt?: number;
  limit: number;
  /** Where the `id` cursor stands in time order (lists with imported history are searched by it). */
  key?: MessageKey;
}

export function sourceOf(app: AppState, v: Visible): Source {
  return { messages: app.messages.conversation(v.conversationId), after: v.after, until: v.until };
}

/** Where a walk over `list` starts: append from the cursor on, prepend from just before it. */
function startAt(list: readonly MessageRecord[], c: Cursor): number {
  const byKey = c.key && !idOrdered(list) ? c.key : undefined;
  if (c.affix === "append") {
    if (c.id !== undefined) return byKey ? firstWhere(list, (m) => compareMessages(m, byKey) > 0) : lowerBoundId(list, c.id + 1);
    if (c.sentAt !== undefined) return firstAtOrAfter(list, c.sentAt);
    return 0;
  }
  if (c.id !== undefined) return (byKey ? lowerBoundKey(list, byKey) : lowerBoundId(list, c.id)) - 1;
  if (c.sentAt !== undefined) return firstAtOrAfter(list, c.sentAt) - 1;
  return list.length - 1;
}

function firstAtOrAfter(list: readonly MessageRecord[], sentAt: number): number {
  return firstWhere(list, (m) => m.sentAt >= sentAt);
}

/**
 * Up to `limit` messages from the sources that pass `keep`, walking from the cursor (append: forwards, prepend:
 * backwards), merged in time order across sources; the result is in ascending time order either way. The cost is
 * the binary searches plus the messages walked, whatever the app holds in total (a list with imported history
 * slotted in is walked through its hidden stretches, as its ids do not grow along it).
 */
export function walk(sources: Source[], cursor: Cursor, keep: (m: MessageRecord) => boolean): MessageRecord[] {
  const forward = cursor.affix === "append";
  // Each walk starts inside the visible range, so hidden stretches are skipped by binary search, not walked.
  const heads = sources.map((s) => {
    const i = startAt(s.messages, cursor);
    const ordered = idOrdered(s.messages);
    if (!ordered) return { s, i, ordered };
    return {
      s,
      i: forward ? Math.max(i, lowerBoundId(s.messages, s.after + 1)) : Math.min(i, lowerBoundId(s.messages, s.until + 1) - 1),
      ordered,
    };
  });
  const out: MessageRecord[] = [];
  while (out.length < cursor.limit) {
    let best: (typeof heads)[number] | undefined;
    for (const h of heads) {
      const m = h.s.messages[h.i];
      if (!m) continue;
      if (!best) best = h;
      else {
        const order = compareMessages(m, best.s.messages[best.i]);
        if (forward ? order < 0 : order > 0) best = h;
      }
    }
    if (!best) break;
    const m = best.s.messages[best.i];
    best.i += forward ? 1 : -1;
    if (m.id <= best.s.after) {
      if (!forward && best.ordered) best.i = -1; // nothing older is visible
      continue;
    }
    if (m.id > best.s.until) {
      if (forward && best.ordered) best.i = best.s.messages.length; // nothing newer is visible
      continue;
    }
    if (keep(m)) out.push(m);
  }
  return forward ? out : out.reverse();
}

/**
 * The cursor-style `meta` of message lists. On the client plane (`sdk`) it adds what the SDKs page by: `cursor`,
 * where the next page in the walk's direction starts (without it SDK 4's second `fetchPrevious()` returns nothing;
 * SDK 3 reads it even on an empty page), and `pagination`, whose `total_pages` of 1 tells both SDKs that no page
 * follows in that direction. A cursor list knows only whether another page follows (`more`), so `total` counts this
 * page and, when another follows, one message of it.
 */
export function cursorMeta(items: MessageRecord[], cursor: Cursor, extra: Record<string, unknown> = {}, sdk?: { more: boolean }) {
  const meta: Record<string, unknown> = { current: { limit: cursor.limit, count: items.length, ...extra } };
  const first = items[0];
  const last = items.at(-1);
  if (first && last) {
    meta.previous = { affix: "prepend", sentAt: first.sentAt, id: String(first.id) };
    meta.next = { affix: "append", sentAt: last.sentAt, id: String(last.id) };
  }
  if (sdk) {
    const edge = cursor.affix === "prepend" ? first : last;
    meta.cursor = edge ? { affix: cursor.affix, id: String(edge.id), sentAt: edge.sentAt } : { affix: cursor.affix };
    const total = items.length + (sdk.more ? 1 : 0);
    meta.pagination = { total, count: items.length, per_page: cursor.limit, current_page: 1, total_pages: Math.max(1, Math.ceil(total / cursor.limit)) };
  }
  return meta;
}

/**
 * `walk` that also says whether another page follows in the walk's direction: it walks one message further and
 * leaves that one out.
 */
export function walkPage(sources: Source[], cursor: Cursor, keep: (m: MessageRecord) => boolean): { items: MessageRecord[]; more: boolean } {
  const items = walk(sources, { ...cursor, limit: cursor.limit + 1 }, keep);
  const more = items.length > cursor.limit;
  if (more) {
    if (cursor.affix === "prepend") items.shift();
    else items.pop();
  }
  return { items, more };
}

export type Filter = (m: MessageRecord) => boolean;

/** Every category the SDK defines (`CometChat.CATEGORY`): a list may ask for any of them. */
const CATEGORIES = ["message", "custom", "interactive", "action", "call", "agentic", "card"] as const;

/** Chat types, and the other types the SDK defines (`CometChat.MESSAGE_TYPE`: media, custom, the agentic ones). */
const LISTED_TYPES: readonly string[] = [...MESSAGE_TYPES, "media", "custom", "assistant", "tool-result", "tool-arguments"];

/**
 * The message filters every message list shares, in the order the platform reports their problems. `sentAt` is
 * both the cursor (`sentAt`) and a range (`sentAt[from]`, `sentAt[to]`); `limit`'s default is the list's.
 */
export const MESSAGE_QUERY = {
  limit: q.int({ min: 1, max: 1000 }),
  // At most 15 digits: checked by readMessageQuery (the notation has no length for an integer).
  id: q.str(),
  affix: q.oneOf(["append", "prepend"]),
  sentAt: q.int(),
  category: q.listOf(CATEGORIES),
  categories: q.listOf(CATEGORIES),
  type: q.list(),
  types: q.list(),
  attachmentTypes: q.listOf(["image", "video", "audio", "file"]),
  receiverType: q.oneOf(["user", "group"]),
  searchKey: q.str(),
  sender: q.str(),
  senders: q.list(),
  "sentAt[from]": q.int(),
  "sentAt[to]": q.int(),
  updatedAt: q.bounds(RANGE),
  editedAt: q.bounds(RANGE),
  tags: q.list(),
  mentionedUids: q.list(),
  fromTimestamp: q.int(),
  // An integer only with fromTimestamp (ignored without it): checked by readMessageQuery.
  toTimestamp: q.str(),
  hasAttachments: q.bool(),
  hasMentions: q.bool(),
  hasLinks: q.bool(),
  hasReactions: q.bool(),
  myMentionsOnly: q.bool(),
  hideDeleted: q.bool(),
  onlyDeleted: q.bool(),
  hideReplies: q.bool(),
  unread: q.bool(),
  undelivered: q.bool(),
  count: q.bool(),
  withTags: q.bool(),
  hideMessagesFromBlockedUsers: q.bool(),
  hideQuotedMessages: q.bool(),
  withThreadSubscribed: q.bool(),
  mentionsWithBlockedInfo: q.bool(),
  mentionsWithTagInfo: q.bool(),
};

export type MessageQuery = ParsedQuery<typeof MESSAGE_QUERY>;

/** `toTimestamp` without `fromTimestamp` is ignored (request advice). */
export const MESSAGE_QUERY_IGNORES: Ignored<typeof MESSAGE_QUERY>[] = [
  {
    in: "query",
    name: "toTimestamp",
    when: (c, { query }) => query.fromTimestamp === undefined && c.req.url.includes("?") && queryParams(c).toTimestamp !== undefined,
    why: "it applies only with fromTimestamp",
  },
];

/**
 * The message filters every message list shares, from the parsed query, with the checks that depend on other
 * values (the `id`'s length, a type filter for chat messages, `toTimestamp` with `fromTimestamp`, what needs
 * onBehalfOf). Returns the cursor and one predicate; the caller adds its own source and access rules.
 */
export function readMessageQuery(app: AppState, query: MessageQuery, viewer: UserRecord | undefined, opts: { defaultLimit?: number } = {}) {
  const details: Details = keyedMap();
  const fail = (name: string, message: string) => void (details[name] ??= []).push(message);
  const limit = query.limit ?? opts.defaultLimit ?? 10;
  let id: number | undefined;
  if (query.id !== undefined) {
    if (/^\d{1,15}$/.test(query.id)) id = Number(query.id);
    else fail("id", "The id must be an integer.");
  }
  const cursor: Cursor = { affix: query.affix ?? "append", id, sentAt: query.sentAt, limit };
  if (id !== undefined) cursor.key = app.messages.keyOf(id);
  const categories = [...(query.category ?? []), ...(query.categories ?? [])];
  const types = [...(query.type ?? []), ...(query.types ?? [])];
  // A type filter for chat messages only (no custom or action category asked for) must name a type the SDK knows.
  if (types.length && categories.length && categories.every((c) => c === "message"))
    types.forEach((t, i) => {
      if (!LISTED_TYPES.includes(t)) fail(`types.${i}`, `The selected types.${i} is invalid.`);
    });
  const { attachmentTypes, receiverType } = query;
  const searchKey = query.searchKey?.toLowerCase();
  const sender = query.sender?.toLowerCase();
  const senders = query.senders?.map((u) => u.toLowerCase());
  const sentFrom = query["sentAt[from]"];
  const sentTo = query["sentAt[to]"];
  const ranges = {
    sentAt: sentFrom !== undefined || sentTo !== undefined ? { from: sentFrom, to: sentTo } : undefined,
    updatedAt: query.updatedAt,
    editedAt: query.editedAt,
  };
  const tags = query.tags;
  const mentionedUids = query.mentionedUids?.map((u) => u.toLowerCase());
  const from = query.fromTimestamp;
  let to: number | undefined;
  if (from !== undefined && query.toTimestamp !== undefined) {
    if (/^-?\d+$/.test(query.toTimestamp)) to = Number(query.toTimestamp);
    else fail("toTimestamp", "The toTimestamp must be an integer.");
  }
  const flags = query;
  if ((flags.unread || flags.undelivered || flags.myMentionsOnly) && !viewer)
    fail("onBehalfOf", "The onBehalfOf header is required for unread, undelivered and myMentionsOnly.");
  if (Object.keys(details).length > 0) throw badRequest(details);

  const categorySet = categories.length ? new Set<string>(categories) : undefined;
  const typeSet = types.length ? new Set(types) : undefined;
  // What the viewer's role lets them list, and whom they blocked.
  const roleCategories = allowList(app, viewer, "listMessages.allowedMessageCategories");
  const roleTypes = allowList(app, viewer, "listMessages.allowedMessageTypes");
  const blocked = flags.hideMessagesFromBlockedUsers && viewer ? app.relations.blockedByUser(viewer.uid) : undefined;
  const attachmentSet = attachmentTypes ? new Set<string>(attachmentTypes) : undefined;
  const hasAttachments = (m: MessageRecord) =>
    (Array.isArray(m.data.attachments) && m.data.attachments.length > 0) || typeof m.data.url === "string";
  const text = (m: MessageRecord) => (typeof m.data.text === "string" ? m.data.text : "");
  /** Read pointers are per conversation: looked up once per conversation met. */
  const pointers = new Map<string, { readId?: number; deliveredId?: number }>();
  const pointer = (m: MessageRecord) => {
    let p = pointers.get(m.conversationId);
    if (!p) {
      const s = app.conversations.state(viewer!.uid, m.conversationId);
      pointers.set(m.conversationId, (p = { readId: s?.readId, deliveredId: s?.deliveredId }));
    }
    return p;
  };

  const keep: Filter = (m) => {
    if (categorySet && !categorySet.has(m.category)) return false;
    if (roleCategories && !roleCategories.includes(m.category)) return false;
    if (roleTypes && !roleTypes.includes(m.type)) return false;
    if (blocked?.has(m.sender)) return false;
    if (typeSet && !typeSet.has(m.type)) return false;
    if (receiverType && m.receiverType !== receiverType) return false;
    if (sender && m.sender !== sender) return false;
    if (senders && !senders.includes(m.sender)) return false;
    if (ranges.sentAt && !inRange(m.sentAt, ranges.sentAt)) return false;
    // updatedAt ranges match messages changed after they were sent only.
    if (ranges.updatedAt && !(m.updatedAt !== m.sentAt && inRange(m.updatedAt, ranges.updatedAt))) return false;
    if (ranges.editedAt && !inRange(m.editedAt, ranges.editedAt)) return false;
    if (flags.hideDeleted && m.deletedAt !== undefined) return false;
    if (flags.onlyDeleted && m.deletedAt === undefined) return false;
    if (flags.hideReplies && m.parentId !== undefined) return false;
    if (searchKey && !text(m).toLowerCase().includes(searchKey)) return false;
    if (flags.hasAttachments && !hasAttachments(m)) return false;
    if (attachmentSet && !(attachmentSet.has(m.type) && m.category === "message" && hasAttachments(m))) return false;
    if (flags.hasMentions && !m.mentionedUids?.length) return false;
    if (mentionedUids && !mentionedUids.some((u) => m.mentionedUids?.includes(u))) return false;
    if (flags.myMentionsOnly && !m.mentionedUids?.includes(viewer!.uid)) return false;
    if (flags.hasLinks && !/(https?:\/\/|www\.)\S+/i.test(text(m))) return false;
    if (flags.hasReactions && app.reactions.of(m.id).length === 0) return false;
    if (tags && !tags.some((t) => m.tags?.includes(t))) return false;
    if (from !== undefined && m.sentAt < from) return false;
    if (to !== undefined && m.sentAt > to) return false;
    if ((flags.unread || flags.undelivered) && (m.sender === viewer!.uid || (flags.unread ? m.readAt : m.deliveredAt) !== undefined || app.messages.upTo(m, pointer(m)[flags.unread ? "readId" : "deliveredId"])))
      return false;
    return true;
  };
  return { cursor, keep, flags };
}

/** Messages of `sources` after the viewer's read pointer that others sent (for `count=true`), except those `skip` names. */
export function unreadCount(app: AppState, viewer: UserRecord, sources: Source[], skip?: Filter): number {
  let n = 0;
  for (const s of sources) {
    const first = s.messages[0];
    if (!first) continue;
    const readId = app.conversations.state(viewer.uid, first.conversationId)?.readId;
    const read = readId === undefined ? undefined : app.messages.keyOf(readId);
    const ordered = idOrdered(s.messages);
    for (let i = s.messages.length - 1; i >= 0; i--) {
      const m = s.messages[i];
      // Time order: what is before the read marker is read.
      if (read && compareMessages(m, read) <= 0) break;
      if (m.id <= s.after) {
        if (ordered) break;
        continue;
      }
      const unread = m.id <= s.until && m.readAt === undefined && m.sender !== viewer.uid;
      if (unread && m.category !== "action" && m.parentId === undefined && !m.largeGroup && !skip?.(m)) n++;
    }
  }
  return n;
}

/**
 * The SDK's unread counts (`unread=1&count=1` on the client plane): per conversation of `sources` with unread
 * messages that pass `keep` (the list's own filters: receiverType, hideMessagesFromBlockedUsers, categories), the
 * other user or the group and how many. The SDK's `getUnreadMessageCount*` read this list.
 */
export function unreadCounts(app: AppState, viewer: UserRecord, sources: Source[], keep: Filter) {
  const out: { entityId: string; entityType: "user" | "group"; count: number }[] = [];
  for (const s of sources) {
    const first = s.messages[0];
    const at = first && parseConversationId(first.conversationId);
    if (!at) continue;
    const count = unreadCount(app, viewer, [s], (m) => !keep(m));
    if (count === 0) continue;
    if ("guid" in at) out.push({ entityId: at.guid, entityType: "group", count });
    else out.push({ entityId: at.uids[0] === viewer.uid ? at.uids[1] : at.uids[0], entityType: "user", count });
  }
  return out;
}
