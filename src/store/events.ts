import type { AppState } from "./app-state.js";
import type { MessageRecord } from "./types.js";
import { originDevice, withOriginDevice } from "../http/origin.js";

/**
 * One committed change of an app's state. `trigger` is the platform's webhook trigger id (`message_sent`,
 * `group_member_joined`, ...); `data()` builds the webhook-shaped payload on first use and memoizes it, so
 * subscribers that need it share one build and the others pay nothing. `message` is the stored record a
 * message event is about, for subscribers that decide who sees what (realtime, notifications, bots).
 */
export interface DomainEvent {
  readonly app: AppState;
  readonly trigger: string;
  data(): unknown;
  readonly message?: MessageRecord;
}

export type EventSubscriber = (event: DomainEvent) => void;

/**
 * Auth tokens stopped existing (deleted, flushed, or retired by the per-user limit): `data()` is
 * `{uid, authTokens}`. The emulator's own event, not a platform trigger (no webhook can subscribe to it): the
 * realtime layer closes the sockets opened with those tokens.
 */
export const AUTH_TOKENS_REVOKED = "auth_tokens_revoked";
export interface TokensRevoked {
  uid: string;
  authTokens: string[];
}

/**
 * The one domain-event stream of the store: webhooks, realtime, the notification outbox, bot relays and
 * moderation each subscribe; none is wired into a resource handler. A subscriber that throws is reported and
 * never stops the others or the request that committed the change.
 */
/** An event waiting for its changes to be kept, with the SDK device whose call made it (see origin.ts). */
export type HeldEvent = [DomainEvent, string | undefined];

export class EventBus {
  private readonly subscribers = new Set<EventSubscriber>();
  /** With `--data`: the events waiting for the change-log write that holds their changes (see `holdUntilKept`). */
  private held: HeldEvent[] | undefined;
  private onHeld: () => void = () => {};

  constructor(private readonly onError: (err: unknown) => void = (err) => console.error("chat-emulator: event subscriber failed:", err)) {}

  subscribe(fn: EventSubscriber): () => void {
    this.subscribers.add(fn);
    return () => this.subscribers.delete(fn);
  }

  get size(): number {
    return this.subscribers.size;
  }

  /**
   * From now on an event goes out only once its changes are kept, as a database sends its notifications at commit:
   * each waits (with the device its call came from) until `release` gives it to the subscribers, after the
   * change-log write that holds its changes; a write that is refused drops them instead (persistence.ts), so
   * nothing is said about a change that was not made. `onHeld` hears of the first event waiting, so that a write
   * comes even for an event without changes. Its payload is built when it goes out (on first use, as always).
   */
  holdUntilKept(onHeld: (() => void) | undefined): void {
    if (!onHeld) {
      const held = this.take();
      this.held = undefined;
      this.release(held);
      return;
    }
    this.held = [];
    this.onHeld = onHeld;
  }

  /** The events waiting so far (for the write about to be made), no longer waiting here. */
  take(): HeldEvent[] {
    const held = this.held ?? [];
    if (held.length > 0) this.held = [];
    return held;
  }

  /** Gives events taken earlier to the subscribers, in order, each as if from the call that made it. */
  release(held: HeldEvent[]): void {
    for (const [event, device] of held) withOriginDevice(device, () => this.deliver(event));
  }

  publish(app: AppState, trigger: string, build: () => unknown, message?: MessageRecord): void {
    if (this.subscribers.size === 0) return;
    let built = false;
    let payload: unknown;
    const event: DomainEvent = {
      app,
      trigger,
      message,
      data() {
        if (!built) {
          payload = build();
          built = true;
        }
        return payload;
      },
    };
    if (!this.held) return this.deliver(event);
    this.held.push([event, originDevice()]);
    if (this.held.length === 1) this.onHeld();
  }

  private deliver(event: DomainEvent): void {
    for (const fn of this.subscribers) {
      try {
        fn(event);
      } catch (err) {
        this.onError(err);
      }
    }
  }
}
