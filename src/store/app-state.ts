import { Activity } from "./activity.js";
import { AiScripts } from "./ai-scripts.js";
import { Campaigns } from "./campaigns.js";
import { callMessage, callMessages, type CallParties } from "./call-messages.js";
import { Calls } from "./calls.js";
import { Conversations } from "./conversations.js";
import { ConversationActivity } from "./conversation-activity.js";
import { groupConversationId, parseConversationId } from "./conversation-ids.js";
import { Groups } from "./groups.js";
import { Messages } from "./messages.js";
import { Moderation } from "./moderation.js";
import { Interactions, UserMarks } from "./marks.js";
import { Reactions } from "./reactions.js";
import { Relations } from "./relations.js";
import { addTo, removeFrom } from "./multimap.js";
import { SortedIndex } from "./sorted-index.js";
import { copyManagement, type ManagementData } from "./management.js";
import { NotificationState } from "./notification-state.js";
import { Noting } from "./noted.js";
import { AUTH_TOKENS_REVOKED, type TokensRevoked } from "./events.js";
import type {
  AgentRecord,
  ApiKeyRecord,
  AppData,
  AppMeta,
  AuthTokenRecord,
  BotRecord,
  CallRecord,
  GlobalPinRecord,
  MessageRecord,
  RoleRecord,
  UserRecord,
  WebhookRecord,
} from "./types.js";

/** Copies every record of `data` (shallowly, which copies it fully: nested values are never mutated). */
export function copyAppData(data: AppData): AppData {
  const copy = <T extends object>(list: T[]) => list.map((r) => ({ ...r }));
  return {
    ...data,
    app: { ...data.app },
    apiKeys: copy(data.apiKeys),
    users: copy(data.users),
    authTokens: copy(data.authTokens),
    roles: copy(data.roles),
    groups: data.groups.map((g) => ({ ...g, members: copy(g.members), bannedUsers: copy(g.bannedUsers) })),
    messages: copy(data.messages),
    reactions: copy(data.reactions),
    conversations: copy(data.conversations),
    friends: copy(data.friends),
    blocks: copy(data.blocks),
    webhooks: copy(data.webhooks),
    bots: copy(data.bots),
    agents: copy(data.agents),
    calls: data.calls.map((call) => ({ ...call, participants: copy(call.participants) })),
    moderation: data.moderation && structuredClone(data.moderation),
    management: copyManagement(data.management),
    notifications: data.notifications && structuredClone(data.notifications),
    savedMessages: copy(data.savedMessages),
    threadSubscriptions: copy(data.threadSubscriptions),
    interactions: copy(data.interactions),
    pinnedConversations: copy(data.pinnedConversations),
    campaigns: data.campaigns && structuredClone(data.campaigns),
  };
}

/** How each part of an app's data is read from its live state (live references), in the order `toData()` lists them. */
const PARTS: { [K in keyof AppData]-?: (s: AppState) => AppData[K] } = {
  app: (s) => s.meta,
  apiKeys: (s) => [...s.apiKeys.values()],
  users: (s) => [...s.users.values()],
  // In creation order (each user's oldest first): the order the change log's replay keeps (see change-tracker.ts).
  authTokens: (s) => [...s.tokens.values()],
  roles: (s) => [...s.roles.values()].filter((r) => r.role !== DEFAULT_ROLE.role),
  groups: (s) => s.groups.toData(),
  messages: (s) => s.messages.toData(),
  lastMessageId: (s) => s.messages.lastId,
  reactions: (s) => s.reactions.toData(),
  lastReactionId: (s) => s.reactions.lastId,
  conversations: (s) => s.conversations.toData(),
  friends: (s) => s.relations.toData().friends,
  blocks: (s) => s.relations.toData().blocks,
  webhooks: (s) => [...s.webhooks.values()],
  bots: (s) => [...s.bots.values()],
  agents: (s) => [...s.agents.values()],
  calls: (s) => s.calls.toData(),
  moderation: (s) => s.moderation.toData(),
  management: (s) => s.management,
  notifications: (s) => s.notifications.toData(),
  savedMessages: (s) => s.savedMessages.toData(),
  threadSubscriptions: (s) => s.threadSubscriptions.toData(),
  interactions: (s) => s.interactions.toData(),
  pinnedConversations: (s) => s.pinnedConversations,
  campaigns: (s) => s.campaigns.toData(),
};
export const PART_KEYS = Object.keys(PARTS) as (keyof AppData)[];

/** Where an app's domain events go (the store's event bus, see events.ts). */
export type EventSink = (app: AppState, trigger: string, data: () => unknown, message?: MessageRecord) => void;

