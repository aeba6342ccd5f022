import type { CampaignsData } from "./campaigns.js";
import type { ModerationData } from "./moderation.js";

/**
 * Records as the store keeps them. Wire shapes are built from these by each resource's `view` functions.
 * Rule that keeps loads, resets and snapshot restores cheap: a record's own fields may change in place, but a
 * nested object or array (metadata, tags, data, settings, ...) is replaced, never mutated, so copying a record
 * shallowly copies it fully.
 */

import type { ManagementData } from "./management.js";
import type { NotificationsData } from "./notification-state.js";

export type Region = "us" | "eu" | "in";
export const REGIONS: readonly Region[] = ["us", "eu", "in"];

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export type KeyScope = "fullAccess" | "authOnly";

export interface ApiKeyRecord {
  apiKey: string;
  name: string;
  scope: KeyScope;
  createdAt: number;
  updatedAt?: number;
  createdBy?: string;
}

export interface UserRecord {
  uid: string;
  name: string;
  avatar?: string;
  link?: string;
  role: string;
  statusMessage?: string;
  metadata?: JsonObject;
  tags: string[];
  status: "available" | "offline";
  createdAt: number;
  updatedAt?: number;
  /** Unix seconds of the user's last activity, when known (imported users). */
  lastActiveAt?: number;
  /** Set while deactivated (reversible). */
  deactivatedAt?: number;
  /** Set by a non-permanent delete: the uid stays taken, the user is gone from every read. */
  deletedAt?: number;
}

export interface AuthTokenRecord {
  uid: string;
  authToken: string;
  createdAt: number;
  platform?: string;
  userAgent?: string;
  deviceId?: string;
  appInfo?: JsonObject;
}

export interface RoleRecord {
  role: string;
  name: string;
  description?: string;
  metadata?: JsonObject;
  settings?: { listUsers?: "all" | "friendsOnly"; sendMessagesTo?: "all" | "friendsOnly" };
  createdAt: number;
  updatedAt?: number;
  /** Restricted feature keys (`u.listUsers`, ...) with when each was restricted. */
  restrictedFeatures?: { key: string; createdAt: number }[];
  /** RBAC permission values set for the role, by permission id. */
  permissions?: Record<string, Json>;
}

/** One friendship; it counts for both users. */
export interface FriendRecord {
  uid: string;
  friendUid: string;
  createdAt: number;
}

export interface BlockRecord {
  uid: string;
  blockedUid: string;
  blockedAt: number;
}

export type GroupType = "public" | "password" | "private";
export const GROUP_TYPES: readonly GroupType[] = ["public", "password", "private"];
export type Scope = "admin" | "moderator" | "participant";
export const SCOPES: readonly Scope[] = ["admin", "moderator", "participant"];

export interface GroupRecord {
  guid: string;
  name: string;
  type: GroupType;
  password?: string;
  icon?: string;
  description?: string;
  metadata?: JsonObject;
  /** Absent for a group the app created without an owner. */
  owner?: string;
  tags: string[];
  createdAt: number;
  updatedAt?: number;
  updatedBy?: string;
  /** RBAC permission values per member scope, by permission id. */
  scopePermissions?: Partial<Record<Scope, Record<string, Json>>>;
}

export interface MemberRecord {
  uid: string;
  scope: Scope;
  joinedAt: number;
}

export interface BanRecord {
  uid: string;
  bannedAt: number;
  bannedBy: string;
  /** Their scope in the group when banned (rest-api/banned-users: "Former scope of the user"); none for a non-member. */
  scope?: Scope;
}

/** A group as files hold it: its members (in join order) and banned users inline. */
export interface GroupData extends GroupRecord {
  members: MemberRecord[];
  bannedUsers: BanRecord[];
}

export type ReceiverType = "user" | "group";
export type MessageCategory = "message" | "custom" | "interactive" | "action" | "call";

/**
 * A message as stored. Sender and receiver entities are built when the message is shown (from the live user and
 * group), which keeps a stored text message small; action messages keep their entity snapshots in `data`.
 */
