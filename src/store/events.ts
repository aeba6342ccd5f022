import type { AppState } from "./app-state.js";
import type { MessageRecord } from "./types.js";

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
export class EventBus {
  private readonly subscribers = new Set<EventSubscriber>();

  constructor(private readonly onError: (err: unknown) => void = (err) => console.error("chat-emulator: event subscriber failed:", err)) {}

  subscribe(fn: EventSubscriber): () => void {
    this.subscribers.add(fn);
    return () => this.subscribers.delete(fn);
  }

  get size(): number {
    return this.subscribers.size;
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
    for (const fn of this.subscribers) {
      try {
        fn(event);
      } catch (err) {
        this.onError(err);
      }
    }
  }
}
