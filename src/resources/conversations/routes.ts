import type { Ctx } from "../../http/context.js";
import { apiError, ApiError, badRequest, keyedMap, type Details } from "../../http/errors.js";
import { onBehalfOf } from "../../http/auth.js";
import { PAGE_QUERY, pageOf, pagination } from "../../http/pagination.js";
import { ok, page, pageCached, success } from "../../http/reply.js";
import { asBool, type Body } from "../../http/validate.js";
import { bodySchema, type Schema } from "../../http/schema.js";
import { checkBody } from "../../http/body-check.js";
import { operation, routes } from "../../http/operation.js";
import { q } from "../../http/query-spec.js";
import type { AppState } from "../../store/app-state.js";
import { groupConversationId, userConversationId } from "../../store/conversation-ids.js";
import type { ConversationState, GroupRecord, MessageRecord, UserRecord } from "../../store/types.js";
import { FULL_FEATURE_MEMBERS, pathGroup } from "../groups/membership.js";
import { groupView } from "../../views/groups.js";
import { parseConversationId, visibleTo, type Visible } from "../../views/access.js";
import { sourceOf, unreadCount, type Source } from "../messages/list.js";
import { idOrdered, lowerBoundId } from "../../store/messages.js";
import { messageView } from "../../views/messages.js";
import { requireUser } from "../users/lookup.js";
import { userView } from "../../views/users.js";
import { requireAllowed } from "../roles/enforce.js";
import { pinOf, type Pin } from "./pins.js";
import { conversationUpdater, updateRules } from "./updates.js";
import { positionIn, tieOrder, type ActivityItem, type UserActivity } from "../../store/conversation-activity.js";
import { isAgentic } from "../../store/agents.js";
import { relationFlags } from "../blocked-users/flags.js";

/** Where a conversation lists for its viewer and what it shows, or undefined when it does not list for them. */
interface Activity {
  visible: Visible;
  withUser?: UserRecord;
  withGroup?: GroupRecord;
  /** The newest visible message; none for a conversation reset with `preserveOrder` and quiet since. */
  last?: MessageRecord;
  /** Where it lists by activity: the last message's id (or the one it had when reset with `preserveOrder`). */
  order: number;
  /** The last message's time: activity is ordered by it first, as imported history has new ids but old times. */
  updatedAt: number;
}

/** One conversation as one user has it. */
interface Entry extends Activity {
  viewer: UserRecord;
  pin?: Pin;
  /** Its place in the viewer's activity index (on an indexed page): stands for the entry while nothing changes. */
  item?: ActivityItem;
}

/** The first message of a conversation the reader sees, thread replies aside (where it was created, for them). */
function firstShown(s: Source): MessageRecord | undefined {
  const list = s.messages;
  const ordered = idOrdered(list);
  for (let i = ordered ? lowerBoundId(list, s.after + 1) : 0; i < list.length; i++) {
    const m = list[i];
    if (m.id <= s.after) continue;
    if (m.id > s.until) {
      if (ordered) return undefined;
      continue;
    }
    if (m.parentId === undefined) return m;
  }
  return undefined;
}

/** The newest message of a conversation that the viewer sees and that updates it (see updates.ts): O(1) usually. */
function lastVisible(list: readonly MessageRecord[], v: Visible, updates: (m: MessageRecord) => boolean): MessageRecord | undefined {
  // Time order; with imported history slotted in, ids do not grow along the list and the bounds are checked each.
  const ordered = idOrdered(list);
  let i = v.until === Infinity || !ordered ? list.length - 1 : lowerBoundId(list, v.until + 1) - 1;
  while (i >= 0 && (!updates(list[i]) || (!ordered && (list[i].id > v.until || list[i].id <= v.after)))) i--;
  return i >= 0 && list[i].id > v.after ? list[i] : undefined;
}