export interface MessageRecord {
  id: number;
  conversationId: string;
  sender: string;
  receiverType: ReceiverType;
  receiver: string;
  category: MessageCategory;
  type: string;
  data: JsonObject;
  sentAt: number;
  updatedAt: number;
  muid?: string;
  parentId?: number;
  replyCount?: number;
  tags?: string[];
  /** Uids mentioned as `<@uid:UID>` in the text. */
  mentionedUids?: string[];
  editedAt?: number;
  editedBy?: string;
  deletedAt?: number;
  deletedBy?: string;
  /** The message this one quotes (shown as its `quotedMessage`). */
  quotedMessageId?: number;
  /** Pinned in its conversation: by a uid, or `app_system` for the app; seen by everyone who sees the message. */
  pinnedBy?: string;
  pinnedAt?: number;
  /** Imported through the data-import API (its muid is unique among imported messages). */
  imported?: true;
  /** Sent while its group had more than 300 members: it updates no conversation and is unread for nobody. */
  largeGroup?: true;
  /** Imported history: when the receiver got and read it (Unix seconds). */
  deliveredAt?: number;
  readAt?: number;
}

/** One user's private mark on one message: a save (`savedMessages`) or a thread subscription (`threadSubscriptions`). */
export interface MarkRecord {
  uid: string;
  messageId: number;
  at: number;
}

/** One element of an interactive message that one user interacted with. */
export interface InteractionRecord {
  uid: string;
  messageId: number;
  elementId: string;
  interactedAt: number;
}

/** A conversation the app pinned for every user: a user's one-on-one conversation with `uid`, or a group's. */
export interface GlobalPinRecord {
  uid?: string;
  guid?: string;
  pinnedAt: number;
}

export interface ReactionRecord {
  id: number;
  messageId: number;
  reaction: string;
  uid: string;
  reactedAt: number;
}

/** One user's side of one conversation: read/delivered pointers, tags, and what they may no longer see. */
export interface ConversationState {
  uid: string;
  conversationId: string;
  tags?: string[];
  readId?: number;
  readAt?: number;
  deliveredId?: number;
  deliveredAt?: number;
  /** Reset by this user: messages up to this id are gone for them. */
  clearedId?: number;
  /** Left, kicked or banned from the group: messages after this id are not theirs to see. */
  untilId?: number;
  /** Pinned by this user (at most 5 per user). */
  pinnedAt?: number;
  /** Reset with `preserveOrder`: the conversation stays listed, in the place and with the time of its last message then. */
  keptId?: number;
  keptAt?: number;
}

export interface WebhookRecord {
  id: string;
  name: string;
  webhookURL: string;
  useBasicAuth: boolean;
  username?: string;
  password?: string;
  enabled: boolean;
  retryOnFailure: boolean;
  /** 2: the current system (`X-Webhook-Version: 2`); 1: the legacy one (no header). */
  version: 1 | 2;
  triggers: string[];
  createdAt: number;
  updatedAt: number;
}

export type GroupChatSetting = "allMessages" | "slashedMessages" | "mentionedMessages" | "none";
export const GROUP_CHAT_SETTINGS: readonly GroupChatSetting[] = ["allMessages", "slashedMessages", "mentionedMessages", "none"];

/** A bot: an existing user plus the callback its messages are relayed to (reference/ai-agents.md §2). */
export interface BotRecord {
  uid: string;
  webhookURL: string;
  groupChatSetting: GroupChatSetting;
  enabled: boolean;
  useBasicAuth: boolean;
  username?: string;
  password?: string;
  createdAt: number;
  updatedAt?: number;
}

/**
 * An AI agent (BYO or agent builder): a user whose uid is the agent's UUID, plus the agent's own settings as the
 * AI-agent APIs show them (`fields`, without uid, appId and times). Timestamps are Unix milliseconds.
 */
export interface AgentRecord {
  uid: string;
  kind: "byo" | "builder";
  fields: JsonObject;
  createdAt: number;
  updatedAt: number;
}

