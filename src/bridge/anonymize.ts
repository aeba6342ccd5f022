import { createHmac } from "node:crypto";
import { FIRST_NAMES, LAST_NAMES } from "../demo/words.js";

/**
 * `pull --anonymize`: deterministic stand-ins for what identifies people (names, avatars, metadata, message texts),
 * keyed by an HMAC of the value with the salt. The same value gives the same stand-in in every pull with the same
 * salt, so a conversation reads the same way twice and names still match across users, groups and messages; the
 * original cannot be read back from it. Ids are kept.
 */

/** The words texts are made of: the demo's vocabulary, so a stand-in reads like chat, not like hex. */
const WORDS = ["ok", "sure", "thanks", "later", "meeting", "lunch", "today", "tomorrow", "great", "idea", "plan", "check",
  "this", "that", "the", "a", "we", "you", "can", "will", "should", "maybe", "soon", "file", "link", "call", "update",
  "review", "done", "next", "week", "team", "please", "see", "send", "good", "morning", "news", "question", "answer"];

export class Anonymizer {
  constructor(private readonly salt: string) {}

  private digest(kind: string, value: string): Buffer {
    return createHmac("sha256", this.salt).update(kind).update("\u0000").update(value).digest();
  }

  /** A person's or group's name: "Olivia Tanaka" style, the same for the same name. */
  name(value: string): string {
    const d = this.digest("name", value);
    return `${FIRST_NAMES[d.readUInt16BE(0) % FIRST_NAMES.length]} ${LAST_NAMES[d.readUInt16BE(2) % LAST_NAMES.length]} ${d.toString("hex").slice(0, 4)}`;
  }

  /** A text of about the same number of words. */
  text(value: string): string {
    const d = this.digest("text", value);
    const count = Math.max(1, Math.min(40, value.split(/\s+/).filter(Boolean).length));
    const words: string[] = [];
    for (let i = 0; i < count; i++) words.push(WORDS[(d[i % d.length] + 7 * i) % WORDS.length]);
    return words.join(" ");
  }

  /** An avatar, icon or file URL: a stand-in on a reserved domain, the same for the same address. */
  url(value: string, kind: "avatars" | "files" = "avatars"): string {
    return `https://${kind}.chat-emulator.invalid/${this.digest("url", value).toString("hex").slice(0, 16)}${kind === "avatars" ? ".png" : ""}`;
  }

  /** Metadata and custom data: keys and JSON types kept, every string replaced, numbers and booleans kept. */
  json(value: unknown): unknown {
    if (typeof value === "string") return `anon-${this.digest("json", value).toString("hex").slice(0, 12)}`;
    if (Array.isArray(value)) return value.map((v) => this.json(v));
    if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.json(v)]));
    return value;
  }

  /**
   * A record of the app (user, group, message data, an action's entities): the fields that identify people are
   * replaced, deep inside too (an action message carries snapshots of its users and groups), the rest is kept.
   */
  record<T>(value: T): T {
    if (Array.isArray(value)) return value.map((v) => this.record(v)) as T;
    if (typeof value !== "object" || value === null) return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (typeof v === "string" && NAME_KEYS.has(k)) out[k] = this.name(v);
      else if (typeof v === "string" && TEXT_KEYS.has(k)) out[k] = this.text(v);
      else if (typeof v === "string" && URL_KEYS.has(k)) out[k] = this.url(v, k === "avatar" || k === "icon" ? "avatars" : "files");
      else if (JSON_KEYS.has(k)) out[k] = this.json(v);
      else out[k] = this.record(v);
    }
    return out as T;
  }
}

const NAME_KEYS = new Set(["name"]);
const TEXT_KEYS = new Set(["text", "statusMessage", "description", "message"]);
const URL_KEYS = new Set(["avatar", "icon", "link", "url", "thumbnail"]);
const JSON_KEYS = new Set(["metadata", "customData"]);
