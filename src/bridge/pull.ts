import { createWriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { finished } from "node:stream/promises";
import { createHash } from "node:crypto";
import { readSeedFile } from "../store/seed.js";
import { STATE_SCHEMA_URL } from "../store/schemas.js";
import { tempName } from "../store/state-writer.js";
import { Anonymizer } from "./anonymize.js";
import { HttpError, ReadOnlyClient } from "./client.js";
import type { Progress } from "./progress.js";
import { ResumeLog } from "./resume.js";

/**
 * `chat-emulator pull`: reads an app through the platform's REST API (GET only; the management API too, for
 * webhooks, when its key and secret are given) and writes a state file the emulator loads with `--seed`,
 * `--import` or `--data`. Every list is paged to its end; per-user and per-group lists and each conversation's
 * latest messages are fetched with a few requests in flight, within the rate limits (client.ts). Each finished
 * piece is written to the progress file (resume.ts), so an interrupted pull continues where it stopped.
 */

export interface PullOptions {
  /** REST base URL, with its version: `https://{appId}.api-{region}.cometchat.io/v3`. */
  baseUrl: string;
  appId: string;
  region: string;
  apiKey: string;
  /** Management API base URL and credentials: webhooks are read only with both. */
  management?: { url: string; key: string; secret: string };
  /** Latest messages per conversation (and per thread); 0 reads no messages. */
  messages: number;
  anonymize?: { salt: string };
  concurrency: number;
  out: string;
  progress: Progress;
}

export interface PullSummary {
  counts: Record<string, number>;
  requests: number;
  waits: number;
  resumedPieces: number;
  notes: string[];
}

type Json = Record<string, unknown>;

/** The password given to password groups: the platform never shows a group's password. */
export const PULLED_GROUP_PASSWORD = "chat-emulator";
const PER_PAGE = 1000;

export async function pull(o: PullOptions): Promise<PullSummary> {
  const { summary, temp, log } = await collect(o);
  // Checked once what was collected can go (a load of the file takes memory of its own).
  o.progress.begin("checking that the file loads");
  try {
    await readSeedFile(temp, Math.floor(Date.now() / 1000));
  } catch (e) {
    await rm(temp, { force: true });
    log.close();
    throw new Error(`the pulled state does not load (${(e as Error).message}); nothing was written`);
  }
  o.progress.end();
  await rename(temp, o.out);
  await log.remove();
  return summary;
}

/** Reads the app and writes it beside `out`; answers the file written, the summary and the progress file. */
async function collect(o: PullOptions): Promise<{ summary: PullSummary; temp: string; log: ResumeLog }> {
  const { progress } = o;
  const client = new ReadOnlyClient({
    concurrency: o.concurrency,
    headers: { apikey: o.apiKey },
    onWait: (seconds, why) => progress.note(`waiting ${seconds.toFixed(1)} s: ${why}`),
  });
  const mgmt = o.management && new ReadOnlyClient({
    concurrency: o.concurrency,
    headers: { key: o.management.key, secret: o.management.secret },
    onWait: (seconds, why) => progress.note(`waiting ${seconds.toFixed(1)} s: ${why}`),
  });
  const log = await ResumeLog.open(`${o.out}.pull-progress`, { baseUrl: o.baseUrl, appId: o.appId, messages: o.messages, webhooks: o.management !== undefined });
  const notes: string[] = [];
  const rest = (path: string) => client.get(`${o.baseUrl}${path}`);

  try {
    // Credentials first: a wrong app id or key ends the pull before any work.
    await rest("/users?perPage=1");

    const pages = async (key: string, path: string): Promise<Json[]> => {
      const sep = path.includes("?") ? "&" : "?";
      const at = (page: number) => log.piece(`${key}#${page}`, async () => {
        const body = await rest(`${path}${sep}perPage=${PER_PAGE}&page=${page}`);
        const pagination = ((body.meta as Json | undefined)?.pagination ?? {}) as { total_pages?: number };
        return { data: body.data as Json[], pages: pagination.total_pages ?? 1 };
      });
      const first = await at(1);
      const rest_ = await Promise.all(Array.from({ length: Math.max(0, first.pages - 1) }, (_, i) => at(i + 2)));
      return [first, ...rest_].flatMap((p) => p.data);
    };

    progress.begin("users");
    const users = await pages("users", "/users?withDeactivated=true&withTags=true");
    progress.count("users", users.length);
    progress.end();

    progress.begin("roles, API keys, groups");
    const roles = await pages("roles", "/roles");
    const apiKeys = await pages("apikeys", "/apikeys");
    const groups = await pages("groups", "/groups?withTags=true");
    progress.count("roles", roles.length);
    progress.count("API keys", apiKeys.length);
    progress.count("groups", groups.length);
    progress.end();

    // A record deleted while the pull runs answers 404 to its lists: they are left empty, and the summary says so.
    let gone = 0;
    const unlessGone = async (read: () => Promise<Json[]>): Promise<Json[]> => {
      try {
        return await read();
      } catch (e) {
        if (!(e instanceof HttpError && e.status === 404)) throw e;
        gone++;
        return [];
      }
    };

    progress.begin("members and bans", groups.length);
    const membership = new Map<string, { members: Json[]; bans: Json[] }>();
    await each(groups, o.concurrency * 2, async (g) => {
      const guid = String(g.guid);
      const members = await unlessGone(() => pages(`members:${guid}`, `/groups/${enc(guid)}/members`));
      const bans = await unlessGone(() => pages(`bans:${guid}`, `/groups/${enc(guid)}/bannedusers`));
      membership.set(guid, { members, bans });
      progress.count("members", members.length);
      progress.tick();
    });
    progress.end();

    progress.begin("friends and blocks", users.length);
    const friends: Json[] = [];
    const blocks: Json[] = [];
    // Each friendship once (both friends list it); a deactivated user has no lists to read.
    await each(users, o.concurrency * 2, async (u) => {
      const uid = String(u.uid);
      if (u.deactivatedAt === undefined) {
        for (const f of await unlessGone(() => pages(`friends:${uid}`, `/users/${enc(uid)}/friends`)))
          if (uid < String(f.uid)) friends.push({ uid, friendUid: f.uid });
        for (const b of await unlessGone(() => pages(`blocks:${uid}`, `/users/${enc(uid)}/blockedusers?direction=blockedByMe`))) {
          const at = b.blockedByMeAt ?? b.blockedAt;
          blocks.push({ uid, blockedUid: b.uid, ...(typeof at === "number" ? { blockedAt: at } : {}) });
        }
      }
      progress.tick();
    });
    progress.count("friendships", friends.length);
    progress.count("blocks", blocks.length);
    progress.end();

    progress.begin("moderation and webhooks");
    const moderation = await pullModeration(log, rest);
    const mgmtGet = (path: string, headers: Record<string, string> = {}) => mgmt!.get(`${o.management!.url}${path}`, headers);
    const webhooks = mgmt ? await pullWebhooks(log, mgmtGet, o.appId) : [];
    // The app's name is the management API's to tell; without it the app is named by its id.
    const appName = mgmt
      ? await log.piece("app", async () => {
          const listed = (await mgmtGet(`/apps?searchKey=${enc(o.appId)}&perPage=1000`)).data as Json[];
          return listed.find((a) => a.id === o.appId)?.name as string | undefined;
        })
      : undefined;
    if (!mgmt) notes.push("webhooks were not read: give --management-key and --management-secret to read them");
    progress.count("webhooks", webhooks.length);
    progress.end();

    const messages: Json[] = [];
    const reactions: Json[] = [];
    if (o.messages > 0) {
      progress.begin("conversations");
      const conversations = await pages("conversations", "/conversations?unique=1");
      progress.count("conversations", conversations.length);
      progress.end();

      progress.begin("messages", conversations.length);
      // Each piece is kept as the state file holds it (slim records), with the ids of messages that have reactions.
      const withReactions: number[] = [];
      const slim = async (path: string) => {
        const list = await latest(rest, path, o.messages);
        return { messages: list.map(messageRecord), reacted: list.filter((m) => Array.isArray((m.data as Json | undefined)?.reactions)).map((m) => Number(m.id)) };
      };
      const take = (piece: { messages: Json[]; reacted: number[] }) => {
        for (const m of piece.messages) messages.push(m);
        withReactions.push(...piece.reacted);
        progress.count("messages", piece.messages.length);
      };
      const goneAsEmpty = (e: unknown) => {
        if (!(e instanceof HttpError && e.status === 404)) throw e;
        gone++;
        return { messages: [], reacted: [] };
      };
      const threads: number[] = [];
      await each(conversations, o.concurrency * 2, async (conv) => {
        const id = String(conv.conversationId);
        const piece = await log.piece(`messages:${id}`, () => slim(`/messages?conversationId=${enc(id)}&hideReplies=true`).catch(goneAsEmpty));
        take(piece);
        for (const m of piece.messages) if (typeof m.replyCount === "number" && m.replyCount > 0) threads.push(m.id as number);
        progress.tick();
      });
      progress.end();

      progress.begin("threads", threads.length);
      await each(threads, o.concurrency * 2, async (id) => {
        take(await log.piece(`thread:${id}`, () => slim(`/messages/${id}/thread`).catch(goneAsEmpty)));
        progress.tick();
      });
      progress.end();

      progress.begin("reactions", withReactions.length);
      await each(withReactions, o.concurrency * 2, async (id) => {
        const list = await log.piece(`reactions:${id}`, async () =>
          (await unlessGone(() => allReactions(rest, id))).map((r) => ({ id: Number(r.id), messageId: Number(r.messageId), reaction: r.reaction, uid: r.uid, reactedAt: r.reactedAt })),
        );
        reactions.push(...list);
        progress.count("reactions", list.length);
        progress.tick();
      });
      progress.end();
    }

    if (gone > 0) notes.push(`${gone} list(s) answered 404 (their user, group or message went while pulling) and were left empty`);
    const anon = o.anonymize && new Anonymizer(o.anonymize.salt);
    const state = assemble(o, appName ?? o.appId, { users, roles, apiKeys, groups, membership, friends, blocks, moderation, webhooks, messages, reactions }, anon, notes);
    const temp = await writeState(o.out, state);
    const summary: PullSummary = {
      counts: {
        users: users.length,
        groups: groups.length,
        messages: messages.length,
        reactions: reactions.length,
        friendships: friends.length,
        blocks: blocks.length,
        webhooks: webhooks.length,
      },
      requests: client.requests + (mgmt?.requests ?? 0),
      waits: client.waits + (mgmt?.waits ?? 0),
      resumedPieces: log.resumed,
      notes,
    };
    return { summary, temp, log };
  } catch (e) {
    log.close();
    throw e;
  }
}

const enc = encodeURIComponent;

/** Runs `fn` over `items` with at most `limit` running at once (the client bounds the requests themselves). */
async function each<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** The latest `n` messages of a message list (cursor paging backwards by id), oldest first. */
async function latest(get: (path: string) => Promise<Json>, path: string, n: number): Promise<Json[]> {
  const out: Json[] = [];
  let before: string | undefined;
  while (out.length < n) {
    const limit = Math.min(1000, n - out.length);
    const body = await get(`${path}${path.includes("?") ? "&" : "?"}affix=prepend&limit=${limit}${before ? `&id=${before}` : ""}`);
    const page = body.data as Json[];
    out.unshift(...page);
    if (page.length < limit) break;
    before = String(page[0].id);
  }
  return out;
}

async function allReactions(get: (path: string) => Promise<Json>, messageId: number): Promise<Json[]> {
  const out: Json[] = [];
  let after: string | undefined;
  for (;;) {
    const body = await get(`/messages/${messageId}/reactions?limit=1000${after ? `&id=${after}` : ""}`);
    const page = body.data as Json[];
    out.push(...page);
    if (page.length < 1000) return out;
    after = String(page.at(-1)!.id);
  }
}

async function pullModeration(log: ResumeLog, get: (path: string) => Promise<Json>) {
  const list = (key: string, path: string) => log.piece(key, async () => (await get(path)).data as Json[]);
  const rules = await list("moderation:rules", "/moderation/rules?limit=1000");
  const keywords = await list("moderation:keywords", "/moderation/keywords?limit=1000");
  const reasons = await list("moderation:reasons", "/moderation/reasons?limit=1000");
  return { rules, keywords, reasons };
}

/** Webhooks of both systems (the current one answers with `X-Webhook-Version: 2`, the legacy one without). */
async function pullWebhooks(log: ResumeLog, get: (path: string, headers: Record<string, string>) => Promise<Json>, appId: string): Promise<Json[]> {
  return log.piece("webhooks", async () => {
    const out: Json[] = [];
    for (const version of [2, 1]) {
      const headers: Record<string, string> = version === 2 ? { "x-webhook-version": "2" } : {};
      let listed: Json[];
      try {
        listed = (await get(`/apps/${enc(appId)}/webhooks`, headers)).data as Json[];
      } catch (e) {
        if (e instanceof HttpError && e.status === 404) continue;
        throw e;
      }
      for (const w of listed) {
        const triggers = (await get(`/apps/${enc(appId)}/webhooks/${enc(String(w.id))}/triggers`, headers)).data as Json[];
        // No password: the platform does not show it, and a pulled file never holds one.
        const { password: _password, ...settings } = w;
        out.push({ ...settings, version, triggers: triggers.map((t) => t.id) });
      }
    }
    return out;
  });
}

const MESSAGE_FIELDS = ["muid", "sender", "receiverType", "receiver", "category", "type", "sentAt", "updatedAt", "replyCount", "editedAt",
  "editedBy", "deletedAt", "deletedBy", "tags", "deliveredAt", "readAt", "pinnedBy", "pinnedAt", "conversationId"] as const;

/**
 * A listed message as a state file holds it: ids as numbers; the sender and receiver entities of a chat message
 * (rebuilt from the live user and group when shown), its reaction counts (rebuilt from the reactions) and the
 * viewer's own fields left out. Action and call messages keep their entities: they are snapshots.
 */
function messageRecord(m: Json): Json {
  const out: Json = { id: Number(m.id) };
  for (const k of MESSAGE_FIELDS) if (m[k] !== undefined) out[k] = m[k];
  if (m.parentId !== undefined) out.parentId = Number(m.parentId);
  if (m.quotedMessageId !== undefined) out.quotedMessageId = Number(m.quotedMessageId);
  const { reactions: _r, interactions: _i, entities, ...data } = (m.data ?? {}) as Json;
  if ((m.category === "action" || m.category === "call") && entities !== undefined) data.entities = entities;
  out.data = data;
  return out;
}

interface Pulled {
  users: Json[];
  roles: Json[];
  apiKeys: Json[];
  groups: Json[];
  membership: Map<string, { members: Json[]; bans: Json[] }>;
  friends: Json[];
  blocks: Json[];
  moderation: { rules: Json[]; keywords: Json[]; reasons: Json[] };
  webhooks: Json[];
  messages: Json[];
  reactions: Json[];
}

const pick = (o: Json, keys: readonly string[]): Json => Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));