/** The viewer's side of a conversation, or undefined when nothing in it is theirs to see (yet, or any more). */
function activityOf(app: AppState, viewer: UserRecord, conversationId: string, updates: (m: MessageRecord) => boolean): Activity | undefined {
  let visible: Visible;
  try {
    visible = visibleTo(app, viewer, conversationId);
  } catch (e) {
    if (e instanceof ApiError) return undefined;
    throw e;
  }
  const last = lastVisible(app.messages.conversation(conversationId), visible, updates);
  let order: number, updatedAt: number;
  if (last) {
    order = last.id;
    updatedAt = last.sentAt;
  } else {
    const kept = app.conversations.state(viewer.uid, conversationId);
    if (kept?.keptId === undefined) return undefined;
    order = kept.keptId;
    updatedAt = kept.keptAt!;
  }
  const parsed = parseConversationId(conversationId)!;
  if ("guid" in parsed) return { visible, withGroup: app.groups.get(parsed.guid), last, order, updatedAt };
  const other = app.users.get(parsed.uids[0] === viewer.uid ? parsed.uids[1] : parsed.uids[0]);
  return other ? { visible, withUser: other, last, order, updatedAt } : undefined;
}

function entryOf(app: AppState, viewer: UserRecord, conversationId: string, updates = conversationUpdater(app)): Entry | undefined {
  const e = activityOf(app, viewer, conversationId, updates) as Entry | undefined;
  if (!e) return undefined;
  // Completed in place (activityOf makes a new object on each call): a spread copy costs ~0.2 µs, 20 µs a page.
  e.viewer = viewer;
  e.pin = pinOf(app, viewer, conversationId);
  return e;
}

/** Every conversation `viewer` may have: their one-on-one conversations and their groups'. */
function* candidatesOf(app: AppState, viewer: UserRecord): Iterable<string> {
  yield* app.conversations.directOf(viewer.uid);
  for (const guid of app.groups.groupsOf(viewer.uid).keys()) yield groupConversationId(guid);
}

/** `viewer`'s activity index, current (see store/conversation-activity.ts). */
function activityIndex(app: AppState, viewer: UserRecord): UserActivity {
  const rules = updateRules(app);
  const updates = conversationUpdater(app, rules);
  const direct = app.conversations.directOf(viewer.uid);
  const groups = app.groups.groupsOf(viewer.uid);
  return app.conversationActivity.read(
    viewer.uid,
    rules,
    () => candidatesOf(app, viewer),
    (id) => {
      const mine = id.startsWith("group_") ? groups.has(id.slice("group_".length)) : direct.has(id);
      return mine ? activityOf(app, viewer, id, updates) : undefined;
    },
  );
}

/**
 * The receipts of a conversation's last message: in a one-on-one conversation, its receiver's delivery and read
 * (once marked); group receipts are not tracked per member, so a group's list is empty.
 */
function receiptsOf(app: AppState, m: MessageRecord): Record<string, unknown>[] {
  if (m.receiverType !== "user") return [];
  const state = app.conversations.state(m.receiver, m.conversationId);
  const out: Record<string, unknown>[] = [];
  if (state?.deliveredId !== undefined && state.deliveredId >= m.id)
    out.push({ messageId: String(m.id), receiptType: "delivery", sender: m.receiver, deliveredAt: state.deliveredAt });
  if (state?.readId !== undefined && state.readId >= m.id)
    out.push({ messageId: String(m.id), receiptType: "read", sender: m.receiver, readAt: state.readAt });
  return out;
}

/** The options that change a conversation's view. */
interface ViewOptions {
  withUserAndGroupTags?: boolean;
  withBlockedInfo?: boolean;
}

/** One key per combination of ViewOptions: what, beside the entry, a page's kept texts depend on (pageCached). */
const VIEW_SHAPES = [{}, {}, {}, {}];
const shapeOf = (o: ViewOptions): object => VIEW_SHAPES[Number(o.withUserAndGroupTags === true) + 2 * Number(o.withBlockedInfo === true)];

