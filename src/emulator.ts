import type { Jwt } from "./client/jwt.js";
import type { ControlPlane } from "./control/plane.js";
import type { Outbox } from "./notifications/outbox.js";
import type { CampaignScheduler } from "./resources/campaigns/scheduler.js";
import type { Realtime } from "./realtime/realtime.js";
import type { Clock } from "./store/clock.js";
import type { FileStore } from "./store/files.js";
import type { Store } from "./store/store.js";
import type { Dispatcher } from "./webhooks/dispatcher.js";

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
  /** The `--data` file's saver, when there is one: health reports its `problem`; while `refusing`, writes are refused. */
  persistence?: { readonly problem: string | undefined; readonly refusing: Error | undefined; hold(): Promise<void> | undefined };
  /** Signs the client plane's session tokens (what the WebSocket's `auth` frame presents). */
  jwt: Jwt;
  /** The WebSocket sessions and what they are sent. */
  realtime: Realtime;
  /** Runs scheduled campaigns (and sequenced campaigns' later steps) when the emulator clock reaches them. */
  campaigns: CampaignScheduler;
  /** Uploaded attachments' bytes (in memory, or next to the `--data` file). */
  files: FileStore;
}
