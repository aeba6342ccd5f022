import type { AppState } from "./app-state.js";
import { lowerBoundId } from "./messages.js";
import type { Store } from "./store.js";
import type { AppData, MessageRecord, StateData } from "./types.js";

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
  | ["messages", string, MessageRecord[], number[]];

type Json = unknown;

/** A copy of plain data (what toData() returns: JSON values only). */
function clone(v: Json): Json {
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) return v.map(clone);
  const out: Record<string, Json> = {};
  for (const k in v) {
    const x = (v as Record<string, Json>)[k];
    if (x !== undefined) out[k] = clone(x);
  }
  return out;
}

/** Whether two plain values serialize alike (`undefined` properties count as absent, as in JSON). */
function equal(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!equal(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as Record<string, Json>;
  const y = b as Record<string, Json>;
  let n = 0;
  for (const k in x) {
    if (x[k] === undefined) continue;
    if (!equal(x[k], y[k])) return false;
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
    if (!equal(order, this.order)) out.push(["order", order]);
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
    for (const [key, value] of Object.entries(data)) if (key !== "messages") parts.set(key, clone(value));
    state.messages.noted = new Map();
    state.messages.reloaded = false;
    this.apps.set(appId, { state, parts });
    return data;
  }

  private diff(appId: string, tracked: Tracked, out: Change[]): void {
    const data = tracked.state.toData() as unknown as Record<string, Json>;
    for (const [key, value] of Object.entries(data)) {
      if (key === "messages") continue;
      if (equal(value, tracked.parts.get(key))) continue;
      tracked.parts.set(key, clone(value));
      out.push(["set", appId, key, value]);
    }
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
}

/** Applies logged changes, in order, to saved state data (parsed JSON, not yet checked). */
export function applyChanges(state: StateData, changes: Change[]): void {
  const byId = () => new Map(state.apps.map((a) => [a.app.appId, a]));
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
        const apps = byId();
        state.apps = change[1].map((id) => apps.get(id)).filter((a): a is AppData => a !== undefined);
        break;
      }
      case "births":
        if (change[1]) state.births = change[1];
        else delete state.births;
        break;
      case "set": {
        const app = state.apps.find((a) => a.app.appId === change[1]);
        if (app) (app as unknown as Record<string, unknown>)[change[2]] = change[3];
        break;
      }
      case "messages": {
        const app = state.apps.find((a) => a.app.appId === change[1]);
        if (app) app.messages = mergeMessages(app.messages, change[2], change[3]);
        break;
      }
    }
  }
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