/** The conversation object of §2.7, for the entry's user. */
function conversationView(app: AppState, e: Entry, opts: ViewOptions = {}): Record<string, unknown> {
  const source = sourceOf(app, e.visible);
  const first = firstShown(source);
  const state = app.conversations.state(e.viewer.uid, e.visible.conversationId);
  const out: Record<string, unknown> = {
    conversationId: e.visible.conversationId,
    conversationType: e.withGroup ? "group" : "user",
    unreadMessageCount: String(unreadCount(app, e.viewer, [source])),
    createdAt: first?.sentAt ?? e.updatedAt,
    updatedAt: e.updatedAt,
  };
  // "The lastMessage property is not visible if the message has been deleted" (rest-api/conversations).
  if (e.last && e.last.deletedAt === undefined) {
    const last = messageView(app, e.last, e.viewer);
    last.receipts = { data: receiptsOf(app, e.last) };
    out.lastMessage = last;
  }
  if (e.withGroup) out.conversationWith = groupView(app, e.withGroup, { viewer: e.viewer, tags: opts.withUserAndGroupTags });
  else {
    const other = userView(e.withUser!, { viewer: e.viewer, tags: opts.withUserAndGroupTags });
    if (opts.withBlockedInfo) Object.assign(other, relationFlags(app, e.viewer, e.withUser!));
    out.conversationWith = other;
  }
  if (state?.tags) out.tags = state.tags;
  if (e.pin) {
    out.pinnedBy = e.pin.pinnedBy;
    out.pinnedAt = e.pin.pinnedAt;
  }
  return out;
}

/** Every conversation of one user: pinned ones first (the app's in their order, then the user's as pinned), then latest activity first. */
function entriesOf(app: AppState, viewer: UserRecord): Entry[] {
  const updates = conversationUpdater(app);
  const out: Entry[] = [];
  for (const id of candidatesOf(app, viewer)) {
    const e = entryOf(app, viewer, id, updates);
    if (e) out.push(e);
  }
  return out.sort(byListOrder);
}

const tieKey = (e: Entry) => ({ conversationId: e.visible.conversationId, group: e.withGroup !== undefined });
const byListOrder = (a: Entry, b: Entry) =>
  (a.pin?.rank ?? Infinity) - (b.pin?.rank ?? Infinity) || b.updatedAt - a.updatedAt || b.order - a.order || tieOrder(tieKey(a), tieKey(b));

/**
 * One page of `viewer`'s conversations with no filter but the type and the blocked users, from their activity
 * index: the pinned ones first (at most ten, looked up), then the index's order from the page's start, skipping
 * the pinned and the blocked ones by position. Reads what the page returns, pins and blocks; the total is sizes.
 */
function indexedPage(app: AppState, viewer: UserRecord, type: "user" | "group" | undefined, includeBlocked: boolean, perPage: number, pageNo: number) {
  const index = activityIndex(app, viewer);
  const list = type === "user" ? index.users : type === "group" ? index.groups : index.all;
  const wanted = (item: ActivityItem) => type === undefined || item.group === (type === "group");
  const skipped = new Set<number>();
  const skip = (item: ActivityItem | undefined) => {
    if (item && wanted(item)) skipped.add(positionIn(list, item));
  };
  // Pinned: the app's (for this viewer) and the viewer's own, when they list.
  const pinned: Entry[] = [];
  const pinnedIds = new Set<string>(app.conversations.pinnedOf(viewer.uid));
  for (const p of app.pinnedConversations) pinnedIds.add(p.guid !== undefined ? groupConversationId(p.guid) : userConversationId(viewer.uid, p.uid!));
  const blocked = (e: Entry) => !includeBlocked && e.withUser !== undefined && app.relations.blockOf(viewer.uid, e.withUser.uid) !== undefined;
  for (const id of pinnedIds) {
    const item = index.byId.get(id);
    if (!item || !wanted(item)) continue;
    skip(item);
    const e = entryOf(app, viewer, id);
    if (!e || blocked(e)) continue;
    e.item = item;
    pinned.push(e);
  }
  pinned.sort(byListOrder);
  if (!includeBlocked && type !== "group")
    for (const uid of app.relations.blockedByUser(viewer.uid).keys()) skip(index.byId.get(userConversationId(viewer.uid, uid)));
  const total = pinned.length + list.length - skipped.size;
  const start = (pageNo - 1) * perPage;
  const data = pinned.slice(start, start + perPage);
  // The rest: the (start - pinned)th listed position not skipped, then on.
  let at = Math.max(0, start - pinned.length);
  for (const p of [...skipped].sort((a, b) => a - b)) if (p <= at) at++;
  const updates = conversationUpdater(app);
  for (; data.length < perPage && at < list.length; at++) {
    if (skipped.has(at)) continue;
    const e = entryOf(app, viewer, list[at].conversationId, updates);
    if (!e) continue;
    e.item = list[at];
    data.push(e);
  }
  return { data, pagination: pagination(total, data.length, perPage, pageNo) };
}