export const DEFAULT_ROLE: RoleRecord = {
  role: "default",
  name: "Default Role",
  description: "This role gives full access ",
  createdAt: 0,
};

/** Active-user order for lists: by name (case-insensitive), then uid. */
function byName(a: UserRecord, b: UserRecord): number {
  const an = a.name.toLowerCase();
  const bn = b.name.toLowerCase();
  return an < bn ? -1 : an > bn ? 1 : a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0;
}

function byUid(a: UserRecord, b: UserRecord): number {
  return a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0;
}

/**
 * Everything one app holds, with the indexes its list endpoints read. Only this class changes users, keys and
 * tokens, so the indexes cannot drift from the records.
 */
export class AppState {
  meta: AppMeta;
  readonly apiKeys = new Map<string, ApiKeyRecord>();
  /** Every user that was not permanently deleted, soft-deleted ones included (their uid stays taken). */
  readonly users = new Map<string, UserRecord>();
  /** Users that are not soft-deleted (deactivated ones included), in list order. */
  readonly usersByName = new SortedIndex<UserRecord>(byName, (u) => `${u.name.toLowerCase()}\u0000${u.uid}`);
  readonly usersByUid = new SortedIndex<UserRecord>(byUid, (u) => u.uid);
  readonly usersByRole = new Map<string, Set<UserRecord>>();
  readonly usersByTag = new Map<string, Set<UserRecord>>();
  deactivatedCount = 0;
  /**
   * The users and auth tokens created, changed or removed since the change log last looked (see noted.ts): every
   * change of a user or token goes through this class, or `touchUser` / `touchToken` after a change in place.
   */
  readonly userNotes = new Noting<UserRecord>();
  readonly tokenNotes = new Noting<AuthTokenRecord>();
  /** Per user, their tokens oldest first. */
  readonly tokensByUser = new Map<string, AuthTokenRecord[]>();
  readonly tokens = new Map<string, AuthTokenRecord>();
  readonly roles = new Map<string, RoleRecord>();
  readonly groups = new Groups();
  readonly messages = new Messages();
  readonly reactions = new Reactions();
  readonly conversations = new Conversations();
  /** Each listing user's conversations in list order (see conversation-activity.ts); follows messages and memberships. */
  readonly conversationActivity = new ConversationActivity();
  readonly relations = new Relations();
  readonly webhooks = new Map<string, WebhookRecord>();
  /** Bots by uid (each is also a user; at most 25 per app). */
  readonly bots = new Map<string, BotRecord>();
  /** AI agents (BYO and agent builder) by uid (each is also a user). */
  readonly agents = new Map<string, AgentRecord>();
  /** Where events go (the store's event bus); set by the store. */
  events?: EventSink;
  readonly calls = new Calls();
  /** What the metrics read; follows every message and call added or removed. */
  readonly activity = new Activity();
  /** Reasons, rules, keyword lists, the blocked queue and flags. */
  readonly moderation = new Moderation();
  /** Management-plane state: extensions, widgets, certificates, collaborators, app settings, tenant. */
  management!: ManagementData;
  /** Notification settings, providers, preferences and push tokens. */
  readonly notifications = new NotificationState();
  readonly savedMessages = new UserMarks();
  readonly threadSubscriptions = new UserMarks();
  readonly interactions = new Interactions();
  /** The app-wide pinned conversations in display order. */
  pinnedConversations: GlobalPinRecord[] = [];
  /** Notification feed, campaign pushes and template categories (in memory; a load starts them empty). */
  campaigns = new Campaigns();
  /** Answers a test scripted for the AI features (in memory; a load clears them). */
  aiScripts = new AiScripts();

  constructor(data: AppData) {
    this.meta = { ...data.app };
    this.groups.onMembership = (guid, uid) => this.conversationActivity.touchFor(uid, groupConversationId(guid));
    this.load(data);
  }

