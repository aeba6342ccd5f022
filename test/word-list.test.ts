import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { WordList } from "../src/util/word-list.js";
import { emulator } from "./helpers.js";

/**
 * Word lists (moderation words and phrases, the profanity filter's bad words) are found in one pass: the same
 * answers as the escaped-alternation RegExp they replace, without its cost of text × terms (issue 35, item 4:
 * 10,000 terms against a 10 KB message froze the process for 20 to 40 s).
 */

const W = "[\\p{L}\\p{N}_]";
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const WORD = /[\p{L}\p{N}_]/u;
/** The moderation engine's former matcher (reference, small inputs only). */
const oldWords = (terms: string[]) => {
  const alts = terms.map((t) => t.trim()).filter((t) => t).map((t) => escape(t).replace(/\s+/g, "\\s+"));
  return new RegExp(`(?<!${W})(?:${alts.join("|")})(?!${W})`, "iu");
};
/** The profanity filter's former pattern (reference). */
const oldBadWords = (words: string[]) =>
  new RegExp(
    words
      .map((w) => w.trim())
      .filter((w) => w)
      .sort((a, b) => b.length - a.length)
      .map((w) => `${WORD.test(w[0]) ? `(?<!${W})` : ""}${escape(w)}${WORD.test(w.at(-1)!) ? `(?!${W})` : ""}`)
      .join("|"),
    "giu",
  );
const stars = (s: string) => "*".repeat([...s].length);

describe("word lists", () => {
  const unit = fc.constantFrom("a", "B", "b", " ", "  ", "-", "é", "É", "1", "!", "😀", "\u00a0", "_");
  const term = fc.string({ unit, minLength: 1, maxLength: 5 }).filter((t) => t.trim().length > 0);
  const text = fc.string({ unit, maxLength: 30 });

  it("find what the former RegExp found: whole words and phrases, any white space, case-insensitive", () => {
    fc.assert(
      fc.property(fc.array(term, { minLength: 1, maxLength: 6 }), text, (terms, t) => {
        expect(WordList.of(terms, { edges: "always", anySpace: true })!.test(t)).toBe(oldWords(terms).test(t));
      }),
      { numRuns: 200 },
    );
  });

  it("mask what the former RegExp masked: leftmost, longest, whole words where a word ends", () => {
    fc.assert(
      fc.property(fc.array(term, { minLength: 1, maxLength: 6 }), text, (words, t) => {
        expect(WordList.of(words, { edges: "word-ends" })!.mask(t, stars)).toBe(t.replace(oldBadWords(words), stars));
      }),
      { numRuns: 200 },
    );
  });

  it("10,000 terms against a 10,000-character message built to make an alternation retry: answered", async () => {
    const e = await emulator();
    const searchTerms = Array.from({ length: 10_000 }, (_, i) => `a${i} b`);
    expect((await e.post("/v3/moderation/keywords", { id: "many", name: "Many", searchTerms })).status).toBe(200);
    const condition = { entity: "message", operand: "text", operator: "contains", category: "word", isKeywordsReferencePresent: true, value: ["many"] };
    expect((await e.post("/v3/moderation/rules", { id: "many", name: "M", enabled: true, action: ["blockMessage"], conditions: [condition] })).status).toBe(200);
    const say = (text: string) => e.post("/v3/messages", { receiver: "superhero2", receiverType: "user", data: { text } }, { onBehalfOf: "superhero1" });
    for (const adversarial of ["a ".repeat(4_900), `a1${" ".repeat(9_900)}`, "a1 ".repeat(3_300)])
      expect((await say(adversarial)).body.data.data.moderation.status).toBe("approved");
    expect((await say(`well a9999 \u00a0 B, then`)).body.data.data.moderation.status).toBe("disapproved");
  });
});