function requireEntry(app: AppState, viewer: UserRecord, conversationId: string): Entry {
  const e = entryOf(app, viewer, conversationId);
  if (!e) throw apiError("ERR_CONVERSATION_NOT_ACCESSIBLE", { conversationId, uid: viewer.uid });
  return e;
}

/** The conversation addressed by a `/users/{uid}/...` or `/groups/{guid}/...` path, for the onBehalfOf user. */
function pathConversation(c: Ctx, kind: "user" | "group"): { viewer: UserRecord; conversationId: string; label: string } {
  const viewer = onBehalfOf(c, "required");
  const app = c.get("app");
  if (kind === "group") {
    const group = pathGroup(app, c.req.param("guid")!);
    return { viewer, conversationId: groupConversationId(group.guid), label: group.guid };
  }
  const other = requireUser(app, c.req.param("uid")!);
  return { viewer, conversationId: userConversationId(viewer.uid, other.uid), label: other.uid };
}

const TAGS = { tags: { required: true, type: "array", max: 25, items: { required: true, type: "string", max: 100 } } } as const;

/**
 * A receipt's or unread call's body: the message id, required but on the client plane (see readMessageId), so the
 * declaration names it without rules and `MESSAGE_ID` holds them, checked where the condition is known.
 */
const MESSAGE_ID_BODY: Schema = { messageId: { description: "The id of the message up to which (or after which) the call marks." } };
const MESSAGE_ID = bodySchema({ messageId: { required: true, type: "integer" } });

/**
 * The message a receipt or unread call names. The SDK's `markConversationAsRead` sends no id (client plane):
 * there it means the conversation's latest message.
 */
async function readMessageId(c: Ctx, body: Body, conversationId: string): Promise<MessageRecord> {
  if (body.messageId === undefined && c.get("actor")) {
    const latest = c.get("app").messages.conversation(conversationId).at(-1);
    if (!latest) throw apiError("ERR_CONVERSATION_NOT_FOUND", { conversationId });
    return latest;
  }
  await checkBody(body, MESSAGE_ID);
  const m = c.get("app").messages.get(Number(body.messageId));
  if (!m || m.conversationId !== conversationId) throw apiError("ERR_MESSAGE_ID_NOT_FOUND", { id: body.messageId });
  return m;
}

/**
 * A receipt: `reader` marks the messages of the conversation up to `m` delivered or read (read implies
 * delivered), and the receipt event goes out. `receiver` is how the reader names the conversation (the other
 * user's uid or the guid). Shared by the REST routes and the SDK's receipts sent over the WebSocket.
 */
