import { callMessages, type CallParties } from "../store/call-messages.js";
import { MEDIA_DOMAIN } from "../store/calls.js";
import { groupConversationId, userConversationId } from "../store/conversation-ids.js";
import { STATE_SCHEMA_URL } from "../store/schemas.js";
import type {
  ApiKeyRecord,
  AppMeta,
  CallParticipantRecord,
  CallRecord,
  ConversationState,
  FriendRecord,
  GroupData,
  GroupType,
  JsonObject,
  MessageRecord,
  ReactionRecord,
  UserRecord,
} from "../store/types.js";
import { seededRandom } from "../util/random.js";
import { CITIES, COLOURS, DESCRIPTIONS, FIRST_NAMES, GROUP_KINDS, GROUP_TOPICS, LAST_NAMES, REACTIONS, REPLIES, TEXTS } from "./words.js";

/**
 * Demo data: a realistic app generated from a seed, the same for the same options. Users and groups are made up
 * front; messages are made in time order and handed out in batches, so that a million of them never sit in memory
 * at once (a window of the latest ones stays open so threads can still count their replies). What depends on all
 * messages (reactions, read and delivery pointers, calls) comes after them.
 */

export interface DemoOptions {
  users: number;
  groups: number;
  messages: number;
  seed: number;
  /** The time (Unix seconds) the demo's history ends at; it spans `days` days before. */
  until: number;
  days: number;
}

export const DEMO_DEFAULTS = { users: 200, groups: 20, messages: 20_000, seed: 1, days: 30 };

/** The default end of a demo's history: now, to the hour (so a file generated twice in an hour is the same). */
export function defaultUntil(nowMs = Date.now()): number {
  return Math.floor(nowMs / 3_600_000) * 3600;
}

/** A message as a state file holds it: the conversation id is derived on load. */
export type DemoMessage = Omit<MessageRecord, "conversationId">;

/** One-on-one or group: who talks there, and what is needed for its read pointers afterwards. */
interface Conversation {
  id: string;
  receiverType: "user" | "group";
  receiver: string;
  /** [a, b] for one-on-one; the group's members otherwise. */
  people: string[];
  /** The latest messages' ids and times, newest last (for read pointers a few messages back). */
  recent: [id: number, sentAt: number, sender: string][];
  /** A message that may still get thread replies (while it has not left the window). */
  thread?: DemoMessage;
}

const WINDOW = 4000;
const BATCH = 1000;
const RECENT = 6;
const READERS_PER_GROUP = 50;