  /** Replaces all content with `data` (records are copied, so `data` stays untouched). */
  load(data: AppData): void {
    this.meta = { ...data.app };
    this.campaigns = Campaigns.from(data.campaigns);
    this.aiScripts = new AiScripts();
    this.apiKeys.clear();
    this.users.clear();
    this.usersByRole.clear();
    this.usersByTag.clear();
    this.tokensByUser.clear();
    this.tokens.clear();
    this.roles.clear();
    this.deactivatedCount = 0;
    for (const k of data.apiKeys) this.apiKeys.set(k.apiKey, { ...k });
    this.roles.set(DEFAULT_ROLE.role, { ...DEFAULT_ROLE, createdAt: data.app.createdAt });
    for (const r of data.roles) this.roles.set(r.role, structuredClone(r));
    const listed: UserRecord[] = [];
    for (const u of data.users) {
      const user = { ...u };
      this.users.set(user.uid, user);
      if (user.deletedAt === undefined) {
        listed.push(user);
        this.indexAttributes(user);
        if (user.deactivatedAt !== undefined) this.deactivatedCount++;
      }
    }
    this.usersByName.reset(listed, data.users);
    this.usersByUid.reset(listed, data.users);
    for (const t of data.authTokens) this.addToken({ ...t });
    this.groups.load(data.groups);
    this.messages.load(data.messages, data.lastMessageId);
    this.reactions.load(data.reactions, data.lastReactionId);
    this.conversations.load(data.conversations, this.messages.list());
    this.relations.load(data.friends, data.blocks);
    this.webhooks.clear();
    for (const w of data.webhooks) this.webhooks.set(w.id, structuredClone(w));
    this.bots.clear();
    for (const b of data.bots) this.bots.set(b.uid, { ...b });
    this.agents.clear();
    for (const a of data.agents) this.agents.set(a.uid, { ...a });
    this.calls.load(data.calls);
    this.activity.load(this.messages.list(), this.calls.list());
    this.moderation.load(data.moderation, data.app.createdAt);
    this.management = copyManagement(data.management);
    this.notifications.load(data.notifications);
    this.savedMessages.load(data.savedMessages);
    this.threadSubscriptions.load(data.threadSubscriptions);
    this.interactions.load(data.interactions);
    this.pinnedConversations = data.pinnedConversations.map((p) => ({ ...p }));
    this.conversationActivity.reset();
    this.userNotes.reload();
    this.tokenNotes.reload();
  }

  /**
   * Announces a committed change on the store's event stream: `trigger` is the webhook trigger id, `data` builds
   * its webhook payload only if a subscriber asks, `message` is the record a message event is about.
   */
  emit(trigger: string, data: () => unknown, message?: MessageRecord): void {
    this.events?.(this, trigger, data, message);
  }

  /**
   * A copy of the app's content to load later (snapshots). Records are copied shallowly (see types.ts), and the
   * index orders are remembered for the copy, so loading it back skips every sort.
   */
  snapshot(): AppData {
    const live = this.toData();
    const copy = copyAppData(live);
    const listed = live.users.filter((u) => u.deletedAt === undefined);
    this.usersByName.remember(copy.users, listed);
    this.usersByUid.remember(copy.users, listed);
    this.groups.remember(copy.groups);
    return copy;
  }

  /** The app's data as live references: serialize or clone it, never mutate it. */
  toData(): AppData {
    const data: Record<string, unknown> = {};
    for (const key of PART_KEYS) {
      const value = PARTS[key](this);
      if (value !== undefined) data[key] = value; // an optional part with nothing in it is left out
    }
    return data as unknown as AppData;
  }

  /** One part of `toData()` (the change log reads them one by one). */
  part<K extends keyof AppData>(key: K): AppData[K] {
    return PARTS[key](this) as AppData[K];
  }

  // ---- users ----

  /** A user that can be read or act: exists, not deleted, not deactivated. */
  activeUser(uid: string): UserRecord | undefined {
    const u = this.users.get(uid);
    return u && u.deletedAt === undefined && u.deactivatedAt === undefined ? u : undefined;
  }

  get activeUserCount(): number {
    return this.usersByName.size - this.deactivatedCount;
  }

  /** A user's fields were changed in place (outside `updateUser`). */
  touchUser(user: UserRecord): void {
    this.userNotes.put(user);
  }

  /** A token's fields were changed in place. */
  touchToken(token: AuthTokenRecord): void {
    this.tokenNotes.put(token);
  }

  addUser(user: UserRecord): void {
    // A uid deleted for good and created again: the conversations others kept with it list again.
    if (this.conversations.directOf(user.uid).size > 0) this.conversationActivity.reset();
    this.users.set(user.uid, user);
    this.usersByName.insert(user);
    this.usersByUid.insert(user);
    this.indexAttributes(user);
    this.userNotes.put(user);
  }

  /** Applies `change` to a listed user, keeping every index in step. */
  updateUser(user: UserRecord, change: (u: UserRecord) => void): void {
    this.usersByName.remove(user);
    this.unindexAttributes(user);
    change(user);
    this.usersByName.insert(user);
    this.indexAttributes(user);
    this.userNotes.put(user);
  }

