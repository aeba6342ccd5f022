import { addTo, removeFrom } from "./multimap.js";
import { userConversationId } from "./conversation-ids.js";
import type { GroupedNotes } from "./noted.js";
import type { ConversationState, MessageRecord } from "./types.js";

/**
 * Per-user conversation state (read and delivered pointers, tags, resets, group departures) and, per user, the
 * one-on-one conversations they have exchanged messages in. A user's group conversations are their groups.
 */
export class Conversations {
  private readonly states = new Map<string, Map<string, ConversationState>>();
  private readonly direct = new Map<string, Set<string>>();
  /** Per user, the conversations they pinned (their states with a `pinnedAt`). */
  private readonly pins = new Map<string, Set<string>>();
  /** What changed, from when the change log tracks it: the states handed out to be changed (`ensure`, `touch`) and removed. */
  noted: GroupedNotes<ConversationState> | undefined;

  load(states: ConversationState[], messages: readonly MessageRecord[]): void {
    this.noted?.clear();
    if (this.noted) this.noted.reloaded = true;
    this.states.clear();
    this.direct.clear();
    this.pins.clear();
    for (const s of states) {
      this.put({ ...s, tags: s.tags ? [...s.tags] : undefined });
      if (s.pinnedAt !== undefined) addTo(this.pins, s.uid, s.conversationId);
      if (s.keptAt !== undefined && !s.conversationId.startsWith("group_")) addTo(this.direct, s.uid, s.conversationId);
    }
    for (const m of messages) if (m.receiverType === "user") this.noteDirect(m);
  }

  toData(): ConversationState[] {
    const out: ConversationState[] = [];
    for (const mine of this.states.values()) for (const s of mine.values()) out.push(s);
    return out;
  }

  state(uid: string, conversationId: string): ConversationState | undefined {
    return this.states.get(uid)?.get(conversationId);
  }

  /** The user's state for a conversation, created empty on first use. */
  ensure(uid: string, conversationId: string): ConversationState {
    const state = this.state(uid, conversationId) ?? this.put({ uid, conversationId });
    this.touch(state);
    return state;
  }

  /** Notes a state changed in place, for the change log (`ensure` does for the states it hands out). */
  touch(state: ConversationState): void {
    this.noted?.put.add(state);
  }

  /** A one-on-one message makes the conversation exist for both users. */
  noteDirect(m: MessageRecord): void {
    addTo(this.direct, m.sender, m.conversationId);
    addTo(this.direct, m.receiver, m.conversationId);
  }

  /**
   * Makes the one-on-one conversation of two users exist before any message (friends added with
   * `addToConversations`): listed for both, empty, as of `at`, in the place of the message `order` (kept in their
   * states, so it survives a reload). A conversation one of them already has is left as it is.
   */
  open(uids: [string, string], order: number, at: number): void {
    const conversationId = userConversationId(uids[0], uids[1]);
    for (const uid of uids) {
      if (this.directOf(uid).has(conversationId)) continue;
      addTo(this.direct, uid, conversationId);
      Object.assign(this.ensure(uid, conversationId), { keptId: order, keptAt: at });
    }
  }

  /** The one-on-one conversations of `uid`. */
  directOf(uid: string): ReadonlySet<string> {
    return this.direct.get(uid) ?? new Set();
  }

  /** A conversation whose messages are all gone permanently stops existing for both users. */
  dropDirect(conversationId: string, uids: [string, string]): void {
    for (const uid of uids) removeFrom(this.direct, uid, conversationId);
  }

  /** How many conversations the user pinned. */
  pinnedCount(uid: string): number {
    return this.pinnedOf(uid).size;
  }

  /** The conversations the user pinned. */
  pinnedOf(uid: string): ReadonlySet<string> {
    return this.pins.get(uid) ?? new Set();
  }

  /** Pins a conversation for the user as of `at`, or (`at` undefined) unpins it. */
  setPinned(uid: string, conversationId: string, at: number | undefined): void {
    if (at === undefined) {
      const state = this.state(uid, conversationId);
      if (state) {
        delete state.pinnedAt;
        this.touch(state);
      }
      removeFrom(this.pins, uid, conversationId);
      return;
    }
    this.ensure(uid, conversationId).pinnedAt = at;
    addTo(this.pins, uid, conversationId);
  }

  forgetUser(uid: string): void {
    if (this.noted) for (const state of this.states.get(uid)?.values() ?? []) this.noted.remove(state, uid, state.conversationId);
    this.states.delete(uid);
    this.pins.delete(uid);
  }

  private put(s: ConversationState): ConversationState {
    if (s.tags === undefined) delete s.tags;
    let mine = this.states.get(s.uid);
    if (!mine) this.states.set(s.uid, (mine = new Map()));
    mine.set(s.conversationId, s);
    return s;
  }
}