/** The app as a state file's entry (`chat-emulator/state@1`). */
function assemble(o: PullOptions, appName: string, p: Pulled, anon: Anonymizer | undefined, notes: string[]): Json {
  const a = <T>(v: T): T => (anon ? anon.record(v) : v);
  const users = p.users.map((u) => {
    const out = a(pick(u, ["uid", "name", "avatar", "link", "metadata", "statusMessage", "status", "role", "tags", "createdAt", "updatedAt", "lastActiveAt", "deactivatedAt"]));
    // A list shows a user never updated with updatedAt = createdAt; the entities in messages show none.
    if (out.updatedAt === out.createdAt) delete out.updatedAt;
    return out;
  });
  let passwordGroups = 0;
  const groups = p.groups.map((g) => {
    const guid = String(g.guid);
    const { members, bans } = p.membership.get(guid)!;
    const out = a(pick(g, ["guid", "name", "type", "description", "icon", "metadata", "tags", "owner", "createdAt", "updatedAt", "updatedBy"]));
    if (g.type === "password") {
      out.password = PULLED_GROUP_PASSWORD;
      passwordGroups++;
    }
    out.members = members.map((m) => pick(m, ["uid", "scope", "joinedAt"]));
    out.bannedUsers = bans.map((b) => pick(b, ["uid", "scope", "bannedAt"]));
    return out;
  });
  if (passwordGroups > 0)
    notes.push(`${passwordGroups} password group(s): the platform never shows a password, so each got the password "${PULLED_GROUP_PASSWORD}"`);
  // The platform never shows a key's secret to a list: each pulled key gets a stand-in derived from its name and scope.
  const apiKeys = p.apiKeys.map((k) => ({
    apiKey: createHash("sha256").update(`${o.appId}\u0000${String(k.name)}\u0000${String(k.scope)}\u0000${String(k.createdAt)}`).digest("hex").slice(0, 40),
    ...pick(k, ["name", "scope", "createdAt", "updatedAt"]),
  }));
  const messages = p.messages.sort((x, y) => (x.id as number) - (y.id as number)).filter((m, i, all) => i === 0 || all[i - 1].id !== m.id);
  return {
    $schema: STATE_SCHEMA_URL,
    format: "chat-emulator/state@1",
    apps: [
      {
        app: { appId: o.appId, name: appName, region: o.region },
        apiKeys,
        roles: p.roles.map((r) => pick(r, ["role", "name", "description", "metadata", "settings", "createdAt", "updatedAt"])),
        users,
        groups,
        friends: p.friends,
        blocks: p.blocks,
        webhooks: p.webhooks.map((w) => pick(w, ["id", "name", "webhookURL", "useBasicAuth", "username", "enabled", "retryOnFailure", "version", "triggers", "createdAt", "updatedAt"])),
        moderation: moderationState(p.moderation),
        messages: messages.map((m) => (anon ? { ...m, data: anon.record(m.data) } : m)),
        reactions: p.reactions,
      },
    ],
  };
}