  setDeactivated(user: UserRecord, at: number | undefined): void {
    if ((user.deactivatedAt !== undefined) === (at !== undefined)) return;
    if (at === undefined) {
      delete user.deactivatedAt;
      this.deactivatedCount--;
    } else {
      user.deactivatedAt = at;
      this.deactivatedCount++;
    }
    this.userNotes.put(user);
  }

  /**
   * What a permanent delete takes along besides the user (rest-api/users/delete: "all their messages, conversations,
   * and associated data"): their one-on-one conversations whole, and in their groups the messages they sent, with
   * the threads under them.
   */
  dropUserContent(uid: string): void {
    for (const conversationId of [...this.conversations.directOf(uid)]) this.dropConversation(conversationId);
    for (const guid of this.groups.groupsOf(uid).keys())
      for (const m of this.messages.conversation(groupConversationId(guid)).filter((x) => x.sender === uid)) this.removeWithThread(m);
  }

  /** Soft delete: the uid stays taken, the user leaves every list and lookup. */
  softDeleteUser(user: UserRecord, at: number): void {
    if (user.deletedAt !== undefined) return;
    this.unlist(user);
    user.deletedAt = at;
    this.userNotes.put(user);
    this.flushTokens(user.uid);
    this.forgetUser(user.uid);
  }

  deleteUserPermanently(user: UserRecord): void {
    if (user.deletedAt === undefined) this.unlist(user);
    this.users.delete(user.uid);
    this.userNotes.remove(user, 0, user.uid);
    this.flushTokens(user.uid);
    this.forgetUser(user.uid);
  }

  /** What a deleted user leaves behind that is theirs alone: memberships, conversation state, relations, marks. */
  private forgetUser(uid: string): void {
    this.conversationActivity.reset();
    this.groups.forgetUser(uid);
    this.conversations.forgetUser(uid);
    this.relations.forgetUser(uid);
    this.savedMessages.forgetUser(uid);
    this.threadSubscriptions.forgetUser(uid);
    // A deleted user stops being a bot or an agent.
    this.bots.delete(uid);
    this.agents.delete(uid);
    this.notifications.forgetUser(uid);
  }

  private unlist(user: UserRecord): void {
    this.usersByName.remove(user);
    this.usersByUid.remove(user);
    this.unindexAttributes(user);
    if (user.deactivatedAt !== undefined) this.deactivatedCount--;
  }

  private indexAttributes(user: UserRecord): void {
    addTo(this.usersByRole, user.role, user);
    for (const t of user.tags) addTo(this.usersByTag, t, user);
  }

  private unindexAttributes(user: UserRecord): void {
    removeFrom(this.usersByRole, user.role, user);
    for (const t of user.tags) removeFrom(this.usersByTag, t, user);
  }

  // ---- messages ----

  /** Stores a new message under the next id; a one-on-one message makes its conversation exist for both users. */
  addMessage(message: Omit<MessageRecord, "id">): MessageRecord {
    const m = this.messages.add(message);
    if (m.receiverType === "user") this.conversations.noteDirect(m);
    this.activity.noteMessage(m);
    this.touchConversation(m);
    return m;
  }

  /** A message held back (by moderation) before anyone sees it: it gets its id now and is stored nowhere yet. */
  holdMessage(message: Omit<MessageRecord, "id">): MessageRecord {
    return { id: this.messages.reserveId(), ...message };
  }

  /** Delivers a held message: from now on it is stored and shown like any other, at its place in id order. */
  deliverMessage(m: MessageRecord): void {
    this.messages.insert(m);
    if (m.receiverType === "user") this.conversations.noteDirect(m);
    this.activity.noteMessage(m);
    this.touchConversation(m);
  }

  /** A conversation's messages changed: its place may have for its parties (one-on-one) or members (group). */
  private touchConversation(m: MessageRecord): void {
    this.conversationActivity.touch(m.conversationId);
    if (m.receiverType !== "user") return;
    // The conversation's two users (an action's sender may be someone else: the app), and whoever it was noted for.
    const parsed = parseConversationId(m.conversationId);
    if (parsed && "uids" in parsed) for (const uid of parsed.uids) this.conversationActivity.touchFor(uid, m.conversationId);
    this.conversationActivity.touchFor(m.sender, m.conversationId);
    this.conversationActivity.touchFor(m.receiver, m.conversationId);
  }

  /** Permanent delete, with the message's reactions. */
  /** A message deleted for good, with the replies of its thread. */
  removeWithThread(m: MessageRecord): void {
    for (const reply of [...this.messages.thread(m.id)]) this.removeMessage(reply);
    this.removeMessage(m);
  }