export function markReceipt(app: AppState, action: "delivered" | "read", reader: UserRecord, m: MessageRecord, receiver: string, now: number): void {
  const state = app.conversations.ensure(reader.uid, m.conversationId);
  const had = { delivered: app.messages.upTo(m, state.deliveredId), read: app.messages.upTo(m, state.readId) };
  if (action === "read") {
    state.readId = app.messages.later(state.readId, m.id);
    state.readAt = now;
  }
  emitReceipt(app, action, reader, m, receiver, now);
  const delivered = action === "read" ? state.readId! : m.id;
  if (state.deliveredId === undefined || app.messages.later(state.deliveredId, delivered) !== state.deliveredId || action === "delivered") {
    state.deliveredId = app.messages.later(state.deliveredId, delivered);
    state.deliveredAt = now;
  }
  // The reader who completes a group message's receipts (the last member to deliver or read it) completes them for
  // its sender too: delivered to all, read by all (sdk/javascript/delivery-read-receipts).
  if (m.receiverType !== "group" || reader.uid === m.sender) return;
  if (!had.delivered && everyMember(app, m, (s) => app.messages.upTo(m, s?.deliveredId))) emitReceipt(app, "deliveredToAll", reader, m, receiver, now);
  if (action === "read" && !had.read && everyMember(app, m, (s) => app.messages.upTo(m, s?.readId))) emitReceipt(app, "readByAll", reader, m, receiver, now);
}

/**
 * Whether every member of a group message's group but its sender passes `marked`; never for groups of more than
 * FULL_FEATURE_MEMBERS members, whose receipts the platform does not keep (rest-api/groups/create: "Delivery and
 * read receipts for groups: up to 300 online users").
 */
function everyMember(app: AppState, m: MessageRecord, marked: (state: ConversationState | undefined) => boolean): boolean {
  const members = app.groups.membership(m.receiver).members;
  if (members.size > FULL_FEATURE_MEMBERS) return false;
  for (const uid of members.keys()) if (uid !== m.sender && !marked(app.conversations.state(uid, m.conversationId))) return false;
  return true;
}

/** The receipt events, each a frame of the SDK's `receipts` type for the message's sender (see RECEIPT_TRIGGERS). */
const RECEIPT_TRIGGERS = {
  delivered: "message_delivery_receipt",
  read: "message_read_receipt",
  deliveredToAll: "message_delivered_to_all_receipt",
  readByAll: "message_read_by_all_receipt",
} as const;

/** A receipt event: the reader marks messages of `receiver` (a uid or guid) up to `m` (or completes them for all). */
function emitReceipt(app: AppState, action: keyof typeof RECEIPT_TRIGGERS, reader: UserRecord, m: MessageRecord, receiver: string, at: number): void {
  app.emit(RECEIPT_TRIGGERS[action], () => ({
    receiver,
    receiverType: m.receiverType,
    type: "receipts",
    sender: reader.uid,
    messageSender: m.sender,
    body: { action, messageId: String(m.id), user: { uid: reader.uid, name: reader.name, status: reader.status }, timestamp: at },
  }), m);
}

