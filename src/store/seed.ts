import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { callMessages, type CallParties } from "./call-messages.js";
import { MEDIA_DOMAIN } from "./calls.js";
import { conversationIdOf, parseConversationId, userConversationId } from "./conversation-ids.js";
import { lowerBoundId } from "./messages.js";
import { ChunkedArray, DocumentError, readDocumentFile } from "./state-reader.js";
import { describeUnknown, unknownSeedFields } from "./unknown-fields.js";
import { PACKAGE_ROOT } from "../paths.js";
import { CALL_MODES, CALL_STATUSES, CALL_TYPES, GROUP_CHAT_SETTINGS, GROUP_TYPES, PARTICIPANT_STATES, REGIONS, SCOPES } from "./types.js";
import { MAX_KEYWORD_TERM, type ModerationData } from "./moderation.js";
import type {
  BanRecord,
  AgentRecord,
  ApiKeyRecord,
  AppData,
  AppMeta,
  AuthTokenRecord,
  BotRecord,
  CallParticipantRecord,
  CallRecord,
  GlobalPinRecord,
  GroupData,
  JsonObject,
  MarkRecord,
  MessageCategory,
  MessageRecord,
  ConversationState,
  ReactionRecord,
  Region,
  RoleRecord,
  UserRecord,
  WebhookRecord,
} from "./types.js";
import { randomHex, randomUuid } from "../util/random.js";
import { firstPatternProblem } from "../util/safe-regex.js";
import { emptyManagement, parseManagement } from "./management.js";
import {
  CHANNEL_TYPES,
  EVENT_TYPES,
  type CampaignRecord,
  type CampaignsData,
  type ChannelContent,
  type ChannelRecord,
  type EventRecord,
  type FeedItemRecord,
  type PushRecord,
  type TemplateRecord,
  type UploadRecord,
} from "./campaigns.js";
import {
  CHANNEL_PROVIDERS,
  type ChannelProviderName,
  type MutedConversation,
  type NotificationsData,
  type PushTokenRecord,
  type UserNotificationRecord,
} from "./notification-state.js";

/**
 * Seed and state files: one format for `--seed`, `--data` and `/_emulator/state`. A file lists apps; an app entry
 * may set `sampleData: true` to start from the built-in sample users (fixtures/sample-data.json). Everything is
 * validated on load, and the first bad field is reported with its path.
 */

export class SeedError extends Error {
  /** `path` names the bad field, `problem` says what is wrong with it. */
  constructor(message: string, readonly path?: string, readonly problem?: string) {
    super(message);
  }
}

export interface SampleData {
  users: unknown[];
  groups: unknown[];
  messages: unknown[];
  calls: unknown[];
}

const FIXTURES = new URL("fixtures/", PACKAGE_ROOT);

let sampleCache: SampleData | undefined;
export function sampleData(): SampleData {
  return (sampleCache ??= JSON.parse(readFileSync(new URL("sample-data.json", FIXTURES), "utf8")) as SampleData);
}

export const DEFAULT_SEED_PATH = new URL("seed.json", FIXTURES);

export const ID_PATTERN = /^[a-z0-9-]+$/;

type Obj = Record<string, unknown>;

class Checker {
  /** One string for each of the names a large file repeats (uids, conversation ids, types): a load's memory. */
  private readonly strings = new Map<string, string>();
  constructor(private readonly source: string) {}

  intern(s: string): string {
    const known = this.strings.get(s);
    if (known !== undefined) return known;
    this.strings.set(s, s);
    return s;
  }

  fail(path: string, problem: string): never {
    throw new SeedError(`${this.source}: ${path} ${problem}`, path, problem);
  }
  obj(v: unknown, path: string): Obj {
    if (typeof v !== "object" || v === null || Array.isArray(v)) this.fail(path, "must be an object");
    return v as Obj;
  }
  arr(v: unknown, path: string): unknown[] {
    if (v instanceof ChunkedArray) return v.toArray();
    if (v === undefined) return [];
    if (!Array.isArray(v)) this.fail(path, "must be an array");
    return v;
  }
  /** The items of an array that may be a large one of a file: read as they are checked, never all at once. */
  each(v: unknown, path: string): Iterable<unknown> {
    return v instanceof ChunkedArray ? v.items() : this.arr(v, path);
  }
  str(v: unknown, path: string, max = 10_000): string {
    if (typeof v !== "string" || v.length === 0) this.fail(path, "must be a non-empty string");
    if ([...v].length > max) this.fail(path, `must be at most ${max} characters`);
    return v;
  }
  optStr(v: unknown, path: string, max?: number): string | undefined {
    return v === undefined ? undefined : this.str(v, path, max);
  }
  id(v: unknown, path: string): string {
    const s = this.str(v, path, 100).toLowerCase();
    if (!ID_PATTERN.test(s)) this.fail(path, "may only contain letters, numbers and dashes");
    return this.intern(s);
  }
  int(v: unknown, path: string): number {
    if (!Number.isInteger(v) || (v as number) < 0) this.fail(path, "must be a non-negative integer (Unix seconds)");
    return v as number;
  }
  optInt(v: unknown, path: string): number | undefined {
    return v === undefined ? undefined : this.int(v, path);
  }
  json(v: unknown, path: string): JsonObject | undefined {
    return v === undefined ? undefined : (this.obj(v, path) as JsonObject);
  }
  bool(v: unknown, path: string): boolean | undefined {
    if (v !== undefined && typeof v !== "boolean") this.fail(path, "must be a boolean");
    return v;
  }
  tags(v: unknown, path: string): string[] {
    return this.arr(v, path).map((t, i) => this.str(t, `${path}[${i}]`, 100));
  }
  oneOf<T extends string>(v: unknown, path: string, allowed: readonly T[], fallback?: T): T {
    if (v === undefined && fallback !== undefined) return fallback;
    if (!allowed.includes(v as T)) this.fail(path, `must be one of ${allowed.join(", ")}`);
    return v as T;
  }
}

function setIf<T extends object, K extends keyof T>(target: T, key: K, value: T[K] | undefined): void {
  if (value !== undefined) target[key] = value;
}

function user(c: Checker, raw: unknown, path: string, createdAt: number): UserRecord {
  const o = c.obj(raw, path);
  const u: UserRecord = {
    uid: c.id(o.uid, `${path}.uid`),
    name: c.str(o.name, `${path}.name`, 100),
    role: o.role === undefined ? "default" : c.str(o.role, `${path}.role`),
    tags: c.tags(o.tags, `${path}.tags`),
    status: c.oneOf(o.status, `${path}.status`, ["available", "offline"] as const, "offline"),
    createdAt: c.optInt(o.createdAt, `${path}.createdAt`) ?? createdAt,
  };
  setIf(u, "avatar", c.optStr(o.avatar, `${path}.avatar`, 3000));
  setIf(u, "link", c.optStr(o.link, `${path}.link`, 3000));
  setIf(u, "statusMessage", c.optStr(o.statusMessage, `${path}.statusMessage`));
  setIf(u, "metadata", c.json(o.metadata, `${path}.metadata`));
  setIf(u, "updatedAt", c.optInt(o.updatedAt, `${path}.updatedAt`));
  setIf(u, "deactivatedAt", c.optInt(o.deactivatedAt, `${path}.deactivatedAt`));
  setIf(u, "lastActiveAt", c.optInt(o.lastActiveAt, `${path}.lastActiveAt`));
  setIf(u, "deletedAt", c.optInt(o.deletedAt, `${path}.deletedAt`));
  return u;
}

function apiKey(c: Checker, raw: unknown, path: string, createdAt: number): ApiKeyRecord {
  const o = c.obj(raw, path);
  const k: ApiKeyRecord = {
    apiKey: c.str(o.apiKey, `${path}.apiKey`, 100),
    name: c.str(o.name, `${path}.name`, 100),
    scope: c.oneOf(o.scope, `${path}.scope`, ["fullAccess", "authOnly"] as const),
    createdAt: c.optInt(o.createdAt, `${path}.createdAt`) ?? createdAt,
  };
  setIf(k, "updatedAt", c.optInt(o.updatedAt, `${path}.updatedAt`));
  setIf(k, "createdBy", c.optStr(o.createdBy, `${path}.createdBy`));
  return k;
}

function role(c: Checker, raw: unknown, path: string, createdAt: number): RoleRecord {
  const o = c.obj(raw, path);
  const r: RoleRecord = {
    role: c.id(o.role, `${path}.role`),
    name: c.str(o.name, `${path}.name`, 100),
    createdAt: c.optInt(o.createdAt, `${path}.createdAt`) ?? createdAt,
  };
  setIf(r, "description", c.optStr(o.description, `${path}.description`));
  setIf(r, "metadata", c.json(o.metadata, `${path}.metadata`));
  if (o.settings !== undefined) {
    const s = c.obj(o.settings, `${path}.settings`);
    const modes = ["all", "friendsOnly"] as const;
    r.settings = {};
    if (s.listUsers !== undefined) r.settings.listUsers = c.oneOf(s.listUsers, `${path}.settings.listUsers`, modes);
    if (s.sendMessagesTo !== undefined)
      r.settings.sendMessagesTo = c.oneOf(s.sendMessagesTo, `${path}.settings.sendMessagesTo`, modes);
  }
  setIf(r, "updatedAt", c.optInt(o.updatedAt, `${path}.updatedAt`));
  if (o.restrictedFeatures !== undefined)
    r.restrictedFeatures = c.arr(o.restrictedFeatures, `${path}.restrictedFeatures`).map((f, i) => {
      const fo = c.obj(f, `${path}.restrictedFeatures[${i}]`);
      return { key: c.str(fo.key, `${path}.restrictedFeatures[${i}].key`, 100), createdAt: c.optInt(fo.createdAt, `${path}.restrictedFeatures[${i}].createdAt`) ?? createdAt };
    });
  setIf(r, "permissions", c.json(o.permissions, `${path}.permissions`));
  return r;
}