  removeMessage(m: MessageRecord): void {
    this.messages.remove(m);
    this.dropMarks(m.id);
    this.activity.forgetMessage(m);
    if (m.receiverType === "user" && this.messages.conversation(m.conversationId).length === 0)
      this.conversations.dropDirect(m.conversationId, [m.sender, m.receiver]);
    this.touchConversation(m);
  }

  /** Permanently removes every message of a conversation (and their reactions) in one pass. */
  dropConversation(conversationId: string): void {
    const list = this.messages.conversation(conversationId);
    const direct = list.find((m) => m.receiverType === "user");
    for (const m of list) {
      this.dropMarks(m.id);
      this.activity.forgetMessage(m);
    }
    this.messages.dropConversation(conversationId);
    if (direct) this.conversations.dropDirect(conversationId, [direct.sender, direct.receiver]);
    if (direct) this.touchConversation(direct);
    else this.conversationActivity.touch(conversationId);
  }

  /** What hangs on a message deleted for good: reactions, saves, thread subscriptions, interactions. */
  private dropMarks(messageId: number): void {
    this.reactions.dropMessage(messageId);
    this.savedMessages.forgetMessage(messageId);
    this.threadSubscriptions.forgetMessage(messageId);
    this.interactions.forgetMessage(messageId);
  }

  // ---- calls ----

  /** Stores a checked call and leaves its call messages in its conversation; returns those messages. */
  addCall(call: CallRecord): MessageRecord[] {
    this.calls.add(call);
    this.activity.noteCall(call);
    return callMessages(call, this.callParties()).map((m) => this.addMessage({ ...m, updatedAt: m.sentAt }));
  }

  /**
   * Leaves the call message of one step of a live call (`POST /calls`, `PUT /calls/{sessionId}`): `action` taken
   * by `actor` at `at`, after the call record was changed. The first step stores the call.
   */
  addCallStep(call: CallRecord, action: string, at: number, actor: string): MessageRecord {
    if (!this.calls.get(call.sessionId)) this.calls.add(call);
    else this.calls.touch(call); // the step changed it in place
    const m = callMessage(call, this.callParties(), action, at, actor);
    return this.addMessage({ ...m, updatedAt: m.sentAt });
  }

  private callParties(): CallParties {
    return {
      user: (uid: string) => this.users.get(uid),
      group: (guid: string) => this.groups.get(guid),
      membersCount: (guid: string) => this.groups.membersCount(guid),
    };
  }

  // ---- auth tokens ----

  addToken(token: AuthTokenRecord, maxPerUser = Infinity): void {
    let list = this.tokensByUser.get(token.uid);
    if (!list) this.tokensByUser.set(token.uid, (list = []));
    list.push(token);
    this.tokens.set(token.authToken, token);
    this.tokenNotes.put(token);
    // Rolling retention: beyond the limit the oldest tokens are archived (they stop existing for the API).
    const retired: string[] = [];
    while (list.length > maxPerUser) {
      const old = list.shift()!;
      this.tokenNotes.remove(old, old.uid, old.authToken);
      retired.push(old.authToken);
    }
    for (const t of retired) this.tokens.delete(t);
    this.revoked(token.uid, retired);
  }

  removeToken(token: AuthTokenRecord): void {
    this.tokens.delete(token.authToken);
    this.tokenNotes.remove(token, token.uid, token.authToken);
    const list = this.tokensByUser.get(token.uid);
    if (list) {
      const at = list.indexOf(token);
      if (at !== -1) list.splice(at, 1);
      if (list.length === 0) this.tokensByUser.delete(token.uid);
    }
    this.revoked(token.uid, [token.authToken]);
  }

  flushTokens(uid: string): void {
    const list = this.tokensByUser.get(uid);
    if (!list) return;
    for (const t of list) {
      this.tokens.delete(t.authToken);
      this.tokenNotes.remove(t, uid, t.authToken);
    }
    this.tokensByUser.delete(uid);
    this.revoked(uid, list.map((t) => t.authToken));
  }

  /**
   * Auth tokens gone (deleted, flushed, retired): the push tokens registered with them go too
   * (notifications/token-management: "once the user is logged out of the current CometChat session, his/her
   * registered Push Notification token automatically gets deleted"), and the sessions opened with them close.
   */
  private revoked(uid: string, authTokens: string[]): void {
    if (authTokens.length === 0) return;
    const gone = new Set(authTokens);
    for (const t of this.notifications.tokensOf(uid)) if (gone.has(t.authToken)) this.notifications.removeToken(t.pushToken);
    this.emit(AUTH_TOKENS_REVOKED, (): TokensRevoked => ({ uid, authTokens }));
  }
}
