import { PART_KEYS, type AppState } from "./app-state.js";
import { lowerBoundId } from "./messages.js";
import type { Store } from "./store.js";
import { applyListChanges, GroupedNotes, type ListChange } from "./noted.js";
import { blockKey, friendKey } from "./relations.js";
import { byInitiation } from "./calls.js";
import { defaultModeration } from "./moderation-defaults.js";
import { firstWhere } from "../util/search.js";
import { blockedId, flagId, type BlockedEntry, type FlagEntry, type ModerationData } from "./moderation.js";
import type { AppData, AuthTokenRecord, CallRecord, ConversationState, GroupData, GroupRecord, MessageRecord, ReactionRecord, StateData, UserRecord } from "./types.js";
import type { PeopleNotes } from "./groups.js";
import { Campaigns, trimEvents, type CampaignsData, type CampaignsRest, type EventRecord, type FeedItemRecord, type PushRecord } from "./campaigns.js";

/**
 * One change of the saved state, as the change log holds it (JSON). Each carries the after-image of what it
 * names, so applying a change twice, or to a state that already has it, gives the same result: a checkpoint
 * written while requests go on may hold some of the changes logged after its start (see persistence.ts).
 */
export type Change =
  /** An app that is new or was replaced whole (created, loaded, restored), in full. */
  | ["app", AppData]
  /** An app deleted. */
  | ["drop", string]
  /** The apps' order, when it changed. */
  | ["order", string[]]
  /** What the apps created at run time were born with (`births` of the state file). */
  | ["births", AppData[] | null]
  /** One part of an app (a top-level key of its data other than the messages), whole. */
  | ["set", string, string, unknown]
  /** Messages stored or changed in place (after-images), and ids deleted for good. */
  | ["messages", string, MessageRecord[], number[]]
  /** Records of a grouped part (see GROUPED) created or changed (after-images), and those removed, as [group, id]. */
  | ["grouped", string, GroupedPart, unknown[], [string | number, string | number][]]
  /** Ids added to an app's moderated ids (id) and removed (-id), in order; the rest of its moderation data unchanged. */
  | ["moderated", string, number[]]
  /** Changes of an app's blocked-message queue or flags, in order, by message id. */
  | ["queued", string, "blocked" | "flags", ListChange<number, unknown>[]]
  /** A group's members and bans added or changed (a record) and removed (null), in order; the group itself unchanged. */
  | ["people", string, string, PeopleNotes["members"], PeopleNotes["bans"]]
  /** What changed in an app's campaigns data (the part itself there already): see CampaignsChange. */
  | ["campaigns", string, CampaignsChange];

/**
 * The campaigns data's changes: its small parts whole when they changed (`rest`), feed items and pushes created or
 * changed (the record, added at the end when new) and removed (null), in order, and the events recorded since
 * (`events`: the count of events ever recorded after them, and the newest of them; a replay adds those past the
 * state's count, so applying it again adds none).
 */
export interface CampaignsChange {
  rest?: CampaignsRest;
  items?: ListChange<string, FeedItemRecord>[];
  pushes?: ListChange<string, PushRecord>[];
  events?: [number, EventRecord[]];
}

type Json = unknown;

/**
 * How deep each part is compared and copied. A store record's own fields change in place, but its nested values
 * are replaced, never mutated (see types.ts): a list of records is compared down to the records' fields (2), and
 * the app's meta down to its fields (1); the management data replaces each of its values (an extension's state,
 * the settings map, the lists) when it changes (2). Deeper values are compared by reference. The durability and
 * fuzz tests check these depths (`verify`).
 */
const DEPTHS: Record<string, number> = { app: 1 };
const depthOf = (part: string) => DEPTHS[part] ?? 2;
/**
 * The parts whose classes note what changes (see noted.ts), and how their records are grouped and named, in the
 * order their `toData()` lists them: conversation states by user, reactions by message; users, auth tokens,
 * groups, friendships, blocks and calls in one group each (in creation order; calls sorted by initiation). `image` is a noted record as `toData()` lists it (a group with its
 * members and bans), read when the change is taken.
 */