function group(c: Checker, raw: unknown, path: string, createdAt: number, kind: "seed" | "state"): GroupData {
  const o = c.obj(raw, path);
  const g: GroupData = {
    guid: c.id(o.guid, `${path}.guid`),
    name: c.str(o.name, `${path}.name`, 100),
    type: c.oneOf(o.type, `${path}.type`, GROUP_TYPES, "public"),
    tags: c.tags(o.tags, `${path}.tags`),
    createdAt: c.optInt(o.createdAt, `${path}.createdAt`) ?? createdAt,
    members: [],
    bannedUsers: [],
  };
  setIf(g, "password", c.optStr(o.password, `${path}.password`));
  if (g.type === "password" && g.password === undefined) c.fail(`${path}.password`, "is required for a password group");
  setIf(g, "icon", c.optStr(o.icon, `${path}.icon`, 3000));
  setIf(g, "description", c.optStr(o.description, `${path}.description`));
  setIf(g, "metadata", c.json(o.metadata, `${path}.metadata`));
  setIf(g, "owner", o.owner === undefined ? undefined : c.id(o.owner, `${path}.owner`));
  setIf(g, "updatedAt", c.optInt(o.updatedAt, `${path}.updatedAt`));
  setIf(g, "updatedBy", c.optStr(o.updatedBy, `${path}.updatedBy`));
  if (o.scopePermissions !== undefined) {
    const sp = c.obj(o.scopePermissions, `${path}.scopePermissions`);
    g.scopePermissions = {};
    for (const [scope, perms] of Object.entries(sp))
      g.scopePermissions[c.oneOf(scope, `${path}.scopePermissions`, SCOPES)] = c.json(perms, `${path}.scopePermissions.${scope}`);
  }
  g.members = c.arr(o.members, `${path}.members`).map((m, i) => {
    const mo = c.obj(m, `${path}.members[${i}]`);
    return {
      uid: c.id(mo.uid, `${path}.members[${i}].uid`),
      scope: c.oneOf(mo.scope, `${path}.members[${i}].scope`, SCOPES, "participant"),
      joinedAt: c.optInt(mo.joinedAt, `${path}.members[${i}].joinedAt`) ?? g.createdAt,
    };
  });
  g.bannedUsers = c.arr(o.bannedUsers, `${path}.bannedUsers`).map((b, i) => {
    const bo = c.obj(b, `${path}.bannedUsers[${i}]`);
    const ban: BanRecord = {
      uid: c.id(bo.uid, `${path}.bannedUsers[${i}].uid`),
      bannedAt: c.optInt(bo.bannedAt, `${path}.bannedUsers[${i}].bannedAt`) ?? g.createdAt,
      bannedBy: bo.bannedBy === undefined ? "app_system" : c.str(bo.bannedBy, `${path}.bannedUsers[${i}].bannedBy`),
    };
    if (bo.scope !== undefined) ban.scope = c.oneOf(bo.scope, `${path}.bannedUsers[${i}].scope`, SCOPES);
    return ban;
  });
  const members = new Set(g.members.map((m) => m.uid));
  // A seed's owner is a member; in saved state the owner may be no member (nor user) any more: deleting, kicking or
  // banning the owner keeps the group's owner.
  if (kind === "seed" && g.owner !== undefined && !members.has(g.owner)) c.fail(`${path}.owner`, `names ${g.owner}, who is not a member`);
  unique(c, g.members, (m) => m.uid, `${path}.members`, "uid");
  g.bannedUsers.forEach((b, i) => {
    if (members.has(b.uid)) c.fail(`${path}.bannedUsers[${i}].uid`, `names ${b.uid}, who is also a member`);
  });
  return g;
}

const CATEGORIES: readonly MessageCategory[] = ["message", "custom", "interactive", "action", "call"];

/** `with`: the other user of the one-on-one conversation an action stays in (see `message`). */
type ReadMessage = Omit<MessageRecord, "id" | "conversationId"> & { id?: number; with?: string };

/**
 * A stored message; `id` may be left out (the next free id is used) and `conversationId` is derived, but for an
 * action on a one-on-one message by someone outside the conversation (a moderator's or the API's edit or delete,
 * sent by app_system): it stays in the conversation of the message it acts on, as its stored id says.
 */
function message(c: Checker, raw: unknown, path: string, sentAt: number): ReadMessage {
  const o = c.obj(raw, path);
  const receiverType = c.oneOf(o.receiverType, `${path}.receiverType`, ["user", "group"] as const, "user");
  const m: ReadMessage = {
    sender: o.sender === "app_system" ? "app_system" : c.id(o.sender, `${path}.sender`),
    receiverType,
    receiver: c.id(o.receiver, `${path}.receiver`),
    category: c.oneOf(o.category, `${path}.category`, CATEGORIES, "message"),
    type: o.type === undefined ? "text" : c.intern(c.str(o.type, `${path}.type`, 100)),
    data: c.json(o.data, `${path}.data`) ?? {},
    sentAt: c.optInt(o.sentAt, `${path}.sentAt`) ?? sentAt,
    updatedAt: 0,
  };
  m.updatedAt = c.optInt(o.updatedAt, `${path}.updatedAt`) ?? m.sentAt;
  setIf(m, "id", o.id === undefined ? undefined : c.int(typeof o.id === "string" && /^\d+$/.test(o.id) ? Number(o.id) : o.id, `${path}.id`));
  setIf(m, "muid", c.optStr(o.muid, `${path}.muid`));
  const parentId = o.parentId;
  setIf(m, "parentId", parentId === undefined ? undefined : c.int(typeof parentId === "string" && /^\d+$/.test(parentId) ? Number(parentId) : parentId, `${path}.parentId`));
  setIf(m, "replyCount", c.optInt(o.replyCount, `${path}.replyCount`));
  if (o.tags !== undefined) m.tags = c.tags(o.tags, `${path}.tags`);
  for (const k of ["editedAt", "deletedAt", "deliveredAt", "readAt"] as const) setIf(m, k, c.optInt(o[k], `${path}.${k}`));
  if (o.imported === true) m.imported = true;
  if (o.largeGroup === true) m.largeGroup = true;
  for (const k of ["editedBy", "deletedBy", "pinnedBy"] as const) if (o[k] !== undefined) m[k] = c.intern(c.str(o[k], `${path}.${k}`));
  for (const k of ["quotedMessageId", "pinnedAt"] as const) setIf(m, k, c.optInt(o[k], `${path}.${k}`));
  if ((m.pinnedBy === undefined) !== (m.pinnedAt === undefined)) c.fail(`${path}.pinnedAt`, "goes with pinnedBy: give both or neither");
  if (m.category === "action" && receiverType === "user" && typeof o.conversationId === "string") {
    const pair = parseConversationId(o.conversationId);
    if (pair && "uids" in pair && pair.uids.includes(m.receiver) && !pair.uids.includes(m.sender)) m.with = pair.uids.find((u) => u !== m.receiver);
  }
  return m;
}

/** What a call is checked against: the app it belongs to and the users and groups it may name. */
export interface CallContext {
  appId: string;
  region: Region;
  /** Stamps a call that carries no times. */
  now: number;
  isUser(uid: string): boolean;
  isGroup(guid: string): boolean;
  /** Group membership is checked when a call is made (seeds, control API), not when saved state is read back. */
  isMember?(guid: string, uid: string): boolean;
  /** Whether a session id is taken already. */
  isTaken?(sessionId: string): boolean;
}

/** "Maximum users per call: 50" (rest-api/calls-apis/properties-and-constraints.mdx; see docs/coverage.md for the 4). */
export const MAX_CALL_PARTICIPANTS = 50;
const SESSION_ID = /^v1\.(us|eu|in)\.([a-z0-9]+)\.\d{1,10}[0-9a-f]{8,64}$/;

/**
 * A call, checked like the platform would have it and completed with defaults: an `ended` audio `call` between
 * initiator and receiver, at `now`, unless told otherwise. Times must follow the status (only started calls have
 * `startedAt`, only finished ones `endedAt`), participants the call (its parties, at most 50, joined only while it
 * ran), recordings and transcriptions its running time. Ids, device ids and media URLs are generated when missing.
 */
