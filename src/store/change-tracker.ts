import type { AppState } from "./app-state.js";
import { lowerBoundId } from "./messages.js";
import type { Store } from "./store.js";
import type { AppData, ConversationState, MessageRecord, StateData } from "./types.js";

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
  /** Conversation states created or changed (after-images), and those removed, as [uid, conversationId]. */
  | ["conversations", string, ConversationState[], [string, string][]];

type Json = unknown;

/**
 * How deep each part is compared and copied. A store record's own fields change in place, but its nested values
 * are replaced, never mutated (see types.ts): a list of records is compared down to the records' fields (2), and
 * the app's meta down to its fields (1); groups and calls hold records of their own (members, participants: 4).
 * Deeper values are compared by reference. The parts whose classes keep nested state of their own (moderation,
 * management, notifications) are compared to the end.
 */
const DEPTHS: Record<string, number> = { app: 1, groups: 4, calls: 4, moderation: Infinity, management: Infinity, notifications: Infinity };
const depthOf = (part: string) => DEPTHS[part] ?? 2;
/** The parts whose classes note what changes (there can be millions of messages, and a state per user and conversation). */
const NOTED = new Set(["messages", "conversations"]);

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
  /** Each part as last logged (a copy), messages aside. */
  parts: Map<string, Json>;
}

/**
 * Finds what changed in the store since it last looked: each app's parts are compared with copies of what was
 * last logged (a part is small next to the messages), while the messages, which can number millions, are noted
 * by `Messages` as they change. `take()` returns the changes and remembers the state as logged.
 */
export class ChangeTracker {
  private apps = new Map<string, Tracked>();
  private order: string[] = [];
  private births: AppData[] = [];

  constructor(private readonly store: Store) {
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
    for (const [key, value] of Object.entries(data)) if (!NOTED.has(key)) parts.set(key, clone(value, depthOf(key)));
    state.messages.noted = new Map();
    state.messages.reloaded = false;
    state.conversations.noted = { put: new Set(), gone: new Set() };
    state.conversations.reloaded = false;
    this.apps.set(appId, { state, parts });
    return data;
  }

  private diff(appId: string, tracked: Tracked, out: Change[]): void {
    const data = tracked.state.toData() as unknown as Record<string, Json>;
    for (const [key, value] of Object.entries(data)) {
      if (NOTED.has(key)) continue;
      const depth = depthOf(key);
      if (equal(value, tracked.parts.get(key), depth)) continue;
      tracked.parts.set(key, clone(value, depth));
      out.push(["set", appId, key, value]);
    }
    this.conversations(appId, tracked.state, out);
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

  /** The conversation states noted since the last call. */
  private conversations(appId: string, state: AppState, out: Change[]): void {
    const conversations = state.conversations;
    const { put, gone } = conversations.noted!;
    if (conversations.reloaded) {
      conversations.reloaded = false;
      put.clear();
      gone.clear();
      out.push(["set", appId, "conversations", conversations.toData()]);
      return;
    }
    if (put.size === 0 && gone.size === 0) return;
    out.push(["conversations", appId, [...put], [...gone].map((key) => key.split("\u0000") as [string, string])]);
    put.clear();
    gone.clear();
  }
}

/** Applies the logged batches of changes, in order, to saved state data (parsed JSON, not yet checked). */
export function applyChanges(state: StateData, batches: Change[][]): void {
  const appOf = (appId: string) => state.apps.find((a) => a.app.appId === appId);
  // Conversation states by user and conversation while replaying, in the live store's order (see Conversations).
  const grouped = new Map<AppData, Map<string, Map<string, ConversationState>>>();
  for (const changes of batches)
    for (const change of changes) {
      switch (change[0]) {
        case "app": {
          const at = state.apps.findIndex((a) => a.app.appId === change[1].app.appId);
          if (at === -1) state.apps.push(change[1]);
          else state.apps[at] = change[1];
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
          const app = appOf(change[1]);
          if (!app) break;
          (app as unknown as Record<string, unknown>)[change[2]] = change[3];
          if (change[2] === "conversations") grouped.delete(app);
          break;
        }
        case "messages": {
          const app = appOf(change[1]);
          if (app) app.messages = mergeMessages(app.messages, change[2], change[3]);
          break;
        }
        case "conversations": {
          const app = appOf(change[1]);
          if (!app) break;
          let byUser = grouped.get(app);
          if (!byUser) grouped.set(app, (byUser = groupByUser(app.conversations)));
          for (const [uid, conversationId] of change[3]) {
            const mine = byUser.get(uid);
            mine?.delete(conversationId);
            if (mine?.size === 0) byUser.delete(uid);
          }
          for (const s of change[2]) {
            let mine = byUser.get(s.uid);
            if (!mine) byUser.set(s.uid, (mine = new Map()));
            mine.set(s.conversationId, s);
          }
          break;
        }
      }
    }
  for (const [app, byUser] of grouped) {
    const list: ConversationState[] = [];
    for (const mine of byUser.values()) for (const s of mine.values()) list.push(s);
    app.conversations = list;
  }
}

function groupByUser(list: ConversationState[]): Map<string, Map<string, ConversationState>> {
  const byUser = new Map<string, Map<string, ConversationState>>();
  for (const s of list) {
    let mine = byUser.get(s.uid);
    if (!mine) byUser.set(s.uid, (mine = new Map()));
    mine.set(s.conversationId, s);
  }
  return byUser;
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