const ONE = () => 0;
const GROUPED = {
  users: { group: ONE, id: (u: UserRecord) => u.uid, notes: (a: AppState) => a.userNotes },
  authTokens: { group: ONE, id: (t: AuthTokenRecord) => t.authToken, notes: (a: AppState) => a.tokenNotes },
  groups: {
    group: ONE,
    id: (g: GroupRecord) => g.guid,
    notes: (a: AppState) => a.groups.notes,
    // A group new to the log with its members and bans; one the log has, alone (its membership goes by "people").
    image: (a: AppState, g: GroupRecord) => (a.groups.bornNoted!.has(g) ? a.groups.dataOf(g) : { ...g }),
    merge: (r: GroupData | GroupRecord, before: GroupData | undefined) =>
      "members" in r ? r : { ...r, members: before?.members ?? [], bannedUsers: before?.bannedUsers ?? [] },
  },
  calls: { group: ONE, id: (c: CallRecord) => c.sessionId, notes: (a: AppState) => a.calls.notes, order: byInitiation },
  friends: { group: ONE, id: friendKey, notes: (a: AppState) => a.relations.friendNotes },
  blocks: { group: ONE, id: blockKey, notes: (a: AppState) => a.relations.blockNotes },
  conversations: { group: (s: ConversationState) => s.uid, id: (s: ConversationState) => s.conversationId, notes: (a: AppState) => a.conversations },
  reactions: { group: (r: ReactionRecord) => r.messageId, id: (r: ReactionRecord) => r.id, notes: (a: AppState) => a.reactions },
};
type GroupedPart = keyof typeof GROUPED;
type Keyed = {
  group(r: unknown): string | number;
  id(r: unknown): string | number;
  notes(a: AppState): { noted: GroupedNotes<unknown> | undefined };
  image?(a: AppState, r: unknown): unknown;
  /** A replayed record as stored, from its logged image and the record it replaces (groups: their people). */
  merge?(r: unknown, before: unknown): unknown;
  /** The order of a part kept sorted (calls, by initiation), when it is not the order of creation. */
  order?(a: unknown, b: unknown): number;
};
const keyed = (part: GroupedPart) => GROUPED[part] as unknown as Keyed;
/**
 * The parts whose classes count their changes: taken whole when the count moved, not read otherwise. The
 * notification data grows with use (each user's preferences, push tokens); moderation, which counts its changes
 * too, has its own entry (see `moderation`).
 */
const COUNTED: Record<string, (a: AppState) => number> = {
  savedMessages: (a) => a.savedMessages.version,
  threadSubscriptions: (a) => a.threadSubscriptions.version,
  interactions: (a) => a.interactions.version,
  notifications: (a) => a.notifications.revision,
};
/** The parts whose classes note what changes: messages (there can be millions), moderation, campaigns, the grouped and the counted ones. */
const NOTED = new Set(["messages", "moderation", "campaigns", ...Object.keys(GROUPED), ...Object.keys(COUNTED)]);
/** The others, compared at each write, with their depths. */
const COMPARED = PART_KEYS.filter((key) => !NOTED.has(key)).map((key) => [key, depthOf(key)] as const);
const COUNTED_PARTS = Object.entries(COUNTED);
const GROUPED_PARTS = Object.keys(GROUPED) as GroupedPart[];
/** The parts `verify` copies to the end: those compared only so deep or taken by a count. */
const VERIFIED = [...COMPARED.map(([key]) => key), ...Object.keys(COUNTED), "moderation", "campaigns"];

/** A copy of plain data (what toData() returns) down to `depth`, sharing what is deeper. */
function clone(v: Json, depth: number): Json {
  if (v === null || typeof v !== "object" || depth === 0) return v;
  if (Array.isArray(v)) return v.map((x) => clone(x, depth - 1));
  const out: Record<string, Json> = {};
  for (const k in v) {
    const x = (v as Record<string, Json>)[k];
    if (x !== undefined) out[k] = clone(x, depth - 1);
  }
  return out;
}