function call(c: Checker, raw: unknown, path: string, ctx: CallContext): CallRecord {
  const o = c.obj(raw, path || "(body)");
  const at = (key: string) => (path ? `${path}.${key}` : key);
  const initiator = c.id(o.initiator, at("initiator"));
  if (!ctx.isUser(initiator)) c.fail(at("initiator"), `names the unknown user ${initiator}`);
  const receiverType = c.oneOf(o.receiverType, at("receiverType"), ["user", "group"] as const, "user");
  const receiver = c.id(o.receiver, at("receiver"));
  if (!(receiverType === "user" ? ctx.isUser : ctx.isGroup)(receiver)) c.fail(at("receiver"), `names the unknown ${receiverType} ${receiver}`);
  if (receiverType === "user" && receiver === initiator) c.fail(at("receiver"), "names the initiator: nobody can call themselves");
  const isParty = (uid: string) =>
    receiverType === "user" ? uid === initiator || uid === receiver : ctx.isMember?.(receiver, uid) ?? true;
  if (!isParty(initiator)) c.fail(at("initiator"), `names ${initiator}, who is not a member of the group ${receiver}`);

  const status = c.oneOf(o.status, at("status"), CALL_STATUSES, "ended");
  const started = status === "ongoing" || status === "ended";
  const initiatedAt = c.optInt(o.initiatedAt, at("initiatedAt")) ?? ctx.now;
  let startedAt = c.optInt(o.startedAt, at("startedAt"));
  if (started) startedAt ??= initiatedAt;
  else if (startedAt !== undefined) c.fail(at("startedAt"), `must be absent: a call that is ${status} never started`);
  if (startedAt !== undefined && startedAt < initiatedAt) c.fail(at("startedAt"), "must not be before initiatedAt");
  let endedAt = c.optInt(o.endedAt, at("endedAt"));
  if (status === "ended") endedAt ??= startedAt;
  if ((status === "initiated" || status === "ongoing") && endedAt !== undefined) c.fail(at("endedAt"), `must be absent: the call is ${status}`);
  if (endedAt !== undefined && endedAt < (startedAt ?? initiatedAt))
    c.fail(at("endedAt"), `must not be before ${startedAt !== undefined ? "startedAt" : "initiatedAt"}`);

  const sessionId = o.sessionId === undefined ? `v1.${ctx.region}.${ctx.appId}.${initiatedAt}${randomHex(40)}` : c.str(o.sessionId, at("sessionId"), 200);
  const parts = SESSION_ID.exec(sessionId);
  if (!parts || parts[1] !== ctx.region || parts[2] !== ctx.appId)
    c.fail(at("sessionId"), `must have the form v1.${ctx.region}.${ctx.appId}.<unix seconds><hex>`);
  if (ctx.isTaken?.(sessionId)) c.fail(at("sessionId"), `names the existing call ${sessionId}`);

  const k: CallRecord = {
    sessionId,
    mid: o.mid === undefined ? randomUuid() : c.str(o.mid, at("mid"), 100),
    type: c.oneOf(o.type, at("type"), CALL_TYPES, "audio"),
    mode: c.oneOf(o.mode, at("mode"), CALL_MODES, "call"),
    status,
    initiator,
    receiverType,
    receiver,
    initiatedAt,
    participants: [],
    recordings: [],
    transcriptions: [],
    tags: c.tags(o.tags, at("tags")),
  };
  setIf(k, "startedAt", startedAt);
  setIf(k, "endedAt", endedAt);
  setIf(k, "metadata", c.json(o.metadata, at("metadata")));

  const listed = o.participants === undefined ? (receiverType === "user" ? [initiator, receiver] : [initiator]) : c.arr(o.participants, at("participants"));
  if (listed.length > MAX_CALL_PARTICIPANTS) c.fail(at("participants"), `may hold at most ${MAX_CALL_PARTICIPANTS} participants`);
  const joinedState = status === "ended" || status === "ongoing" ? status : undefined;
  k.participants = listed.map((item, i) => {
    const q = `${at("participants")}[${i}]`;
    const po: Obj = typeof item === "string" ? { uid: item } : c.obj(item, q);
    const uid = c.id(po.uid, `${q}.uid`);
    if (!ctx.isUser(uid)) c.fail(`${q}.uid`, `names the unknown user ${uid}`);
    if (!isParty(uid))
      c.fail(`${q}.uid`, receiverType === "user" ? `names ${uid}, who is neither initiator nor receiver` : `names ${uid}, who is not a member of the group ${receiver}`);
    const state = c.oneOf(po.state, `${q}.state`, PARTICIPANT_STATES, joinedState ?? (status === "rejected" ? "rejected" : "unanswered"));
    const p: CallParticipantRecord = { uid, state };
    if (state === "unanswered" || state === "rejected") {
      for (const key of ["deviceId", "joinedAt", "leftAt"])
        if (po[key] !== undefined) c.fail(`${q}.${key}`, `must be absent: who is ${state} never joined`);
      return p;
    }
    if (startedAt === undefined) c.fail(`${q}.state`, `cannot be ${state}: the call never started`);
    if (state === "ongoing" && status !== "ongoing") c.fail(`${q}.state`, "can only be ongoing while the call is");
    p.deviceId = po.deviceId === undefined ? `${randomUuid()}@rtc.${MEDIA_DOMAIN}/${randomHex(8)}` : c.str(po.deviceId, `${q}.deviceId`, 300);
    p.joinedAt = c.optInt(po.joinedAt, `${q}.joinedAt`) ?? startedAt;
    if (p.joinedAt < startedAt || p.joinedAt > (endedAt ?? Infinity)) c.fail(`${q}.joinedAt`, "must lie within the call (startedAt to endedAt)");
    if (state === "ongoing") {
      if (po.leftAt !== undefined) c.fail(`${q}.leftAt`, "must be absent: the participant is still in the call");
      return p;
    }
    p.leftAt = c.optInt(po.leftAt, `${q}.leftAt`) ?? endedAt ?? Math.max(p.joinedAt, ctx.now);
    if (p.leftAt < p.joinedAt || p.leftAt > (endedAt ?? Infinity)) c.fail(`${q}.leftAt`, "must lie between joinedAt and the call's endedAt");
    return p;
  });
  if (started && !k.participants.some((p) => p.joinedAt !== undefined))
    c.fail(at("participants"), `must include someone who joined: the call is ${status}`);

  k.recordings = spans(c, o, at, k, ctx.now, "recordings", "hasRecording").map(([so, q, startTime, endTime]) => {
    const rid = so.rid === undefined ? randomUuid() : c.str(so.rid, `${q}.rid`, 100);
    const url = so.recording_url === undefined ? `https://recordings.${MEDIA_DOMAIN}/${ctx.appId}/${rid}.mp4` : c.str(so.recording_url, `${q}.recording_url`, 3000);
    return { rid, startTime, endTime, recording_url: url };
  });
  k.transcriptions = spans(c, o, at, k, ctx.now, "transcriptions", "hasTranscription")
    .map(([so, q, startTime, endTime]) => {
      const tid = so.tid === undefined ? randomUuid() : c.str(so.tid, `${q}.tid`, 100);
      const date = so.transcriptDate === undefined ? new Date(startTime * 1000).toISOString() : c.str(so.transcriptDate, `${q}.transcriptDate`, 100);
      const url = so.transcriptUrl === undefined ? `https://transcripts.${MEDIA_DOMAIN}/${ctx.appId}/transcript_${date}_${tid}.json` : c.str(so.transcriptUrl, `${q}.transcriptUrl`, 3000);
      return { tid, startTime, endTime, transcriptDate: date, transcriptUrl: url };
    })
    .sort((a, b) => a.startTime - b.startTime);
  return k;
}

/**
 * The recordings or transcriptions of a call as [entry, path, startTime, endTime]: the given list, or with only the
 * flag (`hasRecording: true`) one entry over the whole call. Each lies within the call's running time.
 */
function spans(
  c: Checker,
  o: Obj,
  at: (key: string) => string,
  k: CallRecord,
  now: number,
  key: "recordings" | "transcriptions",
  flag: "hasRecording" | "hasTranscription",
): [Obj, string, number, number][] {
  const has = c.bool(o[flag], at(flag));
  const list = o[key] === undefined ? (has ? [{}] : []) : c.arr(o[key], at(key));
  if (has === false && list.length > 0) c.fail(at(flag), `is false, but ${key} are given`);
  if (list.length > 0 && k.startedAt === undefined) c.fail(at(key), `must be empty: the call never started`);
  return list.map((item, i) => {
    const q = `${at(key)}[${i}]`;
    const so = c.obj(item, q);
    const start = c.optInt(so.startTime, `${q}.startTime`) ?? k.startedAt!;
    const end = c.optInt(so.endTime, `${q}.endTime`) ?? k.endedAt ?? Math.max(start, now);
    if (start < k.startedAt! || end < start || end > (k.endedAt ?? Infinity))
      c.fail(q, "must lie within the call (startedAt <= startTime <= endTime <= endedAt)");
    return [so, q, start, end];
  });
}

/** Checks and completes one call for `ctx`'s app (the control API's create-call); throws SeedError with the bad field. */
export function parseCall(raw: unknown, ctx: CallContext): CallRecord {
  return call(new Checker("call"), raw, "", ctx);
}

