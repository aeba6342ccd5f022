import type { Context } from "hono";
import type { ControlPlane } from "../control/plane.js";
import type { AppState } from "../store/app-state.js";
import type { Clock } from "../store/clock.js";
import type { Store } from "../store/store.js";
import type { ApiKeyRecord, AuthTokenRecord, UserRecord } from "../store/types.js";
import type { Dispatcher } from "../webhooks/dispatcher.js";
import type { Outbox } from "../notifications/outbox.js";
import type { Jwt } from "../client/jwt.js";
import type { Realtime } from "../realtime/realtime.js";
import type { FileStore } from "../store/files.js";

/** What every handler can reach: the emulator's parts, shared by all requests. */
export interface Emulator {
  store: Store;
  clock: Clock;
  version: string;
  startedAtMs: number;
  management: { key: string; secret: string };
  /** Delivers domain events to registered webhooks and keeps the delivery log. */
  webhooks: Dispatcher;
  /** Computes and records the notifications domain events cause (and calls custom providers). */
  notifications: Outbox;
  /** Rules, journal, rate limits, snapshots and the control token. */
  control: ControlPlane;
  /** The `--data` file's saver, when there is one: health reports its `problem`. */
  persistence?: { readonly problem: string | undefined; hold(): Promise<void> | undefined };
  /** Signs the client plane's session tokens (what the WebSocket's `auth` frame presents). */
  jwt: Jwt;
  /** The WebSocket sessions and what they are sent. */
  realtime: Realtime;
  /** Uploaded attachments' bytes (in memory, or next to the `--data` file). */
  files: FileStore;
}

export type Env = {
  Variables: {
    emulator: Emulator;
    /** The app addressed by the request (REST and calls planes). */
    app: AppState;
    apiKey: ApiKeyRecord;
    /** Client plane: the `authToken` owner, who acts as `onBehalfOf` does on the REST plane, and their token. */
    actor: UserRecord;
    authToken: AuthTokenRecord;
    /** Ids of the rules that applied to the request (set only when some did). */
    appliedRules: string[];
  };
};

export type Ctx = Context<Env>;

/**
 * A request header. Served by Node, it is read straight from the raw request: building the Fetch `Headers` object
 * costs a quarter of a small GET's time. In-process (`app.request()`) it comes from the Fetch request.
 */
export function header(c: Ctx, name: string): string | undefined {
  const incoming = (c.env as { incoming?: { headers: Record<string, string | string[] | undefined> } } | undefined)?.incoming;
  if (!incoming) return c.req.header(name);
  const value = incoming.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(", ") : value;
}