const num = (v: unknown) => (typeof v === "string" && /^\d+$/.test(v) ? Number(v) : v);

/** Moderation as the API lists it, back into what a state file holds (each rule and list at its current revision). */
function moderationState(m: Pulled["moderation"]): Json {
  return {
    reasons: m.reasons.map((r) => ({ ...pick(r, ["id", "name", "description", "default"]), createdAt: num(r.createdAt), updatedAt: num(r.updatedAt) })),
    rules: m.rules.map((r) => ({
      id: r.id,
      ...(r.default ? { default: true } : {}),
      createdAt: r.createdAt,
      revisions: [{ revision: 1, ...pick(r, ["name", "description", "enabled", "conditions", "action", "filters"]), createdAt: r.updatedAt ?? r.createdAt }],
    })),
    keywordLists: m.keywords.map((k) => ({ ...pick(k, ["id", "name", "description", "category", "isCSV", "searchTerms", "default", "createdAt", "updatedAt"]), revision: 1 })),
    blocked: [],
    flags: [],
    moderated: [],
  };
}

/** Writes the state beside `out` (renamed into place once checked); answers the file's name. */
async function writeState(out: string, state: Json): Promise<string> {
  const temp = tempName(out, process.pid);
  const stream = createWriteStream(temp);
  const app = (state.apps as Json[])[0];
  const { messages, ...head } = app;
  // The messages, one a line: a large pull is never one string.
  const top = JSON.stringify({ ...state, apps: [{ ...head, messages: [] }] });
  const at = top.lastIndexOf('"messages":[]') + '"messages":['.length;
  stream.write(top.slice(0, at));
  (messages as Json[]).forEach((m, i) => stream.write(`${i === 0 ? "\n" : ",\n"}${JSON.stringify(m)}`));
  stream.write(top.slice(at));
  stream.end("\n");
  await finished(stream);
  return temp;
}