function reaction(c: Checker, raw: unknown, path: string): ReactionRecord {
  const o = c.obj(raw, path);
  return {
    id: c.int(o.id, `${path}.id`),
    messageId: c.int(o.messageId, `${path}.messageId`),
    reaction: c.str(o.reaction, `${path}.reaction`, 100),
    uid: c.id(o.uid, `${path}.uid`),
    reactedAt: c.int(o.reactedAt, `${path}.reactedAt`),
  };
}

function conversation(c: Checker, raw: unknown, path: string): ConversationState {
  const o = c.obj(raw, path);
  const s: ConversationState = { uid: c.id(o.uid, `${path}.uid`), conversationId: c.str(o.conversationId, `${path}.conversationId`, 300) };
  if (o.tags !== undefined) s.tags = c.tags(o.tags, `${path}.tags`);
  for (const k of ["readId", "readAt", "deliveredId", "deliveredAt", "clearedId", "untilId", "pinnedAt", "keptId", "keptAt"] as const)
    setIf(s, k, c.optInt(o[k], `${path}.${k}`));
  return s;
}

function webhook(c: Checker, raw: unknown, path: string, createdAt: number): WebhookRecord {
  const o = c.obj(raw, path);
  const w: WebhookRecord = {
    id: c.str(o.id, `${path}.id`, 50),
    name: c.str(o.name, `${path}.name`, 100),
    webhookURL: c.str(o.webhookURL, `${path}.webhookURL`, 255),
    useBasicAuth: c.bool(o.useBasicAuth, `${path}.useBasicAuth`) ?? false,
    enabled: c.bool(o.enabled, `${path}.enabled`) ?? true,
    retryOnFailure: c.bool(o.retryOnFailure, `${path}.retryOnFailure`) ?? false,
    version: o.version === undefined || o.version === 2 ? 2 : o.version === 1 ? 1 : c.fail(`${path}.version`, "must be 1 or 2"),
    triggers: c.tags(o.triggers, `${path}.triggers`),
    createdAt: c.optInt(o.createdAt, `${path}.createdAt`) ?? createdAt,
    updatedAt: c.optInt(o.updatedAt, `${path}.updatedAt`) ?? createdAt,
  };
  setIf(w, "username", c.optStr(o.username, `${path}.username`, 50));
  setIf(w, "password", c.optStr(o.password, `${path}.password`, 100));
  return w;
}

function bot(c: Checker, raw: unknown, path: string, createdAt: number): BotRecord {
  const o = c.obj(raw, path);
  const b: BotRecord = {
    uid: c.id(o.uid, `${path}.uid`),
    webhookURL: c.str(o.webhookURL, `${path}.webhookURL`, 255),
    groupChatSetting: c.oneOf(o.groupChatSetting, `${path}.groupChatSetting`, GROUP_CHAT_SETTINGS, "none"),
    enabled: c.bool(o.enabled, `${path}.enabled`) ?? false,
    useBasicAuth: c.bool(o.useBasicAuth, `${path}.useBasicAuth`) ?? false,
    createdAt: c.optInt(o.createdAt, `${path}.createdAt`) ?? createdAt,
  };
  setIf(b, "username", c.optStr(o.username, `${path}.username`, 50));
  setIf(b, "password", c.optStr(o.password, `${path}.password`, 50));
  setIf(b, "updatedAt", c.optInt(o.updatedAt, `${path}.updatedAt`));
  return b;
}

function agent(c: Checker, raw: unknown, path: string, createdAt: number): AgentRecord {
  const o = c.obj(raw, path);
  return {
    uid: c.id(o.uid, `${path}.uid`),
    kind: c.oneOf(o.kind, `${path}.kind`, ["byo", "builder"] as const, "byo"),
    fields: c.json(o.fields, `${path}.fields`) ?? {},
    createdAt: c.optInt(o.createdAt, `${path}.createdAt`) ?? createdAt * 1000,
    updatedAt: c.optInt(o.updatedAt, `${path}.updatedAt`) ?? createdAt * 1000,
  };
}

/** Notification state as saved (see notification-state.ts): shapes checked, values kept as they are. */
function notifications(c: Checker, raw: unknown, path: string): NotificationsData | undefined {
  if (raw === undefined) return undefined;
  const o = c.obj(raw, path);
  const data: NotificationsData = { pushProviders: [], channels: {}, users: [], tokens: [] };
  if (o.settings !== undefined) data.settings = c.json(o.settings, `${path}.settings`);
  data.pushProviders = c.arr(o.pushProviders, `${path}.pushProviders`).map((p, i) => {
    const at = `${path}.pushProviders[${i}]`;
    const po = c.obj(p, at);
    return {
      kind: c.oneOf(po.kind, `${at}.kind`, ["fcm", "apns"] as const),
      providerId: c.str(po.providerId, `${at}.providerId`, 100),
      isDefault: c.bool(po.isDefault, `${at}.isDefault`) ?? false,
      fields: c.json(po.fields, `${at}.fields`) ?? {},
      createdAt: c.optInt(po.createdAt, `${at}.createdAt`) ?? 0,
      updatedAt: c.optInt(po.updatedAt, `${at}.updatedAt`) ?? 0,
    };
  });
  const channels = c.json(o.channels, `${path}.channels`) ?? {};
  for (const [k, v] of Object.entries(channels)) {
    if (!CHANNEL_PROVIDERS.includes(k as ChannelProviderName)) c.fail(`${path}.channels.${k}`, `must be one of ${CHANNEL_PROVIDERS.join(", ")}`);
    data.channels[k as ChannelProviderName] = c.json(v, `${path}.channels.${k}`);
  }
  data.users = c.arr(o.users, `${path}.users`).map((u, i) => {
    const at = `${path}.users[${i}]`;
    const uo = c.obj(u, at);
    const r: UserNotificationRecord = { uid: c.id(uo.uid, `${at}.uid`) };
    setIf(r, "preferences", c.json(uo.preferences, `${at}.preferences`));
    if (uo.muted !== undefined)
      r.muted = c.arr(uo.muted, `${at}.muted`).map((m, j) => {
        const mo = c.obj(m, `${at}.muted[${j}]`);
        const muted: MutedConversation = {
          id: c.str(mo.id, `${at}.muted[${j}].id`, 100),
          type: c.oneOf(mo.type, `${at}.muted[${j}].type`, ["oneOnOne", "group"] as const),
        };
        setIf(muted, "until", c.optInt(mo.until, `${at}.muted[${j}].until`));
        return muted;
      });
    for (const k of ["timezone", "email", "phno"] as const) setIf(r, k, c.optStr(uo[k], `${at}.${k}`, 255));
    return r;
  });
  data.tokens = c.arr(o.tokens, `${path}.tokens`).map((t, i) => {
    const at = `${path}.tokens[${i}]`;
    const to = c.obj(t, at);
    const token: PushTokenRecord = {
      pushToken: c.str(to.pushToken, `${at}.pushToken`, 4096),
      uid: c.id(to.uid, `${at}.uid`),
      authToken: c.str(to.authToken, `${at}.authToken`, 200),
      platform: c.str(to.platform, `${at}.platform`, 100),
      pushTokenType: c.optStr(to.pushTokenType, `${at}.pushTokenType`, 20) ?? "chat",
      createdAt: c.optInt(to.createdAt, `${at}.createdAt`) ?? 0,
      updatedAt: c.optInt(to.updatedAt, `${at}.updatedAt`) ?? 0,
    };
    setIf(token, "providerId", c.optStr(to.providerId, `${at}.providerId`, 100));
    setIf(token, "timezone", c.optStr(to.timezone, `${at}.timezone`, 100));
    return token;
  });
  return data;
}

function authToken(c: Checker, raw: unknown, path: string): AuthTokenRecord {
  const o = c.obj(raw, path);
  const t: AuthTokenRecord = {
    uid: c.id(o.uid, `${path}.uid`),
    authToken: c.str(o.authToken, `${path}.authToken`, 200),
    createdAt: c.int(o.createdAt, `${path}.createdAt`),
  };
  setIf(t, "platform", c.optStr(o.platform, `${path}.platform`));
  setIf(t, "userAgent", c.optStr(o.userAgent, `${path}.userAgent`));
  setIf(t, "deviceId", c.optStr(o.deviceId, `${path}.deviceId`));
  setIf(t, "appInfo", c.json(o.appInfo, `${path}.appInfo`));
  return t;
}

function unique<T>(c: Checker, items: T[], key: (t: T) => string, path: string, what: string): void {
  const seen = new Set<string>();
  items.forEach((item, i) => {
    const k = key(item);
    if (seen.has(k)) c.fail(`${path}[${i}]`, `repeats the ${what} ${k}`);
    seen.add(k);
  });
}

/** Builds one app's data from a seed or state entry; `now` stamps records that carry no time. */
/**
 * Sample data is dated relative to the load: its time fields hold seconds before `now` (0 or less), so the sample
 * conversations and calls are always recent.
 */
