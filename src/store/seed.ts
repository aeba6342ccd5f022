import { readFileSync } from "node:fs";
import { conversationIdOf } from "./conversation-ids.js";
import { GROUP_TYPES, REGIONS, SCOPES } from "./types.js";
import type {
  ApiKeyRecord,
  AppData,
  AppMeta,
  AuthTokenRecord,
  GroupData,
  JsonObject,
  MessageCategory,
  MessageRecord,
  ConversationState,
  ReactionRecord,
  Region,
  RoleRecord,
  UserRecord,
  WebhookRecord,
} from "./types.js";

/**
 * Seed and state files: one format for `--seed`, `--data` and `/_emulator/state`. A file lists apps; an app entry
 * may set `sampleData: true` to start from the built-in sample users (fixtures/sample-data.json). Everything is
 * validated on load, and the first bad field is reported with its path.
 */

export class SeedError extends Error {}

export interface SampleData {
  users: unknown[];
  groups: unknown[];
  messages: unknown[];
}

const FIXTURES = new URL("../../fixtures/", import.meta.url);

let sampleCache: SampleData | undefined;
export function sampleData(): SampleData {
  return (sampleCache ??= JSON.parse(readFileSync(new URL("sample-data.json", FIXTURES), "utf8")) as SampleData);
}

export const DEFAULT_SEED_PATH = new URL("seed.json", FIXTURES);

export const ID_PATTERN = /^[a-z0-9-]+$/;

type Obj = Record<string, unknown>;

class Checker {
  constructor(private readonly source: string) {}

  fail(path: string, problem: string): never {
    throw new SeedError(`${this.source}: ${path} ${problem}`);
  }
  obj(v: unknown, path: string): Obj {
    if (typeof v !== "object" || v === null || Array.isArray(v)) this.fail(path, "must be an object");
    return v as Obj;
  }
  arr(v: unknown, path: string): unknown[] {
    if (v === undefined) return [];
    if (!Array.isArray(v)) this.fail(path, "must be an array");
    return v;
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
    return s;
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

function group(c: Checker, raw: unknown, path: string, createdAt: number): GroupData {
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
    return {
      uid: c.id(bo.uid, `${path}.bannedUsers[${i}].uid`),
      bannedAt: c.optInt(bo.bannedAt, `${path}.bannedUsers[${i}].bannedAt`) ?? g.createdAt,
      bannedBy: bo.bannedBy === undefined ? "app_system" : c.str(bo.bannedBy, `${path}.bannedUsers[${i}].bannedBy`),
    };
  });
  const members = new Set(g.members.map((m) => m.uid));
  if (g.owner !== undefined && !members.has(g.owner)) c.fail(`${path}.owner`, `names ${g.owner}, who is not a member`);
  unique(c, g.members, (m) => m.uid, `${path}.members`, "uid");
  g.bannedUsers.forEach((b, i) => {
    if (members.has(b.uid)) c.fail(`${path}.bannedUsers[${i}].uid`, `names ${b.uid}, who is also a member`);
  });
  return g;
}

const CATEGORIES: readonly MessageCategory[] = ["message", "custom", "action", "call"];