/** get, update (tags), reset and receipts of one conversation; `kind` says how the path names it. */
function conversationOperations(kind: "user" | "group", base: string) {
  const isUser = kind === "user";
  return [
    operation({
      id: `get-${kind}-conversations`,
      method: "GET",
      path: `${base}/conversation`,
      plane: "rest",
      headers: ["onBehalfOf"],
      handler: (c) => {
        const { viewer, conversationId } = pathConversation(c, kind);
        return ok(c, conversationView(c.get("app"), requireEntry(c.get("app"), viewer, conversationId)));
      },
    }),
    operation({
      id: `update-${kind}-conversation`,
      method: "PUT",
      path: `${base}/conversation`,
      plane: "rest",
      body: TAGS,
      headers: ["onBehalfOf"],
      handler: (c, { body }) => {
        const { viewer, conversationId } = pathConversation(c, kind);
        const app = c.get("app");
        const entry = requireEntry(app, viewer, conversationId);
        app.conversations.ensure(viewer.uid, conversationId).tags = [...new Set(body.tags as string[])];
        return ok(c, conversationView(app, entry));
      },
    }),
    operation({
      id: `reset-${kind}-conversation`,
      method: "DELETE",
      path: `${base}/conversation`,
      plane: "rest",
      body: {
        ...(isUser ? { conversationWith: { type: "string" }, deleteMessagesPermanently: { type: "boolean" } } : {}),
        preserveOrder: { type: "boolean" },
      },
      headers: ["onBehalfOf"],
      handler: (c, { body }) => {
        const { viewer, conversationId } = pathConversation(c, kind);
        const app = c.get("app");
        const entry = requireEntry(app, viewer, conversationId);
        if (isUser && asBool(body.deleteMessagesPermanently)) app.dropConversation(conversationId);
        const state = app.conversations.ensure(viewer.uid, conversationId);
        state.clearedId = app.messages.lastId;
        // preserveOrder: the emptied conversation stays listed where it was until its next message.
        if (asBool(body.preserveOrder)) Object.assign(state, { keptId: entry.order, keptAt: entry.updatedAt });
        else {
          delete state.keptId;
          delete state.keptAt;
        }
        app.conversationActivity.touchFor(viewer.uid, conversationId);
        return success(c, `The conversation ${conversationId} has been deleted successfully for UID ${viewer.uid}.`);
      },
    }),
    ...(["delivered", "read"] as const).map((action) =>
      operation({
        id: isUser ? `mark-conversation-as-${action}` : `mark-group-conversation-as-${action}`,
        method: "POST",
        path: `${base}/conversation/${action}`,
        plane: "rest",
        body: MESSAGE_ID_BODY,
        headers: ["onBehalfOf"],
        handler: async (c, { body }) => {
          const { viewer, conversationId, label } = pathConversation(c, kind);
          const m = await readMessageId(c, body, conversationId);
          markReceipt(c.get("app"), action, viewer, m, label, c.get("emulator").clock.now());
          return isUser
            ? c.json({ data: { success: true, Message: `All the messages from the user are marked as ${action} for the requesting user.` } })
            : success(c, `All the messages in the group are marked as ${action} for the requesting user.`);
        },
      }),
    ),
    operation({
      id: isUser ? "mark-conversation-as-unread" : "mark-group-conversation-as-unread",
      method: "DELETE",
      path: `${base}/conversation/read`,
      plane: "rest",
      body: MESSAGE_ID_BODY,
      headers: ["onBehalfOf"],
      handler: async (c, { body }) => {
        const { viewer, conversationId, label } = pathConversation(c, kind);
        const m = await readMessageId(c, body, conversationId);
        c.get("app").conversations.ensure(viewer.uid, conversationId).readId = m.id;
        const from = isUser ? `from the user ${label}` : `in the group ${label}`;
        return success(c, `The messages after the message id ${m.id} ${from} are marked as unread for the user ${viewer.uid}.`);
      },
    }),
  ];
}

/** The conversation-list filters, in the order the platform reports their problems. */
const LIST_QUERY = {
  searchKey: q.str(),
  conversationType: q.oneOf(["user", "group"]),
  tags: q.list(),
  userTags: q.list(),
  groupTags: q.list(),
  unread: q.bool(),
  withTags: q.bool(),
  withUserAndGroupTags: q.bool(),
  includeBlockedUsers: q.bool(),
  withBlockedInfo: q.bool(),
  hideAgentic: q.bool(),
  onlyAgentic: q.bool(),
  unique: q.oneOf(["0", "1"]),
  ...PAGE_QUERY,
  // Pages are numbered in both index modes; the parameter is checked, not needed.
  useCursoredIndex: q.oneOf(["0", "1"]),
};