const SAMPLE_TIMES = new Set(["sentAt", "initiatedAt", "startedAt", "endedAt", "joinedAt", "leftAt", "startTime", "endTime"]);
function dated(value: unknown, now: number): unknown {
  if (Array.isArray(value)) return value.map((v) => dated(v, now));
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, SAMPLE_TIMES.has(k) && typeof v === "number" ? now + v : dated(v, now)]),
  );
}

/**
 * Builds one app's data from a seed or state entry; `now` stamps records that carry no time. A seed (`kind`
 * "seed") describes calls only: each also gets its call messages, after the seed's messages. Saved state holds
 * those messages already, so a state entry's calls are taken as they are.
 */
export function parseApp(raw: unknown, path: string, now: number, source = "seed", kind: "seed" | "state" = "seed"): AppData {
  const c = new Checker(source);
  const o = c.obj(raw, path);
  const a = c.obj(o.app, `${path}.app`);
  const createdAt = c.optInt(a.createdAt, `${path}.app.createdAt`) ?? now;
  const appId = c.str(a.appId, `${path}.app.appId`, 64).toLowerCase();
  if (!/^[a-z0-9]+$/.test(appId)) c.fail(`${path}.app.appId`, "may only contain letters and numbers");
  const data: AppData = {
    app: {
      appId,
      name: c.str(a.name, `${path}.app.name`, 100),
      region: c.oneOf<Region>(a.region, `${path}.app.region`, REGIONS, "us"),
      createdAt,
      plan: typeof a.plan === "string" ? a.plan : "trial",
      state: "active",
      version: typeof a.version === "string" ? a.version : "3",
    },
    apiKeys: c.arr(o.apiKeys, `${path}.apiKeys`).map((k, i) => apiKey(c, k, `${path}.apiKeys[${i}]`, createdAt)),
    users: [],
    authTokens: c.arr(o.authTokens, `${path}.authTokens`).map((t, i) => authToken(c, t, `${path}.authTokens[${i}]`)),
    roles: c.arr(o.roles, `${path}.roles`).map((r, i) => role(c, r, `${path}.roles[${i}]`, createdAt)),
    groups: [],
    messages: [],
    lastMessageId: o.lastMessageId === undefined ? 0 : c.int(o.lastMessageId, `${path}.lastMessageId`),
    reactions: c.arr(o.reactions, `${path}.reactions`).map((r, i) => reaction(c, r, `${path}.reactions[${i}]`)),
    lastReactionId: o.lastReactionId === undefined ? 0 : c.int(o.lastReactionId, `${path}.lastReactionId`),
    conversations: c.arr(o.conversations, `${path}.conversations`).map((s, i) => conversation(c, s, `${path}.conversations[${i}]`)),
    friends: c.arr(o.friends, `${path}.friends`).map((f, i) => {
      const fo = c.obj(f, `${path}.friends[${i}]`);
      return {
        uid: c.id(fo.uid, `${path}.friends[${i}].uid`),
        friendUid: c.id(fo.friendUid, `${path}.friends[${i}].friendUid`),
        createdAt: c.optInt(fo.createdAt, `${path}.friends[${i}].createdAt`) ?? createdAt,
      };
    }),
    webhooks: c.arr(o.webhooks, `${path}.webhooks`).map((w, i) => webhook(c, w, `${path}.webhooks[${i}]`, createdAt)),
    blocks: c.arr(o.blocks, `${path}.blocks`).map((b, i) => {
      const bo = c.obj(b, `${path}.blocks[${i}]`);
      return {
        uid: c.id(bo.uid, `${path}.blocks[${i}].uid`),
        blockedUid: c.id(bo.blockedUid, `${path}.blocks[${i}].blockedUid`),
        blockedAt: c.optInt(bo.blockedAt, `${path}.blocks[${i}].blockedAt`) ?? createdAt,
      };
    }),
    calls: [],
    moderation: o.moderation === undefined ? undefined : moderationData(c, o.moderation, `${path}.moderation`),
    bots: c.arr(o.bots, `${path}.bots`).map((b, i) => bot(c, b, `${path}.bots[${i}]`, createdAt)),
    agents: c.arr(o.agents, `${path}.agents`).map((a, i) => agent(c, a, `${path}.agents[${i}]`, createdAt)),
    management: parseManagement(o.management, `${path}.management`, (p, problem) => c.fail(p, problem)),
    savedMessages: marks(c, o.savedMessages, `${path}.savedMessages`),
    threadSubscriptions: marks(c, o.threadSubscriptions, `${path}.threadSubscriptions`),
    interactions: (o.interactions === undefined ? [] : c.arr(o.interactions, `${path}.interactions`)).map((r, i) => {
      const q = `${path}.interactions[${i}]`;
      const ro = c.obj(r, q);
      return {
        uid: c.id(ro.uid, `${q}.uid`),
        messageId: c.int(ro.messageId, `${q}.messageId`),
        elementId: c.str(ro.elementId, `${q}.elementId`, 255),
        interactedAt: c.int(ro.interactedAt, `${q}.interactedAt`),
      };
    }),
    pinnedConversations: (o.pinnedConversations === undefined ? [] : c.arr(o.pinnedConversations, `${path}.pinnedConversations`)).map((r, i) => {
      const q = `${path}.pinnedConversations[${i}]`;
      const ro = c.obj(r, q);
      const pin: GlobalPinRecord = { pinnedAt: c.optInt(ro.pinnedAt, `${q}.pinnedAt`) ?? createdAt };
      setIf(pin, "uid", ro.uid === undefined ? undefined : c.id(ro.uid, `${q}.uid`));
      setIf(pin, "guid", ro.guid === undefined ? undefined : c.id(ro.guid, `${q}.guid`));
      if ((pin.uid === undefined) === (pin.guid === undefined)) c.fail(q, "must name exactly one of uid and guid");
      return pin;
    }),
  };
  setIf(data, "notifications", notifications(c, o.notifications, `${path}.notifications`));
  setIf(data, "campaigns", campaigns(c, o.campaigns, `${path}.campaigns`));
  const sampleMessages: MessageSource = { items: [], path: (i) => `sample-data.messages[${i}]` };
  let rawSampleCalls: [unknown, string][] = [];
  if (o.sampleData !== undefined && typeof o.sampleData !== "boolean") c.fail(`${path}.sampleData`, "must be a boolean");
  if (o.sampleData === true) {
    const sample = sampleData();
    sample.users.forEach((u, i) => data.users.push(user(c, u, `sample-data.users[${i}]`, createdAt)));
    sample.groups.forEach((g, i) => data.groups.push(group(c, g, `sample-data.groups[${i}]`, createdAt, "seed")));
    sampleMessages.items = sample.messages.map((m) => dated(m, now));
    rawSampleCalls = sample.calls.map((k, i) => [dated(k, now), `sample-data.calls[${i}]`]);
  }
  c.arr(o.users, `${path}.users`).forEach((u, i) => data.users.push(user(c, u, `${path}.users[${i}]`, createdAt)));
  c.arr(o.groups, `${path}.groups`).forEach((g, i) => data.groups.push(group(c, g, `${path}.groups[${i}]`, createdAt, kind)));
  // Read as they are checked (see messages()): a file's million messages are never all held raw.
  const ownMessages: MessageSource = { items: c.each(o.messages, `${path}.messages`), path: (i) => `${path}.messages[${i}]` };

  unique(c, data.apiKeys, (k) => k.apiKey, `${path}.apiKeys`, "apiKey");
  unique(c, data.users, (u) => u.uid, `${path}.users`, "uid");
  unique(c, data.roles, (r) => r.role, `${path}.roles`, "role");
  const roles = new Set(["default", ...data.roles.map((r) => r.role)]);
  data.users.forEach((u, i) => {
    if (!roles.has(u.role)) c.fail(`${path}.users[${i}].role`, `names the unknown role ${u.role}`);
  });
  const uids = new Set(data.users.map((u) => u.uid));
  data.authTokens.forEach((t, i) => {
    if (!uids.has(t.uid)) c.fail(`${path}.authTokens[${i}].uid`, `names the unknown user ${t.uid}`);
  });
  unique(c, data.groups, (g) => g.guid, `${path}.groups`, "guid");
  data.groups.forEach((g, i) => {
    for (const [list, entries] of [["members", g.members], ["bannedUsers", g.bannedUsers]] as const)
      entries.forEach((m, j) => {
        if (!uids.has(m.uid)) c.fail(`${path}.groups[${i}].${list}[${j}].uid`, `names the unknown user ${m.uid}`);
      });
  });
  const users = new Map(data.users.map((u) => [u.uid, u]));
  const groups = new Map(data.groups.map((g) => [g.guid, g]));
  const ctx: CallContext = {
    appId,
    region: data.app.region,
    now,
    // A saved state keeps the messages, reactions and calls of users deleted permanently since.
    isUser: (uid) => kind === "state" || users.has(uid),
    isGroup: (guid) => groups.has(guid),
    isMember: kind === "seed" ? (guid, uid) => groups.get(guid)!.members.some((m) => m.uid === uid) : undefined,
  };
  const sampleCalls = rawSampleCalls.map(([k, p]) => call(c, k, p, ctx));
  const ownCalls = c.arr(o.calls, `${path}.calls`).map((k, i) => call(c, k, `${path}.calls[${i}]`, ctx));
  data.calls = [...sampleCalls, ...ownCalls];
  unique(c, data.calls, (k) => k.sessionId, `${path}.calls`, "sessionId");
  const parties: CallParties = {
    user: (uid) => users.get(uid),
    group: (guid) => groups.get(guid),
    membersCount: (guid) => groups.get(guid)?.members.length ?? 0,
  };
  const messagesOf = (calls: CallRecord[]): MessageSource => {
    const items: unknown[] = [];
    const sessions: string[] = [];
    for (const k of calls)
      for (const m of callMessages(k, parties)) {
        items.push(m);
        sessions.push(k.sessionId);
      }
    return { items, path: (i) => `(call message of ${sessions[i]})` };
  };
  const sources = [sampleMessages, messagesOf(sampleCalls), ownMessages];
  if (kind === "seed") sources.push(messagesOf(ownCalls));
  data.messages = messages(c, sources, ctx, now);
  data.lastMessageId = Math.max(data.lastMessageId, data.messages.at(-1)?.id ?? 0);
  const messageIds = new Set(data.messages.map((m) => m.id));
  data.reactions.forEach((r, i) => {
    if (!messageIds.has(r.messageId)) c.fail(`${path}.reactions[${i}].messageId`, `names the unknown message ${r.messageId}`);
    if (kind === "seed" && !uids.has(r.uid)) c.fail(`${path}.reactions[${i}].uid`, `names the unknown user ${r.uid}`);
  });
  unique(c, data.reactions, (r) => String(r.id), `${path}.reactions`, "id");
  data.lastReactionId = data.reactions.reduce((max, r) => Math.max(max, r.id), data.lastReactionId);
  unique(c, data.bots, (b) => b.uid, `${path}.bots`, "uid");
  unique(c, data.agents, (a) => a.uid, `${path}.agents`, "uid");
  for (const list of ["bots", "agents"] as const)
    data[list].forEach((b, i) => {
      if (!uids.has(b.uid)) c.fail(`${path}.${list}[${i}].uid`, `names the unknown user ${b.uid}`);
    });
  data.conversations.forEach((s, i) => {
    if (!uids.has(s.uid)) c.fail(`${path}.conversations[${i}].uid`, `names the unknown user ${s.uid}`);
  });
  for (const list of ["savedMessages", "threadSubscriptions", "interactions"] as const)
    data[list].forEach((r, i) => {
      if (!messageIds.has(r.messageId)) c.fail(`${path}.${list}[${i}].messageId`, `names the unknown message ${r.messageId}`);
      if (kind === "seed" && !uids.has(r.uid)) c.fail(`${path}.${list}[${i}].uid`, `names the unknown user ${r.uid}`);
    });
  for (const [list, a, b] of [["friends", "uid", "friendUid"], ["blocks", "uid", "blockedUid"]] as const)
    (data[list] as unknown as Record<string, string>[]).forEach((r, i) => {
      for (const k of [a, b]) if (!uids.has(r[k])) c.fail(`${path}.${list}[${i}].${k}`, `names the unknown user ${r[k]}`);
      if (r[a] === r[b]) c.fail(`${path}.${list}[${i}]`, "relates a user to themselves");
    });
  return data;
}

