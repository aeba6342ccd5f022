import type { DomainEvent } from "../store/events.js";
import type { AppState } from "../store/app-state.js";
import type { JsonObject, MessageRecord } from "../store/types.js";
import { linksIn } from "./effects.js";
import { effectiveSettings } from "./settings.js";

/**
 * Extensions that would call an outside service (fetch a page, ask a shortener, a classifier, a scanner, a
 * transcriber, a support desk) never do in the emulator: for each message sent while one is enabled, this
 * subscriber of the store's event stream records the call the platform would have made, for tests and the
 * inspector to read (`GET /_emulator/extensions/calls`). Kept in memory, newest last, bounded.
 */

export interface ExtensionCall {
  seq: number;
  at: number;
  appId: string;
  extension: string;
  messageId: string;
  /** Who the platform would have called. */
  service: string;
  /** What it would have asked, in words. */
  action: string;
  /** The text, URL or file it would have sent. */
  input: string;
}

export interface ExtensionCallFilter {
  appId?: string;
  extension?: string;
  messageId?: string;
}

type Outside = { service: string; calls(m: MessageRecord, settings: JsonObject): { action: string; input: string }[] };

const media = (m: MessageRecord, types: readonly string[]) => {
  if (!types.includes(m.type)) return [];
  const attachments = Array.isArray(m.data.attachments) ? (m.data.attachments as JsonObject[]) : [];
  const urls = attachments.map((a) => a.url).filter((u): u is string => typeof u === "string");
  return urls.length > 0 ? urls : typeof m.data.url === "string" ? [m.data.url] : [];
};
const text = (m: MessageRecord) => (typeof m.data.text === "string" && m.data.text.length > 0 ? [m.data.text] : []);
const links = (m: MessageRecord) => (typeof m.data.text === "string" ? linksIn(m.data.text) : []);
const each = (action: string, inputs: string[]) => inputs.map((input) => ({ action, input }));

/** The outside services of the extensions that act on sent messages, by extension id. */
const OUTSIDE: Record<string, Outside> = {
  "link-preview": { service: "the linked web page", calls: (m) => each("fetch the page for its title, description, image and favicon", links(m)) },
  "rich-media": { service: "Iframely", calls: (m) => each("get a ready-to-render preview of the link", links(m)) },
  "url-shortener-bitly": { service: "Bitly", calls: (m) => each("shorten the link", links(m)) },
  "url-shortener-tinyurl": { service: "TinyURL", calls: (m) => each("shorten the link", links(m)) },
  "sentiment-analysis": { service: "a sentiment classifier", calls: (m) => each("classify the sentiment of the text", text(m)) },
  "smart-reply": { service: "a reply suggester", calls: (m) => each("suggest positive, neutral and negative replies", text(m)) },
  "image-moderation": { service: "an image classifier", calls: (m) => each("classify the image for unsafe content", media(m, ["image"])) },
  "thumbnail-generation": { service: "a thumbnail generator", calls: (m) => each("generate thumbnails", media(m, ["image", "video"])) },
  "virus-malware-scanner": { service: "Scanii", calls: (m) => each("scan the file for viruses and malware", media(m, ["image", "video", "audio", "file"])) },
  "voice-transcription": { service: "Rev.ai", calls: (m) => each("transcribe the audio", media(m, ["audio"])) },
  intercom: { service: "Intercom", calls: (m, s) => (m.receiver === s.customerSupportUid ? each("forward the message to the support inbox", text(m)) : []) },
  chatwoot: { service: "Chatwoot", calls: (m, s) => (m.receiver === s.customerSupportUid ? each("forward the message to the support inbox", text(m)) : []) },
};
const OUTSIDE_IDS = Object.keys(OUTSIDE);

export const CALLS_LIMIT = 1000;

export class ExtensionCalls {
  private calls: ExtensionCall[] = [];
  private seq = 0;

  /** The subscriber: one lookup per outside extension when a message is sent, nothing else. */
  observe(e: DomainEvent): void {
    if (e.trigger !== "message_sent" || !e.message) return;
    const states = e.app.management.extensions;
    for (const id of OUTSIDE_IDS) if (states[id]?.enabled === true) this.record(e.app, id, e.message);
  }

  private record(app: AppState, id: string, m: MessageRecord): void {
    const outside = OUTSIDE[id];
    for (const { action, input } of outside.calls(m, effectiveSettings(app, id))) {
      this.calls.push({ seq: ++this.seq, at: m.sentAt, appId: app.meta.appId, extension: id, messageId: String(m.id), service: outside.service, action, input });
      if (this.calls.length > CALLS_LIMIT) this.calls.splice(0, this.calls.length - CALLS_LIMIT);
    }
  }

  list(filter: ExtensionCallFilter = {}): ExtensionCall[] {
    return this.calls.filter(
      (c) =>
        (!filter.appId || c.appId === filter.appId) &&
        (!filter.extension || c.extension === filter.extension) &&
        (!filter.messageId || c.messageId === filter.messageId),
    );
  }

  clear(): void {
    this.calls = [];
  }
}