class Rng {
  readonly next: () => number;
  constructor(seed: number) {
    this.next = seededRandom(seed);
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  /** An index in [0, n) that favours the first ones: a few very busy conversations, a long quiet tail. */
  skewed(n: number): number {
    const r = this.next();
    return Math.floor(n * r * r * r);
  }
  hex(length: number): string {
    let out = "";
    while (out.length < length) out += (this.int(1 << 24) + (1 << 24)).toString(16).slice(1);
    return out.slice(0, length);
  }
  uuid(): string {
    const h = this.hex(32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20)}`;
  }
}

function slug(s: string): string {
  return s.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
}

/** A small SVG of the initials on a colour, as a data URL: it shows offline and under the inspector's CSP. */
function avatar(name: string, colour: string): string {
  const initials = name.split(/\s+/).map((w) => w[0]).join("").slice(0, 2).toUpperCase();
  const svg =
    `<svg xmlns='http://www.w3.org/2000/svg' width='64' height='64'><rect width='64' height='64' rx='32' fill='${colour}'/>` +
    `<text x='32' y='41' font-family='sans-serif' font-size='24' fill='white' text-anchor='middle'>${initials}</text></svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

export class DemoGenerator {
  readonly app: AppMeta;
  readonly apiKeys: ApiKeyRecord[];
  readonly users: UserRecord[] = [];
  readonly groups: GroupData[] = [];
  readonly friends: FriendRecord[] = [];
  readonly reactions: ReactionRecord[] = [];
  readonly calls: CallRecord[] = [];
  lastMessageId = 0;

  private readonly rng: Rng;
  private readonly start: number;
  private readonly pairs: Conversation[] = [];
  private readonly groupChats: Conversation[] = [];
  private readonly byUid = new Map<string, UserRecord>();
  private readonly byGuid = new Map<string, GroupData>();
  private done = false;

  constructor(readonly options: DemoOptions) {
    const rng = (this.rng = new Rng(options.seed));
    this.start = options.until - options.days * 86_400;
    const createdAt = this.start - 90 * 86_400;
    this.app = { appId: rng.hex(16), name: "Demo App", region: "us", createdAt, plan: "trial", state: "active", version: "3" };
    this.apiKeys = [
      { apiKey: rng.hex(40), name: "Rest API Key", scope: "fullAccess", createdAt },
      { apiKey: rng.hex(40), name: "Auth Key", scope: "authOnly", createdAt },
    ];
    this.makeUsers(createdAt);
    this.makeGroups();
    this.makePairs();
  }

  private makeUsers(appCreatedAt: number): void {
    const { rng } = this;
    const taken = new Map<string, number>();
    for (let i = 0; i < this.options.users; i++) {
      const name = `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`;
      const base = slug(name);
      const n = (taken.get(base) ?? 0) + 1;
      taken.set(base, n);
      const u: UserRecord = {
        uid: n === 1 ? base : `${base}-${n}`,
        name,
        avatar: avatar(name, rng.pick(COLOURS)),
        role: "default",
        tags: [],
        status: rng.chance(0.2) ? "available" : "offline",
        createdAt: appCreatedAt + rng.int(this.start - appCreatedAt),
      };
      if (rng.chance(0.3)) u.statusMessage = rng.pick(["On vacation 🌴", "Busy", "Working remotely", "In meetings all day", "Available"]);
      if (rng.chance(0.5)) u.metadata = { city: rng.pick(CITIES)[0] };
      this.users.push(u);
      this.byUid.set(u.uid, u);
    }
  }

  /** `k` different users, at random. */
  private sample(k: number): UserRecord[] {
    const { users, rng } = this;
    if (k * 2 > users.length) {
      const copy = users.slice();
      for (let i = 0; i < k; i++) {
        const j = i + rng.int(copy.length - i);
        [copy[i], copy[j]] = [copy[j], copy[i]];
      }
      return copy.slice(0, k);
    }
    const chosen = new Set<UserRecord>();
    while (chosen.size < k) chosen.add(users[rng.int(users.length)]);
    return [...chosen];
  }

  private makeGroups(): void {
    const { rng, users } = this;
    const names = new Map<string, number>();
    for (let i = 0; i < this.options.groups; i++) {
      const r = rng.next();
      // Sizes of every kind: a few people, a team, a department, a community.
      const size = Math.min(users.length, r < 0.4 ? rng.between(3, 6) : r < 0.75 ? rng.between(7, 20) : r < 0.95 ? rng.between(21, 100) : rng.between(101, 1000));
      const t = rng.next();
      const type: GroupType = t < 0.6 ? "public" : t < 0.85 ? "private" : "password";
      const base = `${rng.pick(GROUP_TOPICS)} ${rng.pick(GROUP_KINDS)}`;
      const n = (names.get(base) ?? 0) + 1;
      names.set(base, n);
      const name = n === 1 ? base : `${base} ${n}`;
      const members = this.sample(size);
      const g: GroupData = {
        guid: slug(name),
        name,
        type,
        icon: avatar(name, rng.pick(COLOURS)),
        description: rng.pick(DESCRIPTIONS),
        owner: members[0].uid,
        tags: [],
        createdAt: Math.min(members[0].createdAt + rng.int(86_400), this.start - 86_400),
        members: members.map((m, j) => ({
          uid: m.uid,
          scope: j === 0 ? "admin" : j <= Math.floor(size / 15) ? "moderator" : "participant",
          joinedAt: 0,
        })),
        bannedUsers: [],
      };
      g.members.forEach((m, j) => {
        const from = Math.max(g.createdAt, members[j].createdAt);
        m.joinedAt = from + rng.int(Math.max(1, this.start - from));
      });
      if (type === "password") g.password = "demo-password";
      this.groups.push(g);
      this.byGuid.set(g.guid, g);
      this.groupChats.push({ id: groupConversationId(g.guid), receiverType: "group", receiver: g.guid, people: members.map((m) => m.uid), recent: [] });
    }
  }

  /** Who talks one-on-one: about three contacts per user; half of the pairs are friends. */
  private makePairs(): void {
    const { rng, users } = this;
    if (users.length < 2) return;
    const wanted = Math.min((users.length * (users.length - 1)) / 2, users.length * 3);
    const seen = new Set<string>();
    while (this.pairs.length < wanted) {
      const a = users[rng.int(users.length)].uid;
      const b = users[rng.int(users.length)].uid;
      const id = userConversationId(a, b);
      if (a === b || seen.has(id)) continue;
      seen.add(id);
      this.pairs.push({ id, receiverType: "user", receiver: b, people: [a, b], recent: [] });
      if (rng.chance(0.5)) this.friends.push({ uid: a, friendUid: b, createdAt: this.start - rng.int(30 * 86_400) });
    }
  }

  /**
   * The messages, oldest first, in batches. Call messages are among them, where each call took place. Run once;
   * reactions, calls and `conversations()` are complete after it.
   */
  *messages(): Generator<DemoMessage[]> {
    if (this.done) throw new Error("demo messages are generated once");
    const { rng, options } = this;
    const window: DemoMessage[] = [];
    let flushedUpTo = 0;
    const span = options.until - this.start;
    const total = this.pairs.length > 0 || this.groupChats.length > 0 ? options.messages : 0; // else nobody talks
    while (this.lastMessageId < total) {
      const t = this.start + Math.floor((this.lastMessageId / total) * span);
      const made = rng.chance(1 / 250) && total - this.lastMessageId >= 3 ? this.call(t, flushedUpTo) : this.message(t, flushedUpTo);
      for (const m of made) window.push(m);
      if (window.length >= WINDOW) {
        const batch = window.splice(0, BATCH);
        flushedUpTo = batch.at(-1)!.id;
        yield batch;
      }
    }
    for (let at = 0; at < window.length; at += BATCH) yield window.slice(at, at + BATCH);
    this.done = true;
  }

  /** Where the next message goes (there is at least one pair or group). */
  private conversation(): Conversation {
    const { rng, pairs, groupChats } = this;
    if (groupChats.length > 0 && (pairs.length === 0 || rng.chance(0.45))) return groupChats[rng.skewed(groupChats.length)];
    return pairs[rng.skewed(pairs.length)];
  }

  private record(c: Conversation, m: DemoMessage): DemoMessage {
    c.recent.push([m.id, m.sentAt, m.sender]);
    if (c.recent.length > RECENT) c.recent.shift();
    return m;
  }

  private message(t: number, flushedUpTo: number): DemoMessage[] {
    const { rng } = this;
    const c = this.conversation()!;
    const sender = c.receiverType === "user" ? c.people[rng.int(2)] : c.people[rng.skewed(c.people.length)];
    const receiver = c.receiverType === "user" ? (c.people[0] === sender ? c.people[1] : c.people[0]) : c.receiver;
    const m: DemoMessage = { id: ++this.lastMessageId, sender, receiverType: c.receiverType, receiver, category: "message", type: "text", data: {}, sentAt: t, updatedAt: t };
    const parent = c.thread && c.thread.id > flushedUpTo && c.thread.deletedAt === undefined ? c.thread : undefined;
    const r = rng.next();
    if (parent && r < 0.35) {
      m.parentId = parent.id;
      parent.replyCount = (parent.replyCount ?? 0) + 1;
      m.data = { text: rng.pick(REPLIES) };
    } else if (r < 0.41) {
      m.type = "image";
      const name = `photo-${m.id}.jpg`;
      const url = `https://media.${MEDIA_DOMAIN}/${this.app.appId}/${name}`;
      m.data = { url, attachments: [{ url, name, extension: "jpg", mimeType: "image/jpeg", size: 40_000 + rng.int(2_000_000) }] };
    } else if (r < 0.42) {
      const [city, latitude, longitude] = rng.pick(CITIES);
      m.category = "custom";
      m.type = "location";
      m.data = { text: `📍 ${city}`, customData: { latitude, longitude } };
    } else {
      m.data = { text: rng.pick(TEXTS) };
      if (rng.chance(0.03)) c.thread = m;
    }
    const later = (maxSeconds: number) => Math.min(this.options.until, t + rng.between(5, maxSeconds));
    if (m.type === "text" && m.parentId === undefined && rng.chance(0.025)) {
      m.editedAt = m.updatedAt = later(900);
      m.editedBy = sender;
      m.data = { text: `${rng.pick(TEXTS)} (fixed a typo)` };
    } else if (rng.chance(0.015)) {
      m.deletedAt = m.updatedAt = later(3600);
      m.deletedBy = sender;
    }
    if (m.deletedAt === undefined && rng.chance(0.07)) this.react(m, c, later);
    return [this.record(c, m)];
  }

  private react(m: DemoMessage, c: Conversation, later: (maxSeconds: number) => number): void {
    const others = c.people.length <= 4 ? c.people.filter((u) => u !== m.sender) : this.pickPeople(c.people, 1 + this.rng.int(4), m.sender);
    const count = Math.min(others.length, 1 + this.rng.int(3));
    for (let i = 0; i < count; i++)
      this.reactions.push({ id: this.reactions.length + 1, messageId: m.id, reaction: this.rng.pick(REACTIONS), uid: others[i], reactedAt: later(3600) });
  }

  /** Up to `k` different people of a conversation but `except`. */
  private pickPeople(people: string[], k: number, except: string): string[] {
    const out = new Set<string>();
    for (let tries = 0; out.size < k && tries < k * 4; tries++) {
      const uid = people[this.rng.skewed(people.length)];
      if (uid !== except) out.add(uid);
    }
    return [...out];
  }

  /** A call at `t` in a one-on-one or small group conversation, with the call messages it leaves. */
  private call(t: number, flushedUpTo: number): DemoMessage[] {
    const { rng, options } = this;
    const small = this.groupChats.filter((g) => g.people.length <= 20);
    const c = (this.pairs.length > 0 && rng.chance(0.75)) || small.length === 0 ? this.pairs[rng.skewed(this.pairs.length)] : rng.pick(small);
    if (!c) return this.message(t, flushedUpTo);
    const initiator = c.receiverType === "user" ? c.people[rng.int(2)] : c.people[rng.int(c.people.length)];
    const receiver = c.receiverType === "user" ? (c.people[0] === initiator ? c.people[1] : c.people[0]) : c.receiver;
    const r = rng.next();
    const status = r < 0.65 ? "ended" : r < 0.8 ? "unanswered" : r < 0.9 && c.receiverType === "user" ? "rejected" : "canceled";
    const type = rng.chance(0.6) ? "audio" : "video";
    const k: CallRecord = {
      sessionId: `v1.${this.app.region}.${this.app.appId}.${t}${rng.hex(40)}`,
      mid: rng.uuid(),
      type,
      mode: c.receiverType === "user" ? "call" : "meet",
      status,
      initiator,
      receiverType: c.receiverType,
      receiver,
      initiatedAt: t,
      participants: [],
      recordings: [],
      transcriptions: [],
      tags: [],
    };
    const parties = c.receiverType === "user" ? [initiator, receiver] : [initiator, ...this.pickPeople(c.people, 1 + rng.int(6), initiator)];
    if (status === "ended") {
      const startedAt = Math.min(options.until, t + rng.between(3, 20));
      const endedAt = Math.min(options.until, startedAt + rng.between(30, 2400));
      Object.assign(k, { startedAt, endedAt });
      k.participants = parties.map((uid): CallParticipantRecord => ({
        uid,
        state: "ended",
        deviceId: `${rng.uuid()}@rtc.${MEDIA_DOMAIN}/${rng.hex(8)}`,
        joinedAt: startedAt,
        leftAt: endedAt,
      }));
      if (type === "video" && rng.chance(0.2)) {
        const rid = rng.uuid();
        k.recordings = [{ rid, startTime: startedAt, endTime: endedAt, recording_url: `https://recordings.${MEDIA_DOMAIN}/${this.app.appId}/${rid}.mp4` }];
      }
    } else {
      k.endedAt = Math.min(options.until, t + rng.between(10, 40));
      k.participants = parties.map((uid) => ({ uid, state: status === "rejected" ? "rejected" : "unanswered" }));
    }
    this.calls.push(k);
    const lookup: CallParties = {
      user: (uid) => this.byUid.get(uid),
      group: (guid) => this.byGuid.get(guid),
      membersCount: (guid) => this.byGuid.get(guid)?.members.length ?? 0,
    };
    return callMessages(k, lookup).map(({ conversationId: _, ...m }) => this.record(c, { ...m, id: ++this.lastMessageId, updatedAt: m.sentAt }));
  }

  /**
   * Read and delivery pointers: every one-on-one party and up to 50 members of each group have received everything;
   * most have read it all, some are a few messages behind (unread counts), and who sent the last one has read it.
   */
  *conversations(): Generator<ConversationState[]> {
    if (!this.done) throw new Error("conversations come after the messages");
    const { rng } = this;
    for (const c of [...this.pairs, ...this.groupChats]) {
      const last = c.recent.at(-1);
      if (!last) continue;
      const out: ConversationState[] = [];
      for (const uid of c.people.slice(0, READERS_PER_GROUP)) {
        const behind = uid === last[2] || rng.chance(0.7) ? 0 : 1 + rng.int(c.recent.length - 1 || 1);
        const [readId, readAt] = c.recent[Math.max(0, c.recent.length - 1 - behind)];
        out.push({ uid, conversationId: c.id, deliveredId: last[0], deliveredAt: last[1], readId, readAt });
      }
      yield out;
    }
  }
}

/** The demo as a state document in memory (for `--demo`, and small sizes). */
export function demoState(options: DemoOptions): { $schema: string; format: "chat-emulator/state@1"; apps: JsonObject[] } {
  const g = new DemoGenerator(options);
  const messages = [...g.messages()].flat();
  const conversations = [...g.conversations()].flat();
  const app = {
    app: g.app,
    apiKeys: g.apiKeys,
    users: g.users,
    groups: g.groups,
    friends: g.friends,
    messages,
    lastMessageId: g.lastMessageId,
    reactions: g.reactions,
    lastReactionId: g.reactions.length,
    conversations,
    calls: g.calls,
  };
  return { $schema: STATE_SCHEMA_URL, format: "chat-emulator/state@1", apps: [app as unknown as JsonObject] };
}