/** Patterns used together must pass the checks the routes ran on them (util/safe-regex.ts). */
function userPatterns(c: Checker, sources: unknown[], path: string): void {
  const found = firstPatternProblem(sources);
  if (found) c.fail(found.index === undefined ? path : `${path}[${found.index}]`, found.problem);
}

/**
 * Moderation state as saved (the emulator wrote it): the shape is checked where a wrong one would break a read,
 * patterns as the routes checked them, the rest is taken as it is.
 */
function moderationData(c: Checker, raw: unknown, path: string): ModerationData {
  const o = c.obj(raw, path);
  const list = <T>(key: string, check: (item: Obj, at: string) => void): T[] =>
    c.arr(o[key], `${path}.${key}`).map((item, i) => {
      const at = `${path}.${key}[${i}]`;
      check(c.obj(item, at), at);
      return item as T;
    });
  return {
    reasons: list("reasons", (r, at) => c.str(r.id, `${at}.id`, 100)),
    rules: list("rules", (r, at) => {
      c.str(r.id, `${at}.id`, 100);
      const revisions = c.arr(r.revisions, `${at}.revisions`);
      if (revisions.length === 0) c.fail(`${at}.revisions`, "must hold at least one revision");
      revisions.forEach((v, j) =>
        c.arr(c.obj(v, `${at}.revisions[${j}]`).conditions, `${at}.revisions[${j}].conditions`).forEach((raw, n) => {
          const q = `${at}.revisions[${j}].conditions[${n}]`;
          const cond = c.obj(raw, q);
          // Values that name keyword lists (as the moderation engine reads them) are no patterns.
          const byList = [cond.isKeywordsReferencePresent, cond.isListReferencePresent, cond.isKeywordReferencePresent].includes(true);
          if (cond.category === "pattern" && !byList) userPatterns(c, c.arr(cond.value, `${q}.value`), `${q}.value`);
        }),
      );
    }),
    keywordLists: list("keywordLists", (k, at) => {
      c.str(k.id, `${at}.id`, 100);
      const terms = c.arr(k.searchTerms, `${at}.searchTerms`).map((t, j) => c.str(t, `${at}.searchTerms[${j}]`, MAX_KEYWORD_TERM));
      if (k.category === "pattern") userPatterns(c, terms, `${at}.searchTerms`);
    }),
    blocked: list("blocked", (b, at) => c.int(c.obj(b.message, `${at}.message`).id, `${at}.message.id`)),
    flags: list("flags", (f, at) => {
      c.int(f.messageId, `${at}.messageId`);
      c.arr(f.flaggedBy, `${at}.flaggedBy`);
    }),
    moderated: c.arr(o.moderated, `${path}.moderated`).map((id, i) => c.int(id, `${path}.moderated[${i}]`)),
  };
}

/** Saves or thread subscriptions (absent in files older than them). */
/** One of `allowed`. */
function pick<T extends string>(c: Checker, v: unknown, allowed: readonly T[], path: string): T {
  if (!allowed.includes(v as T)) c.fail(path, `must be one of ${allowed.join(", ")}`);
  return v as T;
}

/** Variable values by name (text). */
function textMap(c: Checker, v: unknown, path: string): Record<string, string> {
  if (v === undefined) return {};
  const o = c.obj(v, path);
  for (const [k, x] of Object.entries(o)) if (typeof x !== "string") c.fail(`${path}.${k}`, "must be a string");
  return o as Record<string, string>;
}

const STEP_FIELDS = ["messageRetentionHours", "sequenceOrder", "waitMinutes"] as const;

function channelContent(c: Checker, ro: Obj, q: string): ChannelContent {
  const out: ChannelContent = { channelType: pick(c, ro.channelType, CHANNEL_TYPES, `${q}.channelType`), content: c.json(ro.content, `${q}.content`) ?? {} };
  setIf(out, "channelId", c.optStr(ro.channelId, `${q}.channelId`, 100));
  if (ro.dataType !== undefined) out.dataType = pick(c, ro.dataType, ["ui_template", "data_template"] as const, `${q}.dataType`);
  setIf(out, "categoryFilterEnabled", c.bool(ro.categoryFilterEnabled, `${q}.categoryFilterEnabled`));
  setIf(out, "templateLabelEnabled", c.bool(ro.templateLabelEnabled, `${q}.templateLabelEnabled`));
  for (const k of STEP_FIELDS)
    if (ro[k] !== undefined) {
      if (typeof ro[k] !== "number" || !(ro[k] > 0)) c.fail(`${q}.${k}`, "must be a positive number");
      out[k] = ro[k];
    }
  setIf(out, "stopCondition", c.optStr(ro.stopCondition, `${q}.stopCondition`, 20));
  return out;
}

