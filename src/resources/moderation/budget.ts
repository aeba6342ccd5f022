import { badRequest } from "../../http/errors.js";
import { current, type KeywordListRecord, type Moderation, type RuleRevision } from "../../store/moderation.js";
import { MAX_SCREENING_PROGRAM, programSize } from "../../util/safe-regex.js";
import { MAX_SCREENING_WORDS } from "../../util/word-list.js";
import { sourcesOf } from "./engine.js";

/**
 * The screening budget: what the enabled rules of one app may ask of every message. Each send makes one pass over
 * its text for all word terms and one for all patterns (engine.ts); the platform's limits (25 rules of 10
 * conditions, 25 lists) do not bound what those passes cost, so the terms they use together are bounded here, where
 * rules and lists change: the patterns compile to at most MAX_SCREENING_PROGRAM RE2 instructions, the word terms
 * hold at most MAX_SCREENING_WORDS characters (counted as `loadOf` says). A change that would pass either is refused with
 * the field that carries it; nothing else is counted (disabled rules, lists no enabled rule names).
 */

interface Load {
  program: number;
  words: number;
}

/**
 * What the enabled rules ask of a message, as engine.ts compiles them: per pass (operand and operator), each distinct
 * pattern once, and the word terms of each source (a condition's own terms; a keyword list once, however many
 * conditions name it).
 */
function loadOf(revisions: Iterable<RuleRevision>, lists: ReadonlyMap<string, KeywordListRecord>): Load {
  const patterns = new Set<string>();
  const listsSeen = new Set<string>();
  let words = 0;
  for (const rev of revisions) {
    if (!rev.enabled) continue;
    for (const c of rev.conditions) {
      const pass = `${c.operand} ${c.operator}\n`;
      for (const source of sourcesOf(c, lists)) {
        if (source.list !== undefined) {
          if (listsSeen.has(pass + source.list)) continue;
          listsSeen.add(pass + source.list);
        }
        for (const p of source.patterns) patterns.add(pass + p);
        // `equals` word terms are a set lookup, not automaton work.
        if (c.operator !== "equals") for (const w of source.words) words += w.trim().length;
      }
    }
  }
  let program = 0;
  for (const p of patterns) program += programSize(p.slice(p.indexOf("\n") + 1));
  return { program, words };
}

/** Refuses a change that takes a figure past its budget (one already past it, from an older data file, may shrink). */
function check(field: string, before: Load, load: Load): void {
  const problems: string[] = [];
  if (load.program > MAX_SCREENING_PROGRAM && load.program > before.program)
    problems.push(`The patterns of the app's enabled rules would together compile to ${load.program} instructions, more than ${MAX_SCREENING_PROGRAM}.`);
  if (load.words > MAX_SCREENING_WORDS && load.words > before.words)
    problems.push(`The word terms of the app's enabled rules would together hold ${load.words} characters, more than ${MAX_SCREENING_WORDS}.`);
  if (problems.length > 0) throw badRequest({ [field]: problems });
}

/** Refuses a rule's new revision (a new rule: `id` not yet in the app) that would pass the app's budget. */
export function checkRuleBudget(mod: Moderation, id: string, next: RuleRevision): void {
  if (!next.enabled) return;
  const others = [...mod.rules.values()].filter((r) => r.id !== id).map(current);
  check("conditions", loadOf([...mod.rules.values()].map(current), mod.keywordLists), loadOf([...others, next], mod.keywordLists));
}

/** Refuses new terms for a keyword list that would pass the app's budget through the enabled rules that name it. */
export function checkListBudget(mod: Moderation, next: KeywordListRecord): void {
  const revisions = [...mod.rules.values()].map(current);
  check("searchTerms", loadOf(revisions, mod.keywordLists), loadOf(revisions, new Map(mod.keywordLists).set(next.id, next)));
}
