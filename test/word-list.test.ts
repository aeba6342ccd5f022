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

  it("labelled lists in one automaton find exactly the lists that each list alone finds", () => {
    fc.assert(
      fc.property(fc.array(fc.array(term, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 6 }), text, (lists, t) => {
        const options = { edges: "always", anySpace: true } as const;
        const together = WordList.labelled(lists.map((terms, label) => ({ label, terms })), options)!;
        const alone = lists.flatMap((terms, label) => (WordList.of(terms, options)!.test(t) ? [label] : []));
        expect([...together.labelsIn(t)].sort((a, b) => a - b)).toEqual(alone);
      }),
      { numRuns: 300 },
    );
  });

  it("the first of many keyword rules that catches a message wins, as rule by rule, for words, lists, patterns and equals", async () => {
    const e = await emulator();
    /** The message's moderation status and the rule the blocked-message queue names for it. */
    const send = async (text: string) => {
      const sent = await e.post("/v3/messages", { receiver: "superhero2", receiverType: "user", data: { text } }, { onBehalfOf: "superhero1" });
      const queue = (await e.get("/v3/moderation/blocked-messages?limit=100")).body.data as { ruleId: string; message?: { id: unknown } }[];
      return { status: sent.body.data.data.moderation.status, ruleId: queue.find((q) => q.message?.id === sent.body.data.id)?.ruleId };
    };
    const rule = (id: string, conditions: unknown[]) => e.post("/v3/moderation/rules", { id, name: id, enabled: true, action: ["blockMessage"], conditions });
    const cond = (category: string, value: string[], operator = "contains") => ({ entity: "message", operand: "text", operator, category, value });
    expect((await e.post("/v3/moderation/keywords", { id: "kl", name: "KL", searchTerms: ["listed word"] })).status).toBe(200);
    expect((await rule("r1-pattern", [cond("pattern", ["^zz\\d+$"])])).status).toBe(200);
    expect((await rule("r2-words", [cond("word", ["alpha", "beta gamma"])])).status).toBe(200);
    expect((await rule("r3-list", [{ ...cond("word", ["kl"]), isKeywordsReferencePresent: true }])).status).toBe(200);
    expect((await rule("r4-equals", [cond("word", ["exactly this"], "equals")])).status).toBe(200);
    expect((await rule("r5-words", [cond("word", ["alpha", "omega"])])).status).toBe(200);
    const cases: [string, string | undefined][] = [
      ["say alpha now", "r2-words"],
      ["omega only", "r5-words"],
      ["beta   GAMMA", "r2-words"],
      ["the listed   word here", "r3-list"],
      ["exactly this", "r4-equals"],
      ["exactly this and more", undefined],
      ["zz12", "r1-pattern"],
      ["alphabet omegas", undefined],
    ];
    for (const [text, ruleId] of cases) {
      const moderation = await send(text);
      if (ruleId) expect(moderation, text).toMatchObject({ status: "disapproved", ruleId });
      else expect(moderation.status, text).toBe("approved");
    }
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
