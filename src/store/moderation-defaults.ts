import type { ConditionRecord, KeywordListRecord, ModerationData, RuleRecord } from "./moderation.js";

/**
 * What a new app's moderation starts with: the platform's three flag reasons, its built-in rules (all disabled,
 * so messages flow unmoderated until a test turns one on) and its "Profane Words" list.
 */

const REASONS: [string, string, string][] = [
  ["spam", "Spam / Unwanted Content", "Messages that are unsolicited, repetitive or promotional."],
  ["sexual", "Sexual Content", "Messages with sexual or explicit content."],
  ["harassment", "Harassment / Bullying", "Messages that harass, bully or threaten someone."],
];

const PROFANITY = ["fuck", "fucking", "shit", "bitch", "bastard", "asshole", "dick", "cunt", "damn", "crap", "motherfucker", "bullshit"];

function condition(id: number, c: Omit<ConditionRecord, "id" | "entity">): ConditionRecord {
  return { id, entity: "message", ...c };
}

const word = (operand: ConditionRecord["operand"], lists: string[]): Omit<ConditionRecord, "id" | "entity"> => ({
  operand,
  category: "word",
  operator: "contains",
  isKeywordsReferencePresent: true,
  isMediaPresent: false,
  value: lists,
});

const pattern = (value: string, message: string): Omit<ConditionRecord, "id" | "entity"> => ({
  operand: "text",
  category: "pattern",
  operator: "contains",
  isKeywordsReferencePresent: false,
  isMediaPresent: false,
  value: [value],
  message: [message],
});

/**
 * The explanation of a media condition's threshold values (`violence_greaterThan_30` on an image: "Image contains
 * violence with confidence greater than 30"), one per value, as the rule examples show them.
 */
export function mediaMessages(operand: string, values: readonly string[]): string[] {
  const what = operand.charAt(0).toUpperCase() + operand.slice(1);
  return values.map((v) => {
    const m = /^(.*)_(greaterThan|lessThan)_(\d+(?:\.\d+)?)$/.exec(v);
    if (!m) return `${what} contains ${v}`;
    return `${what} contains ${m[1]} with confidence ${m[2] === "greaterThan" ? "greater" : "less"} than ${m[3]}`;
  });
}

const ai = (operand: "image" | "video"): Omit<ConditionRecord, "id" | "entity"> => ({
  operand,
  category: "word",
  operator: "contains",
  isKeywordsReferencePresent: false,
  isMediaPresent: true,
  value: ["Any unsafe content_greaterThan_70"],
  message: mediaMessages(operand, ["Any unsafe content_greaterThan_70"]),
});

const RULES: [string, string, string, ConditionRecord[]][] = [
  ["text-profanity-filter", "Profanity Filter", "Blocks text messages with words of the profanity list.", [condition(1, word("text", ["profanity-list"]))]],
  ["custom-profanity-filter", "Custom Message Profanity Filter", "Blocks custom messages with words of the profanity list.", [condition(1, word("custom", ["profanity-list"]))]],
  ["contact_details_filter", "Contact Details Filter", "Blocks messages that share a phone number.", [condition(1, pattern("\\+?\\d[\\d -]{8,}\\d", "Text contains a phone number"))]],
  ["email_filter", "Email Filter", "Blocks messages that share an email address.", [condition(1, pattern("[\\w.+-]+@[\\w-]+\\.[\\w.-]+", "Text contains an email address"))]],
  ["image-moderation", "AI Image Moderation", "Blocks unsafe images (an AI engine the emulator does not run).", [condition(1, ai("image"))]],
  ["video-moderation", "AI Video Moderation", "Blocks unsafe videos (an AI engine the emulator does not run).", [condition(1, ai("video"))]],
];

export function defaultModeration(createdAt: number): ModerationData {
  const rules: RuleRecord[] = RULES.map(([id, name, description, conditions]) => ({
    id,
    default: true,
    createdAt,
    revisions: [{ revision: 1, name, description, enabled: false, conditions, action: ["blockMessage"], createdAt }],
  }));
  const profanity: KeywordListRecord = {
    id: "profanity-list",
    name: "Profane Words",
    description: "Common profane words.",
    category: "word",
    isCSV: false,
    searchTerms: PROFANITY,
    default: true,
    revision: 1,
    createdAt,
    updatedAt: createdAt,
  };
  return {
    reasons: REASONS.map(([id, name, description]) => ({ id, name, description, default: true, createdAt, updatedAt: createdAt })),
    rules,
    keywordLists: [profanity],
    blocked: [],
    flags: [],
    moderated: [],
  };
}