export type CallType = "audio" | "video";
export const CALL_TYPES: readonly CallType[] = ["audio", "video"];
export type CallMode = "call" | "meet" | "presenter";
export const CALL_MODES: readonly CallMode[] = ["call", "meet", "presenter"];
export type CallStatus = "initiated" | "ongoing" | "ended" | "unanswered" | "rejected" | "canceled";
export const CALL_STATUSES: readonly CallStatus[] = ["initiated", "ongoing", "ended", "unanswered", "rejected", "canceled"];
export type ParticipantState = "ongoing" | "ended" | "unanswered" | "rejected";
export const PARTICIPANT_STATES: readonly ParticipantState[] = ["ongoing", "ended", "unanswered", "rejected"];

/** One device of one user in a call. Who never answered has no device and no times. */
export interface CallParticipantRecord {
  uid: string;
  state: ParticipantState;
  deviceId?: string;
  joinedAt?: number;
  leftAt?: number;
}

export interface RecordingRecord {
  rid: string;
  startTime: number;
  endTime: number;
  recording_url: string;
}

export interface TranscriptionRecord {
  tid: string;
  startTime: number;
  endTime: number;
  transcriptDate: string;
  transcriptUrl: string;
}

/**
 * A call as the calls API reports it afterwards. Durations and minutes are derived from the times; `hasRecording`
 * and `hasTranscription` from the lists.
 */
export interface CallRecord {
  /** `v1.<region>.<appId>.<unix seconds><40 hex>` */
  sessionId: string;
  mid: string;
  type: CallType;
  mode: CallMode;
  status: CallStatus;
  initiator: string;
  receiverType: ReceiverType;
  receiver: string;
  initiatedAt: number;
  startedAt?: number;
  endedAt?: number;
  participants: CallParticipantRecord[];
  recordings: RecordingRecord[];
  /** In startTime order. */
  transcriptions: TranscriptionRecord[];
  tags: string[];
  metadata?: JsonObject;
}

export interface AppMeta {
  appId: string;
  name: string;
  region: Region;
  createdAt: number;
  plan: string;
  state: "active";
  version: string;
}

/** What a seed file, the data file and `/_emulator/state` hold for one app. */
export interface AppData {
  app: AppMeta;
  apiKeys: ApiKeyRecord[];
  users: UserRecord[];
  authTokens: AuthTokenRecord[];
  roles: RoleRecord[];
  groups: GroupData[];
  messages: MessageRecord[];
  /** The last message id handed out (ids are never reused, even after a permanent delete). */
  lastMessageId: number;
  reactions: ReactionRecord[];
  lastReactionId: number;
  conversations: ConversationState[];
  friends: FriendRecord[];
  blocks: BlockRecord[];
  webhooks: WebhookRecord[];
  calls: CallRecord[];
  /** Absent in files written before moderation existed: the defaults apply. */
  moderation?: ModerationData;
  bots: BotRecord[];
  agents: AgentRecord[];
  /** Extensions, widgets, certificates, collaborators, app settings, tenant (see management.ts). */
  management: ManagementData;
  /** Messages each user saved (at most 100 per user). */
  savedMessages: MarkRecord[];
  /** Threads (by parent message id) each user subscribed to. */
  threadSubscriptions: MarkRecord[];
  interactions: InteractionRecord[];
  /** The app-wide pinned conversations, in display order (at most 5). */
  pinnedConversations: GlobalPinRecord[];
  /** Notification settings, providers, preferences and push tokens; absent (older files) = defaults. */
  notifications?: NotificationsData;
  /** Notification feed items, campaign pushes, template categories; absent while there are none. */
  campaigns?: CampaignsData;
}

export interface StateData {
  /** The JSON Schema a written file names (schemas/state.schema.json, for editors); the loader ignores it. */
  $schema?: string;
  format: "chat-emulator/state@1";
  apps: AppData[];
  /** What the apps created at run time were born with (what a reset returns them to); seed apps have the seed. */
  births?: AppData[];
}