/** Whether `a` serializes like `b` (a copy made by `clone` with the same depth); `undefined` properties count as absent. */
function equal(a: Json, b: Json, depth: number): boolean {
  if (a === b) return true;
  if (depth === 0 || a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!equal(a[i], b[i], depth - 1)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as Record<string, Json>;
  const y = b as Record<string, Json>;
  let n = 0;
  for (const k in x) {
    if (x[k] === undefined) continue;
    if (!equal(x[k], y[k], depth - 1)) return false;
    n++;
  }
  for (const k in y) if (y[k] !== undefined) n--;
  return n === 0;
}

interface Tracked {
  state: AppState;
  /** Each part as last logged (a copy), the noted ones aside. */
  parts: Map<string, Json>;
  /** The change count of each counted part as last logged. */
  versions: Map<string, number>;
  /** The moderation data's revision as last logged. */
  moderation: number;
  /** The campaigns data as last logged: its instance (a loaded one replaces it) and the revision of its small parts. */
  campaigns: { of: Campaigns; revision: number };
  /** With `verify`: each compared or counted part as last logged, copied to the end (moderation: with its changes since). */
  deep?: Map<string, Json>;
}

/**
 * Finds what changed in the store since it last looked, at a cost that follows what changed: the parts that grow
 * with use (messages, conversation states, reactions, users, auth tokens, groups, friendships, blocks, calls) are
 * noted by their classes record by record as they change, the marks count their changes (COUNTED), and only the
 * small remaining parts are compared with copies of what was last logged. `take()` returns the changes and
 * remembers the state as logged.
 */
export class ChangeTracker {
  private apps = new Map<string, Tracked>();
  private order: string[] = [];
  private births: AppData[] = [];

  /**
   * With `verify` (tests), what is compared only so deep (DEPTHS) or taken by a count (COUNTED, moderation) is also compared
   * to the end with a copy of what was logged, and a change the comparison or the count missed throws: a mutator
   * that broke the rules above would otherwise be lost in a replay.
   */
  constructor(
    private readonly store: Store,
    private readonly verify = false,
  ) {
    this.take();
  }

  /** The changes since the last call (none when nothing changed). */
  take(): Change[] {
    const out: Change[] = [];
    const order: string[] = [];
    const seen = new Set<string>();
    for (const [appId, state] of this.store.apps) {
      order.push(appId);
      seen.add(appId);
      const tracked = this.apps.get(appId);
      if (tracked?.state === state) this.diff(appId, tracked, out);
      else out.push(["app", this.track(appId, state)]);
    }
    for (const appId of this.apps.keys())
      if (!seen.has(appId)) {
        this.apps.delete(appId);
        out.push(["drop", appId]);
      }
    if (order.length !== this.order.length || order.some((id, i) => id !== this.order[i])) out.push(["order", order]);
    this.order = order;
    const births = this.store.toBirths() ?? [];
    if (births.length !== this.births.length || births.some((b, i) => b !== this.births[i])) out.push(["births", births.length > 0 ? births : null]);
    this.births = births;
    return out;
  }

  /** Starts tracking a new app: its full data, and its parts as copies. */
  private track(appId: string, state: AppState): AppData {
    const data = state.toData();
    const parts = new Map<string, Json>();
    for (const [key, depth] of COMPARED) parts.set(key, clone(data[key], depth));
    state.messages.noted = new Map();
    state.messages.reloaded = false;
    for (const part of GROUPED_PARTS) keyed(part).notes(state).noted = new GroupedNotes();
    state.groups.peopleNoted = new Map();
    state.groups.bornNoted = new Set();
    const versions = new Map(Object.entries(COUNTED).map(([part, version]) => [part, version(state)]));
    state.moderation.noted = [];
    state.moderation.queued = { blocked: [], flags: [] };
    const campaigns = { of: state.campaigns, revision: state.campaigns.revision };
    state.campaigns.noted = { items: new Map(), pushes: new Map(), events: 0 };
    const deep = this.verify ? new Map(VERIFIED.map((key) => [key, clone(data[key as keyof AppData], Infinity)])) : undefined;
    this.apps.set(appId, { state, parts, versions, moderation: state.moderation.revision, campaigns, deep });
    return data;
  }

  private diff(appId: string, tracked: Tracked, out: Change[]): void {
    const { state } = tracked;
    // Part by part, the noted ones unread: listing them would cost as much as comparing them.
    for (const [key, depth] of COMPARED) {
      const value = state.part(key);
      if (equal(value, tracked.parts.get(key), depth)) {
        if (tracked.deep && !equal(value, tracked.deep.get(key), Infinity)) throw new Error(`the ${key} of app ${appId} changed deeper than it is compared`);
        continue;
      }
      tracked.parts.set(key, clone(value, depth));
      tracked.deep?.set(key, clone(value, Infinity));
      out.push(["set", appId, key, value ?? null]);
    }
    for (const [key, version] of COUNTED_PARTS) {
      const moved = tracked.versions.get(key) !== version(state);
      if (!moved && !tracked.deep) continue;
      const value = state.part(key as keyof AppData);
      if (!moved) {
        if (!equal(value, tracked.deep!.get(key), Infinity)) throw new Error(`the ${key} of app ${appId} changed without its count moving`);
        continue;
      }
      tracked.versions.set(key, version(state));
      tracked.deep?.set(key, clone(value, Infinity));
      out.push(["set", appId, key, value]);
    }
    this.people(appId, state, out);
    for (const part of GROUPED_PARTS) this.grouped(appId, state, part, out);
    if (state.groups.bornNoted!.size > 0) state.groups.bornNoted = new Set();
    this.moderation(appId, tracked, out);
    this.campaigns(appId, tracked, out);
    const messages = tracked.state.messages;
    if (messages.reloaded) {
      messages.reloaded = false;
      messages.noted!.clear();
      out.push(["set", appId, "messages", messages.toData()]);
      return;
    }
    if (messages.noted!.size === 0) return;
    const put: MessageRecord[] = [];
    const gone: number[] = [];
    for (const [id, m] of messages.noted!) {
      if (m) put.push(m);
      else gone.push(id);
    }
    messages.noted!.clear();
    out.push(["messages", appId, put, gone]);
  }

  /** The membership changes of the groups the log has (not new to it, nor all reloaded). */
  private people(appId: string, state: AppState, out: Change[]): void {
    const { groups } = state;
    if (groups.peopleNoted!.size === 0) return;
    if (!groups.notes.noted!.reloaded)
      for (const [guid, { members, bans }] of groups.peopleNoted!) {
        const group = groups.get(guid);
        if (group && !groups.bornNoted!.has(group)) out.push(["people", appId, guid, members, bans]);
      }
    groups.peopleNoted = new Map();
  }

  /** The moderation data whole when its revision moved; otherwise the changes of its moderated ids and queues, if any. */
  private moderation(appId: string, tracked: Tracked, out: Change[]): void {
    const m = tracked.state.moderation;
    const moved = m.noted!;
    const queued = m.queued!;
    if (moved.length > 0) m.noted = [];
    if (queued.blocked.length > 0 || queued.flags.length > 0) m.queued = { blocked: [], flags: [] };
    if (m.revision !== tracked.moderation) {
      tracked.moderation = m.revision;
      out.push(["set", appId, "moderation", m.toData()]);
      tracked.deep?.set("moderation", clone(m.toData(), Infinity));
      return;
    }
    if (moved.length > 0) out.push(["moderated", appId, moved]);
    for (const kind of QUEUES) if (queued[kind].length > 0) out.push(["queued", appId, kind, queued[kind]]);
    if (!tracked.deep) return;
    // The copy gets what a replay would, from a copy of what was logged (the entries are live until serialized).
    const copy = tracked.deep.get("moderation") as ModerationData;
    applyModerated(copy.moderated, moved);
    for (const kind of QUEUES) applyQueued(copy, kind, clone(queued[kind], Infinity) as ListChange<number, unknown>[]);
    if (!equal(m.toData(), copy, Infinity)) throw new Error(`the moderation data of app ${appId} changed without its revision moving`);
  }

  /** The campaigns data whole when it was replaced (loaded); otherwise what changed in it, if anything. */
  private campaigns(appId: string, tracked: Tracked, out: Change[]): void {
    const live = tracked.state.campaigns;
    if (live !== tracked.campaigns.of) {
      tracked.campaigns = { of: live, revision: live.revision };
      live.noted = { items: new Map(), pushes: new Map(), events: 0 };
      const data = live.toData();
      out.push(["set", appId, "campaigns", data ?? null]);
      tracked.deep?.set("campaigns", clone(data, Infinity));
      return;
    }
    const notes = live.noted!;
    const change: CampaignsChange = {};
    if (live.revision !== tracked.campaigns.revision) {
      tracked.campaigns.revision = live.revision;
      change.rest = live.rest();
    }
    if (notes.items.size > 0) change.items = [...notes.items];
    if (notes.pushes.size > 0) change.pushes = [...notes.pushes];
    if (notes.events > 0) change.events = [live.eventCount, live.events.slice(-notes.events)];
    live.noted = { items: new Map(), pushes: new Map(), events: 0 };
    if (change.rest || change.items || change.pushes || change.events) out.push(["campaigns", appId, change]);
    if (!tracked.deep) return;
    // The copy gets what a replay would, from a copy of what was logged (the records are live until serialized).
    const copy = (tracked.deep.get("campaigns") as CampaignsData | undefined) ?? noCampaigns();
    const after = applyCampaigns(copy, clone(change, Infinity) as CampaignsChange);
    tracked.deep.set("campaigns", after);
    // Compared as saved: data with nothing kept (ids taken by a refused write, say) saves as none.
    if (!equal(live.toData(), Campaigns.from(after).toData(), Infinity)) throw new Error(`the campaigns data of app ${appId} changed without its change being noted`);
  }

  /** The records of a grouped part noted since the last call. */
  private grouped(appId: string, state: AppState, part: GroupedPart, out: Change[]): void {
    const { notes: of, image } = keyed(part);
    const notes = of(state).noted!;
    if (notes.reloaded) out.push(["set", appId, part, state.part(part)]);
    else if (notes.put.size > 0 || notes.gone.length > 0)
      out.push(["grouped", appId, part, image ? [...notes.put].map((r) => image(state, r)) : [...notes.put], notes.gone]);
    else return;
    notes.clear();
  }
}

/**
 * Applies logged lines of changes, in order, to saved state data (parsed JSON, not yet checked): `line` applies
 * one line's changes, or none of them when one cannot be applied (it answers why: an unknown kind, a malformed
 * change, an app or group that is not there), and `finish` puts the grouped parts back in file form.
 */
export class Replay {
  // The records of grouped parts while replaying, by group and id, in the live store's order (see GROUPED).
  private readonly grouped = new Map<AppData, Map<GroupedPart, Map<string | number, Map<string | number, unknown>>>>();

  constructor(private readonly state: StateData) {}

  private appOf(appId: string): AppData | undefined {
    return this.state.apps.find((a) => a.app.appId === appId);
  }

  private groupOf(app: AppData, guid: string): GroupData | undefined {
    const byGroup = this.grouped.get(app)?.get("groups");
    return (byGroup ? byGroup.get(0)?.get(guid) : app.groups.find((g) => g.guid === guid)) as GroupData | undefined;
  }

  /** Applies one line's changes; answers why it cannot, having changed nothing. */
  line(changes: unknown): string | undefined {
    const problem = this.check(changes);
    if (problem) return problem;
    for (const change of changes as Change[]) this.apply(change);
    return undefined;
  }

  /** Why a line's changes cannot be applied in order to the state as it stands (apps and groups the line itself adds count). */
  private check(changes: unknown): string | undefined {
    if (!Array.isArray(changes)) return "it is not a list of changes";
    const apps = new Set(this.state.apps.map((a) => a.app.appId));
    const groups = new Set<string>();
    for (let i = 0; i < changes.length; i++) {
      const change = changes[i] as unknown[];
      const problem = changeProblem(change, apps, (appId, guid) => groups.has(`${appId}/${guid}`) || Boolean(this.groupIn(appId, guid)));
      if (problem) return `change ${i + 1} ${problem}`;
      if (change[0] === "app") {
        const app = change[1] as AppData;
        apps.add(app.app.appId);
        for (const g of app.groups ?? []) groups.add(`${app.app.appId}/${g.guid}`);
      } else if (change[0] === "drop") apps.delete(change[1] as string);
      else if (change[0] === "grouped" && change[2] === "groups") for (const g of change[3] as GroupRecord[]) groups.add(`${change[1]}/${g.guid}`);
      else if (change[0] === "set" && change[2] === "groups" && Array.isArray(change[3]))
        for (const g of change[3] as GroupRecord[]) groups.add(`${change[1]}/${g?.guid}`);
    }
    return undefined;
  }

  private groupIn(appId: string, guid: string): GroupData | undefined {
    const app = this.appOf(appId);
    return app && this.groupOf(app, guid);
  }

  private apply(change: Change): void {
    const { state } = this;
    switch (change[0]) {
      case "app": {
        const at = state.apps.findIndex((a) => a.app.appId === change[1].app.appId);
        if (at === -1) state.apps.push(change[1]);
        else {
          this.grouped.delete(state.apps[at]);
          state.apps[at] = change[1];
        }
        break;
      }
      case "drop":
        state.apps = state.apps.filter((a) => a.app.appId !== change[1]);
        break;
      case "order": {
        const apps = new Map(state.apps.map((a) => [a.app.appId, a]));
        state.apps = change[1].map((id) => apps.get(id)).filter((a): a is AppData => a !== undefined);
        break;
      }
      case "births":
        if (change[1]) state.births = change[1];
        else delete state.births;
        break;
      case "set": {
        const app = this.appOf(change[1])!;
        // An optional part emptied (undefined) is logged as null: it is left out, as `toData()` leaves it out.
        if (change[3] === null) delete (app as unknown as Record<string, unknown>)[change[2]];
        else (app as unknown as Record<string, unknown>)[change[2]] = change[3];
        this.grouped.get(app)?.delete(change[2] as GroupedPart);
        break;
      }
      case "messages": {
        const app = this.appOf(change[1])!;
        app.messages = mergeMessages(app.messages, change[2], change[3]);
        break;
      }
      case "moderated": {
        const app = this.appOf(change[1])!;
        app.moderation ??= defaultModeration(app.app.createdAt);
        applyModerated(app.moderation.moderated, change[2]);
        break;
      }
      case "people": {
        const group = this.groupIn(change[1], change[2])!;
        group.members = applyListChanges(group.members ?? [], change[3], (m) => m.uid);
        group.bannedUsers = applyListChanges(group.bannedUsers ?? [], change[4], (b) => b.uid);
        break;
      }
      case "campaigns": {
        const app = this.appOf(change[1])!;
        app.campaigns = applyCampaigns(app.campaigns ?? noCampaigns(), change[2]);
        break;
      }
      case "queued": {
        const app = this.appOf(change[1])!;
        app.moderation ??= defaultModeration(app.app.createdAt);
        applyQueued(app.moderation, change[2], change[3]);
        break;
      }
      case "grouped": {
        const app = this.appOf(change[1])!;
        const part = change[2];
        const { group, id, merge } = keyed(part);
        let parts = this.grouped.get(app);
        if (!parts) this.grouped.set(app, (parts = new Map()));
        let byGroup = parts.get(part);
        if (!byGroup) parts.set(part, (byGroup = groupRecords(((app as unknown as Record<string, unknown[]>)[part] ?? []), group, id)));
        for (const [g, key] of change[4]) {
          const records = byGroup.get(g);
          records?.delete(key);
          if (records?.size === 0) byGroup.delete(g);
        }
        for (const r of change[3]) {
          let records = byGroup.get(group(r));
          if (!records) byGroup.set(group(r), (records = new Map()));
          records.set(id(r), merge ? merge(r, records.get(id(r))) : r);
        }
        break;
      }
    }
  }

  /** Puts the grouped parts back into the state, in file form. */
  finish(): void {
    for (const [app, parts] of this.grouped)
      for (const [part, byGroup] of parts) {
        const list: unknown[] = [];
        for (const records of byGroup.values()) for (const r of records.values()) list.push(r);
        const { order } = keyed(part);
        if (order) list.sort(order);
        (app as unknown as Record<string, unknown[]>)[part] = list;
      }
    this.grouped.clear();
  }
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isStr = (v: unknown): v is string => typeof v === "string";
const listOf = (v: unknown, item: (x: unknown) => boolean) => Array.isArray(v) && v.every(item);
const isKey = (v: unknown) => typeof v === "string" || typeof v === "number";
const isListChange = (v: unknown) => Array.isArray(v) && v.length === 2 && (v[1] === null || isObj(v[1]));
/** The number of items of each kind of change (kind included). */
const ARITY: Record<Change[0], number> = { app: 2, drop: 2, order: 2, births: 2, set: 4, messages: 4, grouped: 5, moderated: 3, queued: 4, people: 5, campaigns: 3 };

/**
 * Why a logged change cannot be applied ("is …"), or undefined: its kind, its shape, and the app (or group) it
 * names, which must be there. A kind this version does not know is what a newer version's log holds.
 */
function changeProblem(c: unknown[], apps: Set<string>, hasGroup: (appId: string, guid: string) => boolean): string | undefined {
  if (!Array.isArray(c) || !isStr(c[0])) return "is not a change record";
  const kind = c[0] as Change[0];
  if (!Object.hasOwn(ARITY, kind)) return `is of an unknown kind ${JSON.stringify(kind.slice(0, 40))} (written by a newer chat-emulator?)`;
  if (c.length !== ARITY[kind]) return `(${kind}) has ${c.length} items instead of ${ARITY[kind]}`;
  const bad = `(${kind}) is malformed`;
  switch (kind) {
    case "app": {
      const app = c[1] as Record<string, unknown>;
      return isObj(app) && isObj(app.app) && isStr(app.app.appId) && Array.isArray(app.messages) && Array.isArray(app.groups) ? undefined : bad;
    }
    case "drop":
      return isStr(c[1]) ? undefined : bad;
    case "order":
      return listOf(c[1], isStr) ? undefined : bad;
    case "births":
      return c[1] === null || listOf(c[1], isObj) ? undefined : bad;
    default:
      break;
  }
  if (!isStr(c[1])) return bad;
  if (!apps.has(c[1])) return `(${kind}) names app ${JSON.stringify(c[1].slice(0, 40))}, which the state does not have`;
  switch (kind) {
    case "set":
      return isStr(c[2]) && (PART_KEYS as readonly string[]).includes(c[2]) && c[3] !== undefined ? undefined : bad;
    case "messages":
      return listOf(c[2], (m) => isObj(m) && typeof m.id === "number") && listOf(c[3], (n) => typeof n === "number") ? undefined : bad;
    case "moderated":
      return listOf(c[2], (n) => Number.isInteger(n)) ? undefined : bad;
    case "queued":
      return (c[2] === "blocked" || c[2] === "flags") && listOf(c[3], (q) => isListChange(q) && typeof (q as unknown[])[0] === "number") ? undefined : bad;
    case "grouped":
      return isStr(c[2]) && Object.hasOwn(GROUPED, c[2]) && listOf(c[3], isObj) && listOf(c[4], (k) => Array.isArray(k) && k.length === 2 && isKey(k[0]) && isKey(k[1]))
        ? undefined
        : bad;
    case "campaigns":
      return campaignsChangeProblem(c[2]) ? bad : undefined;
    case "people":
      if (!isStr(c[2]) || !listOf(c[3], isListChange) || !listOf(c[4], isListChange)) return bad;
      return hasGroup(c[1], c[2]) ? undefined : `(people) names group ${JSON.stringify(c[2].slice(0, 40))}, which app ${c[1]} does not have`;
    default:
      return undefined;
  }
}

function groupRecords(
  list: unknown[],
  group: (r: unknown) => string | number,
  id: (r: unknown) => string | number,
): Map<string | number, Map<string | number, unknown>> {
  const byGroup = new Map<string | number, Map<string | number, unknown>>();
  for (const r of list) {
    let records = byGroup.get(group(r));
    if (!records) byGroup.set(group(r), (records = new Map()));
    records.set(id(r), r);
  }
  return byGroup;
}

/** Applies to moderated ids (ascending) the ids added (id: above the last, see Moderation.noteModerated) and removed (-id), in order. */
function applyModerated(ids: number[], moved: number[]): void {
  for (const id of moved) {
    if (id > 0) {
      if (ids.length === 0 || ids[ids.length - 1] < id) ids.push(id);
      continue;
    }
    const at = firstWhere(ids, (n) => n >= -id);
    if (ids[at] === -id) ids.splice(at, 1);
  }
}

const QUEUES = ["blocked", "flags"] as const;

/** Applies a queue's logged changes to moderation data in file form. */
function applyQueued(data: ModerationData, kind: (typeof QUEUES)[number], changes: ListChange<number, unknown>[]): void {
  if (kind === "blocked") data.blocked = applyListChanges(data.blocked, changes as ListChange<number, BlockedEntry>[], blockedId);
  else data.flags = applyListChanges(data.flags, changes as ListChange<number, FlagEntry>[], flagId);
}

/** `list` (in id order) with `put` stored or replaced and `gone` removed, still in id order. */
function mergeMessages(list: MessageRecord[], put: MessageRecord[], gone: number[]): MessageRecord[] {
  const at = (id: number) => lowerBoundId(list, id);
  for (const m of put) {
    const i = at(m.id);
    if (list[i]?.id === m.id) list[i] = m;
    else if (i === list.length) list.push(m);
    else list.splice(i, 0, m);
  }
  for (const id of gone) {
    const i = at(id);
    if (list[i]?.id === id) list.splice(i, 1);
  }
  return list;
}

/** Whether a logged campaigns change is malformed. */
function campaignsChangeProblem(v: unknown): boolean {
  if (!isObj(v)) return true;
  const records = (x: unknown) => x === undefined || listOf(x, (q) => isListChange(q) && isStr((q as unknown[])[0]));
  const events = v.events;
  const eventsOk = events === undefined || (Array.isArray(events) && events.length === 2 && Number.isInteger(events[0]) && listOf(events[1], isObj));
  const rest = v.rest;
  const restOk = rest === undefined || (isObj(rest) && Array.isArray(rest.categories) && Number.isInteger(rest.lastId));
  return !(restOk && records(v.items) && records(v.pushes) && eventsOk);
}

const noCampaigns = (): CampaignsData => ({ items: [], pushes: [], categories: [], lastId: 0 });

/** Applies a logged campaigns change to campaigns data in file form (changed in place and returned). */
function applyCampaigns(data: CampaignsData, change: CampaignsChange): CampaignsData {
  let out = data;
  if (change.rest) {
    const { items, pushes, events, eventCount } = data;
    out = { ...change.rest, items, pushes };
    if (events) out.events = events;
    if (eventCount !== undefined) out.eventCount = eventCount;
  }
  if (change.items) out.items = applyListChanges(out.items, change.items, (r) => r.id);
  if (change.pushes) out.pushes = applyListChanges(out.pushes, change.pushes, (r) => r.id);
  if (change.events) {
    const [count, added] = change.events;
    const events = out.events ?? [];
    const had = out.eventCount ?? events.length;
    // Those the state has already (a checkpoint written while they were logged) are not added again.
    if (count > had) events.push(...added.slice(Math.max(0, added.length - (count - had))));
    trimEvents(events);
    out.events = events;
    out.eventCount = Math.max(count, had);
  }
  return out;
}
