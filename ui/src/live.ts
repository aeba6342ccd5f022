import { control } from "./api";
import { dataChanged, Store } from "./state";

/** One request of the journal, as `/_emulator/requests` shows it. */
export interface JournalEntry {
  id: number;
  time: string;
  timeMs: number;
  appId: string | null;
  plane: "rest" | "calls" | "client" | "mgmt" | null;
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  requestHeaders: Record<string, string>;
  requestBody: unknown;
  status: number | null;
  responseBody: unknown;
  durationMs: number;
  rules: string[];
  /** What the platform would have ignored (request advice). */
  advice: { code: string; in: string; name: string; suggestion?: string; message: string }[];
}

export interface Delivery {
  id: number;
  appId: string;
  /** A webhook delivery (`webhook` set) or a bot relay (`bot` set). */
  kind: "webhook" | "bot";
  webhook?: string;
  bot?: string;
  event: string;
  payload: unknown;
  status: "pending" | "retrying" | "delivered" | "failed";
  attempts: { at: number; status?: number; error?: string; durationMs: number }[];
  createdAt: number;
}

/** One computed notification, as `/_emulator/notifications` shows it. */
export interface OutboxNotification {
  id: number;
  appId: string;
  uid: string;
  channel: "push" | "email" | "sms";
  provider: string;
  providerId?: string;
  tokenType?: string;
  pushToken?: string;
  event: string;
  trigger: string;
  conversationId: string;
  messageId: number;
  title?: string;
  body?: string;
  payload?: unknown;
  reason?: string;
  status: "suppressed" | "scheduled" | "sent" | "pending" | "retrying" | "delivered" | "failed";
  attempts: { at: number; status?: number; error?: string; durationMs: number }[];
  createdAt: number;
  dueAt?: number;
}

export type StreamStatus = "connecting" | "live" | "reconnecting" | "off";

/** What the page keeps of the live streams (newest first). */
const KEEP = 2000;

export const requests = new Store<JournalEntry[]>([]);
export const requestsStatus = new Store<StreamStatus>("connecting");
export const deliveries = new Store<Delivery[]>([]);
export const deliveriesStatus = new Store<StreamStatus>("connecting");
export const notifications = new Store<OutboxNotification[]>([]);
export const notificationsStatus = new Store<StreamStatus>("connecting");

function watch<T>(url: string, event: string, status: Store<StreamStatus>, onItem: (item: T) => void): void {
  const source = new EventSource(url);
  source.addEventListener("open", () => status.set("live"));
  source.addEventListener("error", () => status.set(source.readyState === EventSource.CLOSED ? "off" : "reconnecting"));
  source.addEventListener(event, (e) => onItem(JSON.parse((e as MessageEvent<string>).data) as T));
}

let batch: JournalEntry[] = [];
let flush: ReturnType<typeof setTimeout> | undefined;

/** Starts both streams once; the journal only when it is on (`--journal-size 0` turns it off). */
export async function startStreams(): Promise<void> {
  const { capacity } = await control.get<{ capacity: number }>("/requests?limit=1");
  if (capacity === 0) requestsStatus.set("off");
  else
    watch<JournalEntry>(`/_emulator/requests/stream?limit=500`, "request", requestsStatus, (entry) => {
      // A reconnect resumes after the last id, so every entry arrives once; render them in batches.
      batch.push(entry);
      if ((entry.method !== "GET" && entry.status !== null && entry.status < 400) || entry.rules.length > 0) dataChanged();
      flush ??= setTimeout(() => {
        flush = undefined;
        const next = batch.reverse().concat(requests.get());
        batch = [];
        requests.set(next.length > KEEP ? next.slice(0, KEEP) : next);
      }, 50);
    });
  watch<Delivery>(`/_emulator/webhooks/deliveries/stream`, "delivery", deliveriesStatus, (d) => upsert(deliveries, d));
  watch<OutboxNotification>(`/_emulator/notifications/stream`, "notification", notificationsStatus, (n) => upsert(notifications, n));
}

/** Adds or replaces a record that changes after it is added (a delivery, a notification), newest first. */
function upsert<T extends { id: number }>(store: Store<T[]>, item: T): void {
  const rest = store.get().filter((x) => x.id !== item.id);
  store.set([item, ...rest].sort((a, b) => b.id - a.id).slice(0, KEEP));
}

export function clearRequests(): void {
  requests.set([]);
}

export function clearDeliveries(): void {
  deliveries.set([]);
}

export function clearNotifications(): void {
  notifications.set([]);
}