export const conversations = routes(
  operation({
    id: "list-all-conversations",
    method: "GET",
    path: "/conversations",
    plane: "rest",
    query: LIST_QUERY,
    headers: ["onBehalfOf"],
    handler: (c, { query }) => {
      const viewer = onBehalfOf(c, "optional");
      const app = c.get("app");
      requireAllowed(app, viewer, "u.listConversations");
      const f = { ...query, searchKey: query.searchKey?.toLowerCase(), unique: query.unique === "1" };
      const details: Details = keyedMap();
      if (f.unique && viewer) details.unique = ["The unique parameter cannot be combined with the onBehalfOf header."];
      if (f.hideAgentic && f.onlyAgentic) details.onlyAgentic = ["The onlyAgentic and hideAgentic parameters cannot both be true."];
      if (Object.keys(details).length > 0) throw badRequest(details);
      const keep = (e: Entry): boolean => {
        if (f.conversationType && (e.withGroup ? "group" : "user") !== f.conversationType) return false;
        // Conversations with users the owner blocked are left out unless asked for.
        if (e.withUser && !f.includeBlockedUsers && app.relations.blockOf(e.viewer.uid, e.withUser.uid)) return false;
        if (f.hideAgentic || f.onlyAgentic) {
          const agentic = e.withUser !== undefined && isAgentic(app, e.withUser.uid);
          if (agentic !== f.onlyAgentic) return false;
        }
        const name = (e.withGroup?.name ?? e.withUser!.name).toLowerCase();
        if (f.searchKey && !name.includes(f.searchKey)) return false;
        const mine = app.conversations.state(e.viewer.uid, e.visible.conversationId)?.tags;
        if (f.tags && !f.tags.some((t) => mine?.includes(t))) return false;
        if (f.userTags && !(e.withUser && f.userTags.some((t) => e.withUser!.tags.includes(t)))) return false;
        if (f.groupTags && !(e.withGroup && f.groupTags.some((t) => e.withGroup!.tags.includes(t)))) return false;
        if (f.unread && unreadCount(app, e.viewer, [sourceOf(app, e.visible)]) === 0) return false;
        return true;
      };
      // With onBehalfOf and no filter but type and blocks (the common list): a page of the activity index.
      const indexed = viewer && !f.searchKey && !f.tags && !f.userTags && !f.groupTags && !f.unread && !f.hideAgentic && !f.onlyAgentic;
      if (indexed) {
        const { data, pagination } = indexedPage(app, viewer, f.conversationType, f.includeBlockedUsers, f.perPage, f.page);
        return pageCached(c, data, (e) => e.item!, shapeOf(f), (e) => conversationView(app, e, f), pagination);
      }
      // With onBehalfOf: that user's conversations; without: every user's, by uid, each by latest activity.
      const owners = viewer ? [viewer] : app.usersByUid.values().filter((u) => u.deactivatedAt === undefined);
      let entries = owners.flatMap((u) => entriesOf(app, u)).filter(keep);
      // unique=1 (the app only): each conversation once, from its first owner in uid order.
      if (f.unique) {
        const seen = new Set<string>();
        entries = entries.filter((e) => !seen.has(e.visible.conversationId) && !!seen.add(e.visible.conversationId));
      }
      const { data, pagination } = pageOf(entries, f.perPage, f.page);
      return page(c, data.map((e) => conversationView(app, e, f)), pagination);
    },
  }),

  // Deprecated pair, kept for old clients.
  operation({
    id: "get-conversation",
    method: "GET",
    path: "/conversations/:conversationId",
    plane: "rest",
    headers: ["onBehalfOf"],
    handler: (c) => {
      const viewer = onBehalfOf(c, "required");
      const conversationId = c.req.param("conversationId")!;
      const e = entryOf(c.get("app"), viewer, conversationId);
      if (!e) throw apiError("ERR_CONVERSATION_NOT_FOUND", { conversationId });
      return ok(c, conversationView(c.get("app"), e));
    },
  }),
  operation({
    id: "delete-conversation",
    method: "DELETE",
    path: "/conversations/:conversationId",
    plane: "rest",
    headers: ["onBehalfOf"],
    handler: (c) => {
      const viewer = onBehalfOf(c, "required");
      const app = c.get("app");
      const conversationId = c.req.param("conversationId")!;
      if (!entryOf(app, viewer, conversationId)) throw apiError("ERR_CONVERSATION_NOT_FOUND", { conversationId });
      app.dropConversation(conversationId);
      return success(c, `The conversation ${conversationId} has been deleted successfully for all the users.`);
    },
  }),

  ...conversationOperations("user", "/users/:uid"),
  ...conversationOperations("group", "/groups/:guid"),
);