/** The `campaigns` entry (the campaigns service's records and what its sends made) of a state file, as `toData` writes it. */
function campaigns(c: Checker, raw: unknown, path: string): CampaignsData | undefined {
  if (raw === undefined) return undefined;
  const o = c.obj(raw, path);
  const each = <T>(key: string, read: (ro: Obj, q: string) => T, from: Obj = o, at = path): T[] =>
    c.arr(from[key], `${at}.${key}`).map((r, i) => read(c.obj(r, `${at}.${key}[${i}]`), `${at}.${key}[${i}]`));
  const receipts = <T extends object>(record: T, ro: Obj, q: string, keys: string[]): T => {
    for (const k of keys) setIf(record as Record<string, unknown>, k, c.optInt(ro[k], `${q}.${k}`));
    return record;
  };
  const engagements = (ro: Obj, q: string) =>
    each("engagements", (eo, eq) => ({ topic: c.str(eo.topic, `${eq}.topic`, 100), at: c.int(eo.at, `${eq}.at`) }), ro, q);
  const origin = <T extends object>(record: T, ro: Obj, q: string): T => {
    const r = record as Record<string, unknown>;
    // A push's `campaignId` may be null (a push of no campaign): read with the push.
    for (const k of ["templateId", "campaignId", "notificationId", "channelId"]) if (ro[k] !== null) setIf(r, k, c.optStr(ro[k], `${q}.${k}`, 100));
    for (const k of ["templateVersion", "step"]) setIf(r, k, c.optInt(ro[k], `${q}.${k}`));
    return record;
  };
  const templates = each("templates", (ro, q): TemplateRecord => {
    const versions = each(
      "versions",
      (vo, vq) => ({
        version: c.int(vo.version, `${vq}.version`),
        channels: each("channels", (co, cq) => channelContent(c, co, cq), vo, vq),
        variableSchema: each("variableSchema", (so, sq) => {
          const v: { key: string; default?: string } = { key: c.str(so.key, `${sq}.key`, 100) };
          setIf(v, "default", c.optStr(so.default, `${sq}.default`));
          return v;
        }, vo, vq),
        createdAt: c.int(vo.createdAt, `${vq}.createdAt`),
      }),
      ro,
      q,
    );
    const t: TemplateRecord = {
      id: c.str(ro.id, `${q}.id`, 100),
      templateId: c.str(ro.templateId, `${q}.templateId`, 100),
      name: c.str(ro.name, `${q}.name`, 255),
      tags: c.tags(ro.tags, `${q}.tags`),
      status: pick(c, ro.status, ["draft", "approved", "archived"] as const, `${q}.status`),
      config: c.json(ro.config, `${q}.config`) ?? {},
      currentVersion: c.int(ro.currentVersion, `${q}.currentVersion`),
      versions,
      createdAt: c.int(ro.createdAt, `${q}.createdAt`),
      updatedAt: c.int(ro.updatedAt, `${q}.updatedAt`),
    };
    if (versions.length === 0 || t.currentVersion < 1 || t.currentVersion > versions.length) c.fail(`${q}.currentVersion`, "must name one of the template's versions");
    setIf(t, "templateCategory", c.optStr(ro.templateCategory, `${q}.templateCategory`, 100));
    setIf(t, "label", c.optStr(ro.label, `${q}.label`, 100));
    setIf(t, "alternativeText", c.optStr(ro.alternativeText, `${q}.alternativeText`, 1000));
    return t;
  });
  const versionsOf = new Map(templates.map((t) => [t.id, t.versions.length]));
  const timed = ["scheduledAt", "sentAt", "completedAt", "cancelledAt"];
  return {
    lastId: c.int(o.lastId ?? 0, `${path}.lastId`),
    categories: each("categories", (ro, q) => {
      const cat = {
        id: c.str(ro.id, `${q}.id`, 100),
        name: c.str(ro.name, `${q}.name`, 100),
        label: c.str(ro.label, `${q}.label`, 100),
        createdAt: c.int(ro.createdAt, `${q}.createdAt`),
        updatedAt: c.int(ro.updatedAt, `${q}.updatedAt`),
      };
      setIf(cat as { description?: string }, "description", c.optStr(ro.description, `${q}.description`, 1000));
      return cat;
    }),
    items: each("items", (ro, q): FeedItemRecord => {
      const item: FeedItemRecord = {
        id: c.str(ro.id, `${q}.id`, 100),
        receiver: c.id(ro.receiver, `${q}.receiver`),
        templateCategory: c.str(ro.templateCategory, `${q}.templateCategory`, 100),
        content: c.json(ro.content, `${q}.content`) ?? {},
        metadata: c.json(ro.metadata, `${q}.metadata`) ?? {},
        tags: c.tags(ro.tags, `${q}.tags`),
        sentAt: c.int(ro.sentAt, `${q}.sentAt`),
        engagements: engagements(ro, q),
      };
      origin(item, ro, q);
      if (ro.variables !== undefined) item.variables = textMap(c, ro.variables, `${q}.variables`);
      return receipts(item, ro, q, ["deliveredAt", "readAt", "deletedAt", "expiresAt"]);
    }),
    pushes: each("pushes", (ro, q): PushRecord => {
      const p: PushRecord = {
        id: c.str(ro.id, `${q}.id`, 100),
        receiver: c.id(ro.receiver, `${q}.receiver`),
        announcementId: c.str(ro.announcementId, `${q}.announcementId`, 100),
        campaignId: ro.campaignId === null || ro.campaignId === undefined ? null : c.str(ro.campaignId, `${q}.campaignId`, 100),
        sentAt: c.int(ro.sentAt, `${q}.sentAt`),
      };
      origin(p, ro, q);
      setIf(p, "content", c.json(ro.content, `${q}.content`));
      if (ro.engagements !== undefined) p.engagements = engagements(ro, q);
      return receipts(p, ro, q, ["deliveredAt", "clickedAt"]);
    }),
    templates,
    channels: each("channels", (ro, q): ChannelRecord => ({
      id: c.str(ro.id, `${q}.id`, 100),
      name: c.str(ro.name, `${q}.name`, 100),
      type: pick(c, ro.type, CHANNEL_TYPES, `${q}.type`),
      channelId: c.str(ro.channelId, `${q}.channelId`, 100),
      enabled: c.bool(ro.enabled, `${q}.enabled`) ?? false,
      metadata: c.json(ro.metadata, `${q}.metadata`) ?? {},
      createdAt: c.int(ro.createdAt, `${q}.createdAt`),
      updatedAt: c.int(ro.updatedAt, `${q}.updatedAt`),
    })),
    campaigns: each("campaigns", (ro, q): CampaignRecord => {
      const cam: CampaignRecord = {
        id: c.str(ro.id, `${q}.id`, 100),
        name: c.str(ro.name, `${q}.name`, 255),
        templateId: c.str(ro.templateId, `${q}.templateId`, 100),
        templateVersion: c.int(ro.templateVersion, `${q}.templateVersion`),
        variables: textMap(c, ro.variables, `${q}.variables`),
        config: c.json(ro.config, `${q}.config`) ?? {},
        status: pick(c, ro.status, ["draft", "scheduled", "sending", "completed", "cancelled"] as const, `${q}.status`),
        createdAt: c.int(ro.createdAt, `${q}.createdAt`),
        updatedAt: c.int(ro.updatedAt, `${q}.updatedAt`),
        recipients: each("recipients", (rr, rq) => {
          const r = {
            id: c.str(rr.id, `${rq}.id`, 100),
            userId: c.str(rr.userId, `${rq}.userId`, 100).toLowerCase(),
            variables: textMap(c, rr.variables, `${rq}.variables`),
            status: pick(c, rr.status, ["pending", "processing", "completed", "failed"] as const, `${rq}.status`),
            createdAt: c.int(rr.createdAt, `${rq}.createdAt`),
            updatedAt: c.int(rr.updatedAt, `${rq}.updatedAt`),
          };
          setIf(r as { error?: string }, "error", c.optStr(rr.error, `${rq}.error`, 1000));
          return r;
        }, ro, q),
      };
      const most = versionsOf.get(cam.templateId);
      if (most === undefined) c.fail(`${q}.templateId`, "must name one of the app's templates");
      if (cam.templateVersion < 1 || cam.templateVersion > most) c.fail(`${q}.templateVersion`, "must name one of the template's versions");
      setIf(cam, "notificationId", c.optStr(ro.notificationId, `${q}.notificationId`, 100));
      receipts(cam, ro, q, timed);
      if (cam.status === "scheduled" && cam.scheduledAt === undefined) c.fail(`${q}.scheduledAt`, "is required for a scheduled campaign");
      if (ro.nextStep !== undefined) {
        const n = c.obj(ro.nextStep, `${q}.nextStep`);
        cam.nextStep = { step: c.int(n.step, `${q}.nextStep.step`), dueAt: c.int(n.dueAt, `${q}.nextStep.dueAt`) };
      }
      if (ro.import !== undefined) {
        const io = c.obj(ro.import, `${q}.import`);
        const iq = `${q}.import`;
        cam.import = {
          id: c.str(io.id, `${iq}.id`, 100),
          s3Key: c.str(io.s3Key, `${iq}.s3Key`, 200),
          status: pick(c, io.status, ["processing", "completed", "failed"] as const, `${iq}.status`),
          totalRows: c.int(io.totalRows, `${iq}.totalRows`),
          accepted: c.int(io.accepted, `${iq}.accepted`),
          refused: each("refused", (fo, fq) => {
            const f = { row: c.int(fo.row, `${fq}.row`), reason: c.str(fo.reason, `${fq}.reason`, 1000) };
            setIf(f as { userId?: string }, "userId", c.optStr(fo.userId, `${fq}.userId`, 1000));
            return f;
          }, io, iq),
          createdAt: c.int(io.createdAt, `${iq}.createdAt`),
        };
        setIf(cam.import, "completedAt", c.optInt(io.completedAt, `${iq}.completedAt`));
      }
      return cam;
    }),
    uploads: each("uploads", (ro, q): UploadRecord => {
      const u: UploadRecord = {
        s3Key: c.str(ro.s3Key, `${q}.s3Key`, 200),
        campaignId: c.str(ro.campaignId, `${q}.campaignId`, 100),
        signature: c.str(ro.signature, `${q}.signature`, 100),
        expiresAt: c.int(ro.expiresAt, `${q}.expiresAt`),
      };
      setIf(u, "csv", c.optStr(ro.csv, `${q}.csv`, 5 * 1024 * 1024));
      return u;
    }),
    events: each("events", (ro, q): EventRecord => {
      const e: EventRecord = {
        at: c.int(ro.at, `${q}.at`),
        type: pick(c, ro.type, EVENT_TYPES, `${q}.type`),
        userId: c.str(ro.userId, `${q}.userId`, 100),
        channelType: pick(c, ro.channelType, CHANNEL_TYPES, `${q}.channelType`),
        notificationId: c.str(ro.notificationId, `${q}.notificationId`, 100),
      };
      for (const k of ["templateId", "campaignId", "topic"] as const) setIf(e, k, c.optStr(ro[k], `${q}.${k}`, 100));
      setIf(e, "reason", c.optStr(ro.reason, `${q}.reason`, 1000));
      setIf(e, "step", c.optInt(ro.step, `${q}.step`));
      return e;
    }),
    ...(o.eventCount !== undefined && { eventCount: c.int(o.eventCount, `${path}.eventCount`) }),
  };
}

