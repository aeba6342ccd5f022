import { apiError } from "../http/errors.js";
import type { AppState } from "../store/app-state.js";
import type { JsonObject } from "../store/types.js";
import { DEFAULT_MASKS } from "./catalogue.js";
import { maskProblem, UserPattern } from "../util/safe-regex.js";
import { WordList } from "../util/word-list.js";
import { effectiveSettings } from "./settings.js";

/**
 * What enabled extensions do to a message being sent or edited, at the one seam of the send and edit paths
 * (before the message is stored, and before moderation decides): each adds its result under
 * `metadata["@injected"].extensions[<id>]` in the shape the platform's docs show, and those with "drop message"
 * set refuse the message with `ERR_BLOCKED_BY_EXTENSION`. The text itself is left as sent, as on the platform.
 * Extensions that would call an outside service are recorded by calls.ts instead.
 */

interface TextEffect {
  id: string;
  /** The extension's result for this text, and whether the message must be dropped. */
  run(settings: JsonObject, text: string, key: object): { result: JsonObject; drop?: string };
}

const stars = (s: string) => "*".repeat([...s].length);

/** Compiled patterns per extension state (a state is replaced, never mutated, when its settings change). */
const compiled = new WeakMap<object, unknown>();
function cached<T>(key: object, build: () => T): T {
  if (!compiled.has(key)) compiled.set(key, build());
  return compiled.get(key) as T;
}

/**
 * The enabled masks, on the linear-time engine (the built-in email mask alone would backtrack for seconds on
 * JavaScript's RegExp): the built-in ones switched on by id, and every custom one.
 */
function maskPattern(settings: JsonObject): UserPattern | undefined {
  const flags = new Map(((settings.defaultRegexData as JsonObject[] | undefined) ?? []).map((m) => [String(m.id), m.enableFlag !== false]));
  const sources = DEFAULT_MASKS.filter((m) => flags.get(String(m.id)) ?? m.enableFlag).map((m) => m.regex as string);
  for (const m of (settings.customregexData as JsonObject[] | undefined) ?? [])
    if (m.enableFlag !== false && typeof m.regex === "string" && maskProblem(m.regex) === undefined) sources.push(m.regex);
  return UserPattern.of(sources);
}

/**
 * The bad words as whole words (case-insensitive), found in one pass (util/word-list.ts): emoji and other symbols
 * match wherever they appear.
 */
function profanityList(settings: JsonObject): WordList | undefined {
  const words = Array.isArray(settings.badwords) ? settings.badwords.filter((w): w is string => typeof w === "string") : [];
  return WordList.of(words, { edges: "word-ends" });
}

// `<\s*(?:\/\s*)?` rather than `<\s*\/?\s*`: two optional runs of space side by side retry every split of a run,
// and "<" then 10,000 spaces took a third of a second.
const XSS = /<\s*(?:\/\s*)?(script|iframe|object|embed|svg|img|body|style|link|meta|base|form|frame)\b|\bon[a-z]+\s*=|javascript\s*:|data\s*:\s*text\/html/i;
const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;" };

const URL_IN_TEXT = /\bhttps?:\/\/[^\s<>"']+[^\s<>"'.,;:!?)\]]/giu;
/** How many links of one message get a preview. */
const MAX_LINKS = 5;

export function linksIn(text: string): string[] {
  return [...new Set(text.match(URL_IN_TEXT) ?? [])].slice(0, MAX_LINKS);
}

const TEXT_EFFECTS: readonly TextEffect[] = [
  {
    id: "data-masking",
    run(settings, text, key) {
      const pattern = cached(key, () => maskPattern(settings));
      const masked = pattern ? pattern.mask(text, stars) : text;
      const sensitive = masked !== text;
      return {
        result: { data: { sensitive_data: sensitive ? "yes" : "no", message_masked: masked } },
        drop: sensitive && settings.dropMessage === true ? "it contains sensitive information" : undefined,
      };
    },
  },
  {
    id: "profanity-filter",
    run(settings, text, key) {
      const list = cached(key, () => profanityList(settings));
      const clean = list ? list.mask(text, stars) : text;
      const profane = clean !== text;
      return {
        result: { profanity: profane ? "yes" : "no", message_clean: clean },
        drop: profane && settings.dropMessage === true ? "it contains profanity" : undefined,
      };
    },
  },
  {
    id: "xss-filter",
    run(settings, text) {
      const hasXSS = XSS.test(text);
      return {
        result: { hasXSS: hasXSS ? "yes" : "no", sanitized_message: text.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch]) },
        drop: hasXSS && settings.dropMessage === true ? "it contains a script" : undefined,
      };
    },
  },
  {
    // The emulator fetches nothing: each link is listed with its url only (the docs allow missing details), and
    // calls.ts records the fetch the platform would have made.
    id: "link-preview",
    run(_settings, text) {
      return { result: { links: linksIn(text).map((url) => ({ url })) } };
    },
  },
];

export const TEXT_EFFECT_IDS: readonly string[] = TEXT_EFFECTS.map((e) => e.id);

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The message data with the results of the app's enabled text extensions injected (an edit first drops what
 * they injected before, so a disabled extension leaves no stale result). Returns `data` itself when nothing
 * applies: the cost for an app without these extensions is one lookup per effect.
 */
export function applyExtensions(app: AppState, data: JsonObject, edit = false): JsonObject {
  const states = app.management.extensions;
  if (!edit && !TEXT_EFFECTS.some((e) => states[e.id]?.enabled === true)) return data;
  const active = TEXT_EFFECTS.filter((e) => states[e.id]?.enabled === true);
  const metadata = isObject(data.metadata) ? data.metadata : {};
  const injected = isObject(metadata["@injected"]) ? metadata["@injected"] : {};
  const results: JsonObject = { ...(isObject(injected.extensions) ? injected.extensions : {}) };
  if (edit) for (const id of TEXT_EFFECT_IDS) delete results[id];
  const text = data.text;
  if (typeof text === "string" && text.length > 0)
    for (const effect of active) {
      const { result, drop } = effect.run(effectiveSettings(app, effect.id), text, states[effect.id]);
      if (drop) throw apiError("ERR_BLOCKED_BY_EXTENSION", { id: effect.id, reason: drop });
      results[effect.id] = result;
    }
  if (Object.keys(results).length === 0 && !isObject(injected.extensions)) return data;
  const metadataNext = withResults(metadata, injected, results);
  if (metadataNext) return { ...data, metadata: metadataNext };
  const { metadata: _empty, ...rest } = data;
  return rest;
}

/** The metadata with `results` as its injected extensions; containers left empty are removed (undefined: none left). */
function withResults(metadata: JsonObject, injected: JsonObject, results: JsonObject): JsonObject | undefined {
  const { extensions: _old, ...otherInjected } = injected;
  const nextInjected = Object.keys(results).length > 0 ? { ...otherInjected, extensions: results } : otherInjected;
  const { "@injected": _gone, ...next } = metadata;
  if (Object.keys(nextInjected).length > 0) next["@injected"] = nextInjected;
  return Object.keys(next).length > 0 ? next : undefined;
}