/** A stored message; `id` may be left out (the next free id is used) and `conversationId` is derived. */
function message(c: Checker, raw: unknown, path: string, sentAt: number): Omit<MessageRecord, "id" | "conversationId"> & { id?: number } {
  const o = c.obj(raw, path);
  const receiverType = c.oneOf(o.receiverType, `${path}.receiverType`, ["user", "group"] as const, "user");
  const m: Omit<MessageRecord, "id" | "conversationId"> & { id?: number } = {
    sender: o.sender === "app_system" ? "app_system" : c.id(o.sender, `${path}.sender`),
    receiverType,
    receiver: c.id(o.receiver, `${path}.receiver`),
    category: c.oneOf(o.category, `${path}.category`, CATEGORIES, "message"),
    type: o.type === undefined ? "text" : c.str(o.type, `${path}.type`, 100),
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
  for (const k of ["editedAt", "deletedAt"] as const) setIf(m, k, c.optInt(o[k], `${path}.${k}`));
  for (const k of ["editedBy", "deletedBy"] as const) setIf(m, k, c.optStr(o[k], `${path}.${k}`));
  return m;
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
  for (const k of ["readId", "readAt", "deliveredId", "deliveredAt", "clearedId", "untilId"] as const)
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
export function parseApp(raw: unknown, path: string, now: number, source = "seed"): AppData {
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
  };
  const rawMessages: unknown[] = [];
  if (o.sampleData !== undefined && typeof o.sampleData !== "boolean") c.fail(`${path}.sampleData`, "must be a boolean");
  if (o.sampleData === true) {
    const sample = sampleData();
    data.users.push(...sample.users.map((u, i) => user(c, u, `sample-data.users[${i}]`, createdAt)));
    data.groups.push(...sample.groups.map((g, i) => group(c, g, `sample-data.groups[${i}]`, createdAt)));
    rawMessages.push(...sample.messages.map((m, i) => [m, `sample-data.messages[${i}]`]));
  }
  data.users.push(...c.arr(o.users, `${path}.users`).map((u, i) => user(c, u, `${path}.users[${i}]`, createdAt)));
  data.groups.push(...c.arr(o.groups, `${path}.groups`).map((g, i) => group(c, g, `${path}.groups[${i}]`, createdAt)));
  rawMessages.push(...c.arr(o.messages, `${path}.messages`).map((m, i) => [m, `${path}.messages[${i}]`]));

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
  data.messages = messages(c, rawMessages as [unknown, string][], data, now);
  data.lastMessageId = Math.max(data.lastMessageId, data.messages.at(-1)?.id ?? 0);
  const messageIds = new Set(data.messages.map((m) => m.id));
  data.reactions.forEach((r, i) => {
    if (!messageIds.has(r.messageId)) c.fail(`${path}.reactions[${i}].messageId`, `names the unknown message ${r.messageId}`);
    if (!uids.has(r.uid)) c.fail(`${path}.reactions[${i}].uid`, `names the unknown user ${r.uid}`);
  });
  unique(c, data.reactions, (r) => String(r.id), `${path}.reactions`, "id");
  data.lastReactionId = data.reactions.reduce((max, r) => Math.max(max, r.id), data.lastReactionId);
  data.conversations.forEach((s, i) => {
    if (!uids.has(s.uid)) c.fail(`${path}.conversations[${i}].uid`, `names the unknown user ${s.uid}`);
  });
  for (const [list, a, b] of [["friends", "uid", "friendUid"], ["blocks", "uid", "blockedUid"]] as const)
    (data[list] as unknown as Record<string, string>[]).forEach((r, i) => {
      for (const k of [a, b]) if (!uids.has(r[k])) c.fail(`${path}.${list}[${i}].${k}`, `names the unknown user ${r[k]}`);
      if (r[a] === r[b]) c.fail(`${path}.${list}[${i}]`, "relates a user to themselves");
    });
  return data;
}

/** Messages in id order: given ids must increase; missing ones continue the sequence. */
function messages(c: Checker, raw: [unknown, string][], data: AppData, now: number): MessageRecord[] {
  const uids = new Set(data.users.map((u) => u.uid));
  const guids = new Set(data.groups.map((g) => g.guid));
  const out: MessageRecord[] = [];
  const conversations = new Map<number, string>();
  let last = 0;
  for (const [entry, path] of raw) {
    const m = message(c, entry, path, now);
    if (m.id !== undefined && m.id <= last) c.fail(`${path}.id`, `must be greater than the previous message id ${last}`);
    const id = m.id ?? last + 1;
    last = id;
    if (m.sender !== "app_system" && !uids.has(m.sender)) c.fail(`${path}.sender`, `names the unknown user ${m.sender}`);
    if (!(m.receiverType === "user" ? uids : guids).has(m.receiver))
      c.fail(`${path}.receiver`, `names the unknown ${m.receiverType} ${m.receiver}`);
    const conversationId = conversationIdOf(m);
    if (m.parentId !== undefined && conversations.get(m.parentId) !== conversationId)
      c.fail(`${path}.parentId`, `names no earlier message of the same conversation`);
    conversations.set(id, conversationId);
    out.push({ ...m, id, conversationId });
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
  };
}

/** Parses a whole seed or state document. */
export function parseState(raw: unknown, now: number, source: string): AppData[] {
  const c = new Checker(source);
  const doc = c.obj(raw, "(top level)");
  if (doc.format !== undefined && doc.format !== "chat-emulator/seed@1" && doc.format !== "chat-emulator/state@1")
    c.fail("format", 'must be "chat-emulator/seed@1" or "chat-emulator/state@1"');
  const apps = c.arr(doc.apps, "apps").map((a, i) => parseApp(a, `apps[${i}]`, now, source));
  unique(c, apps, (a) => a.app.appId, "apps", "appId");
  return apps;
}

/** Reads and parses a seed file; any problem becomes a one-line SeedError. */
export function readSeedFile(path: string | URL, now: number): AppData[] {
  const label = path instanceof URL ? path.pathname : path;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new SeedError(`${label}: cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new SeedError(`${label}: is not valid JSON (${(e as Error).message})`);
  }
  return parseState(json, now, label);
}