function marks(c: Checker, raw: unknown, path: string): MarkRecord[] {
  if (raw === undefined) return [];
  return c.arr(raw, path).map((r, i) => {
    const ro = c.obj(r, `${path}[${i}]`);
    return { uid: c.id(ro.uid, `${path}[${i}].uid`), messageId: c.int(ro.messageId, `${path}[${i}].messageId`), at: c.int(ro.at, `${path}[${i}].at`) };
  });
}

/** Messages to check in order, with the path each one's problems are reported at. */
interface MessageSource {
  items: Iterable<unknown>;
  path: (index: number) => string;
}

/**
 * Messages in id order: given ids must increase; missing ones continue the sequence. A reply's parent is looked up
 * among the messages before it (in id order, a binary search: no map of every message for the load).
 */
function messages(c: Checker, sources: MessageSource[], refs: Pick<CallContext, "isUser" | "isGroup">, now: number): MessageRecord[] {
  const out: MessageRecord[] = [];
  let last = 0;
  for (const source of sources) {
    let index = 0;
    for (const entry of source.items) {
      const path = source.path(index++);
      const m = message(c, entry, path, now);
      if (m.id !== undefined && m.id <= last) c.fail(`${path}.id`, `must be greater than the previous message id ${last}`);
      const id = m.id ?? last + 1;
      last = id;
      if (m.sender !== "app_system" && !refs.isUser(m.sender)) c.fail(`${path}.sender`, `names the unknown user ${m.sender}`);
      if (!(m.receiverType === "user" ? refs.isUser : refs.isGroup)(m.receiver))
        c.fail(`${path}.receiver`, `names the unknown ${m.receiverType} ${m.receiver}`);
      const other = m.with;
      if (other !== undefined) delete m.with;
      if (other !== undefined && !refs.isUser(other)) c.fail(`${path}.conversationId`, `names the unknown user ${other}`);
      const conversationId = c.intern(other === undefined ? conversationIdOf(m) : userConversationId(m.receiver, other));
      if (m.parentId !== undefined) {
        const parent = out[lowerBoundId(out, m.parentId)];
        if (parent?.id !== m.parentId || parent.conversationId !== conversationId)
          c.fail(`${path}.parentId`, `names no earlier message of the same conversation`);
      }
      out.push({ ...m, id, conversationId });
    }
  }
  return out;
}

/** An app with its identity and nothing else (reset to empty). */
export function emptyApp(app: AppMeta): AppData {
  return {
    app,
    apiKeys: [],
    users: [],
    authTokens: [],
    roles: [],
    groups: [],
    messages: [],
    lastMessageId: 0,
    reactions: [],
    lastReactionId: 0,
    conversations: [],
    friends: [],
    blocks: [],
    webhooks: [],
    calls: [],
    bots: [],
    agents: [],
    management: emptyManagement(),
    savedMessages: [],
    threadSubscriptions: [],
    interactions: [],
    pinnedConversations: [],
  };
}

/**
 * What a document is: a state file (the data file's format, `chat-emulator/state@1`), a seed (`seed@1`, or no
 * format but a list of apps), or neither (undefined).
 */
export function documentKind(doc: unknown): "state" | "seed" | undefined {
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) return undefined;
  const { format, apps } = doc as Obj;
  if (format === "chat-emulator/state@1") return "state";
  if (format === "chat-emulator/seed@1" || (format === undefined && Array.isArray(apps))) return "seed";
  return undefined;
}

/** The format of a seed or state file newer than this version reads (`chat-emulator/state@2`), if it is one. */
export function newerFormat(doc: unknown): string | undefined {
  const format = typeof doc === "object" && doc !== null ? (doc as Obj).format : undefined;
  const m = typeof format === "string" ? /^chat-emulator\/(state|seed)@(\d{1,6})$/.exec(format) : null;
  return m && Number(m[2]) > 1 ? format as string : undefined;
}

/** Parses a whole seed or state document. */
export function parseState(raw: unknown, now: number, source: string): AppData[] {
  const c = new Checker(source);
  const doc = c.obj(raw, "(top level)");
  if (newerFormat(doc)) c.fail("format", `is ${String(doc.format)}, written by a newer chat-emulator: this version reads chat-emulator/seed@1 and chat-emulator/state@1`);
  if (doc.format !== undefined && doc.format !== "chat-emulator/seed@1" && doc.format !== "chat-emulator/state@1")
    c.fail("format", 'must be "chat-emulator/seed@1" or "chat-emulator/state@1"');
  // A file without apps is not one of ours (`{"hello":"world"}` would start an emulator without apps).
  if (doc.apps === undefined) c.fail("apps", "is missing: this is not a chat-emulator seed or state file");
  const kind = doc.format === "chat-emulator/state@1" ? "state" : "seed";
  const apps = c.arr(doc.apps, "apps").map((a, i) => parseApp(a, `apps[${i}]`, now, source, kind));
  unique(c, apps, (a) => a.app.appId, "apps", "appId");
  return apps;
}

/**
 * A saved state (data file, `PUT /_emulator/state`): its apps, and the birth content of the apps created at run
 * time, so that a reset after a restart still returns them to their birth (absent in older files).
 */
export function parseSavedState(raw: unknown, now: number, source: string): { apps: AppData[]; births: AppData[] } {
  const apps = parseState(raw, now, source);
  const c = new Checker(source);
  const births = (raw as Record<string, unknown>).births;
  if (births === undefined) return { apps, births: [] };
  return { apps, births: c.arr(births, "births").map((a, i) => parseApp(a, `births[${i}]`, now, source, "state")) };
}

/** What to do with a seed document's unknown fields: refuse them (`--strict`), or say so on this log. */
export interface UnknownFieldsPolicy {
  strict?: boolean;
  warn: (line: string) => void;
}

/** Fields shown of a document with many unknown ones (the same typo in every user, say). */
const UNKNOWN_SHOWN = 5;

/**
 * The unknown fields of a seed document (state documents are the emulator's own writing): ignored with one warning
 * that names each with its nearest known field, or refused with a SeedError when strict.
 */
export function checkUnknownFields(doc: unknown, label: string, policy: UnknownFieldsPolicy): void {
  if (documentKind(doc) !== "seed") return;
  const fields = unknownSeedFields(doc);
  if (fields.length === 0) return;
  const more = fields.length > UNKNOWN_SHOWN ? ` and ${fields.length - UNKNOWN_SHOWN} more` : "";
  const list = `${fields.slice(0, UNKNOWN_SHOWN).map(describeUnknown).join(", ")}${more}`;
  const one = fields.length === 1;
  if (policy.strict) throw new SeedError(`${label}: ${one ? "an unknown field" : "unknown fields"}, refused with --strict: ${list}`);
  policy.warn(`chat-emulator: warning: ${label}: ${one ? "an unknown field" : "unknown fields"}, ignored (--strict refuses them): ${list}`);
}

/**
 * Reads and parses a seed or state file (`--seed`, `--import`) a part at a time (see state-reader.ts); any problem
 * becomes a one-line SeedError. With `unknown`, a seed's unknown fields are reported or refused first.
 */
export async function readSeedFile(path: string | URL, now: number, unknown?: UnknownFieldsPolicy): Promise<AppData[]> {
  const label = path instanceof URL ? path.pathname : path;
  let doc: unknown;
  try {
    doc = await readDocumentFile(path instanceof URL ? fileURLToPath(path) : path);
  } catch (e) {
    if (e instanceof DocumentError) throw new SeedError(`${label}: ${e.message}`);
    throw new SeedError(`${label}: cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  if (doc === undefined) throw new SeedError(`${label}: is empty, not a chat-emulator seed or state file`);
  return readingDocument(label, () => {
    if (unknown) checkUnknownFields(doc, label, unknown);
    return parseState(doc, now, label);
  });
}

/** Runs a parse of a document read by state-reader, whose large arrays are only parsed now (a bad one throws). */
export function readingDocument<T>(label: string, parse: () => T): T {
  try {
    return parse();
  } catch (e) {
    if (e instanceof DocumentError) throw new SeedError(`${label}: ${e.message}`);
    throw e;
  }
}
