import type { AppState } from "../../store/app-state.js";
import { current, revisionId, type ConditionRecord, type Moderation, type RuleRecord, type Verdict } from "../../store/moderation.js";
import type { Json, JsonObject, MessageRecord } from "../../store/types.js";
import { UserPattern } from "../../util/safe-regex.js";
import { WordList } from "../../util/word-list.js";

/**
 * The rule engine: which enabled rule, if any, catches a message. Rules are compiled once per change of rules or
 * keyword lists (a version counter): a send costs one pass over the message for all word terms of all rules (see
 * `Compiled`), and one linear-time regular-expression test per pattern condition.
 *
 * - `text` conditions read the text of text messages and the caption of media messages; `custom` conditions read
 *   the strings inside a custom message's customData. `image` and `video` conditions need the platform's AI
 *   engines, which the emulator does not run: they never match.
 * - `word` terms match whole words (or phrases), case-insensitive, found in one pass (util/word-list.ts);
 *   `pattern` terms are RE2 regular expressions on the linear-time engine of safe-regex.ts, case-insensitive;
 *   `equals` compares the whole text instead of searching in it.
 * - A condition whose `isKeywordsReferencePresent` is true names keyword lists; its terms are their search terms,
 *   matched as the list's category says.
 * - A rule catches a message when its filters (if any) all pass and any one of its conditions matches.
 */

type Test = (subject: string) => boolean;

/** How `word` terms are found: whole words, and a phrase with any run of white space between its words. */
const WORDS = { edges: "always", anySpace: true } as const;

/** `equals` on word terms: the whole text is one of them. (`contains` goes to the app's word automaton.) */
function wordsEqual(terms: string[]): Test | undefined {
  const clean = terms.map((t) => t.trim()).filter((t) => t.length > 0);
  if (clean.length === 0) return undefined;
  const set = new Set(clean.map((t) => t.toLowerCase()));
  return (s) => set.has(s.trim().toLowerCase());
}

function patternTest(patterns: string[], operator: ConditionRecord["operator"]): Test | undefined {
  const whole = operator === "equals";
  const re = UserPattern.of(patterns, { ignoreCase: true, whole });
  return re && ((s) => re.test(whole ? s.trim() : s));
}

/** The strings inside customData (depth and size bounded: a custom message is at most a few KB anyway). */
function customText(value: Json | undefined, out: string[] = [], depth = 0): string[] {
  if (typeof value === "string") out.push(value);
  else if (depth < 16 && value && typeof value === "object")
    for (const v of Array.isArray(value) ? value : Object.values(value)) customText(v, out, depth + 1);
  return out;
}

function subjectOf(m: Pick<MessageRecord, "category" | "data">, operand: ConditionRecord["operand"]): string | undefined {
  if (operand === "text") return typeof m.data.text === "string" ? m.data.text : undefined;
  if (operand === "custom") return m.category === "custom" ? customText(m.data.customData).join("\n") : undefined;
  return undefined;
}

interface CompiledCondition {
  condition: ConditionRecord;
  test?: Test;
  /** Its `contains` word terms' label in the automaton of its operand (see `Compiled`). */
  label?: number;
}

interface CompiledRule {
  rule: RuleRecord;
  revisionId: string;
  name: string;
  action: string[];
  filters: JsonObject[];
  conditions: CompiledCondition[];
}

/**
 * A condition compiled: its pattern and `equals` terms as a test; its `contains` word terms (its own, or its keyword
 * lists') handed to `words` under a label of their own, to be found with every other condition's in one pass.
 */
function compileCondition(mod: Moderation, c: ConditionRecord, words: (terms: string[]) => number | undefined): CompiledCondition {
  const raw = c as unknown as Record<string, unknown>;
  const byList = c.isKeywordsReferencePresent || raw.isListReferencePresent === true || raw.isKeywordReferencePresent === true;
  const wordTerms: string[] = [];
  const patterns: string[] = [];
  if (!byList) (c.category === "pattern" ? patterns : wordTerms).push(...c.value);
  else
    for (const id of c.value) {
      const list = mod.keywordLists.get(id);
      if (list) for (const term of list.searchTerms) (list.category === "pattern" ? patterns : wordTerms).push(term);
    }
  const label = c.operator === "equals" ? undefined : words(wordTerms);
  const tests = [c.operator === "equals" ? wordsEqual(wordTerms) : undefined, patternTest(patterns, c.operator)].filter((t): t is Test => t !== undefined);
  return { condition: c, label, test: tests.length === 0 ? undefined : tests.length === 1 ? tests[0] : (s) => tests.some((t) => t(s)) };
}

/**
 * The enabled rules of an app, compiled, and one word automaton per operand holding the `contains` word terms of
 * all their conditions (each condition's under its label): a message is searched once per operand, whatever the
 * number of rules. 1,000 rules of 10 terms each cost one pass over a 10 KB message, not 1,000.
 */
interface Compiled {
  version: number;
  rules: CompiledRule[];
  words: Map<ConditionRecord["operand"], WordList>;
}

const compiledRules = new WeakMap<Moderation, Compiled>();

function enabledRules(app: AppState): Compiled {
  const mod = app.moderation;
  const cached = compiledRules.get(mod);
  if (cached?.version === mod.version) return cached;
  const rules: CompiledRule[] = [];
  const lists = new Map<ConditionRecord["operand"], { label: number; terms: string[] }[]>();
  let labels = 0;
  const wordsOf = (operand: ConditionRecord["operand"]) => (terms: string[]) => {
    if (!terms.some((t) => t.trim().length > 0)) return undefined;
    const label = labels++;
    let of = lists.get(operand);
    if (!of) lists.set(operand, (of = []));
    of.push({ label, terms });
    return label;
  };
  for (const rule of mod.rules.values()) {
    const rev = current(rule);
    if (!rev.enabled) continue;
    rules.push({
      rule,
      revisionId: revisionId(app.meta.appId, rule.id, rev.revision),
      name: rev.name,
      action: rev.action,
      filters: rev.filters ?? [],
      conditions: rev.conditions.map((c) => compileCondition(mod, c, wordsOf(c.operand))),
    });
  }
  const words = new Map<ConditionRecord["operand"], WordList>();
  for (const [operand, of] of lists) {
    const list = WordList.labelled(of, WORDS);
    if (list) words.set(operand, list);
  }
  const compiled = { version: mod.version, rules, words };
  compiledRules.set(mod, compiled);
  return compiled;
}

const lower = (v: unknown) => String(v).toLowerCase();

/** One user or group filter of a rule: does the message's sender/receiver pass it? */
function passes(app: AppState, f: JsonObject, m: Pick<MessageRecord, "sender" | "receiver" | "receiverType">): boolean {
  let values: unknown[] | undefined;
  if (f.entity === "group") {
    const group = m.receiverType === "group" ? app.groups.get(m.receiver) : undefined;
    if (!group) return false;
    const operand = String(f.operand);
    values = operand === "tags" ? group.tags : [(group as unknown as Record<string, unknown>)[operand]];
  } else {
    const uid = f.type === "receiver" ? (m.receiverType === "user" ? m.receiver : undefined) : m.sender;
    const user = uid === undefined ? undefined : app.users.get(uid);
    if (!user) return false;
    const operand = String(f.operand);
    values = operand === "tags" ? user.tags : [(user as unknown as Record<string, unknown>)[operand]];
  }
  const have = values.filter((v) => v !== undefined).map(lower);
  const want = (Array.isArray(f.value) ? f.value : [f.value]).map(lower);
  switch (String(f.operator).replace(/\s+/g, "").toLowerCase()) {
    case "equals":
    case "in":
      return have.some((v) => want.includes(v));
    case "notequals":
    case "notin":
      return !have.some((v) => want.includes(v));
    case "startswith":
      return have.some((v) => want.some((w) => v.startsWith(w)));
    case "endswith":
      return have.some((v) => want.some((w) => v.endsWith(w)));
    case "lessthan":
      return have.some((v) => Number(v) < Number(want[0]));
    case "greaterthan":
      return have.some((v) => Number(v) > Number(want[0]));
    default:
      return false;
  }
}

/** The first enabled rule that catches the message, or undefined. */
export function verdictFor(
  app: AppState,
  m: Pick<MessageRecord, "category" | "data" | "sender" | "receiver" | "receiverType">,
): Verdict | undefined {
  const { rules, words } = enabledRules(app);
  // The labels found in each operand's subject, searched once, when a condition first needs them.
  const found = new Map<ConditionRecord["operand"], Set<number>>();
  const wordsIn = (operand: ConditionRecord["operand"], subject: string) => {
    let labels = found.get(operand);
    if (!labels) found.set(operand, (labels = words.get(operand)?.labelsIn(subject) ?? new Set()));
    return labels;
  };
  for (const r of rules) {
    if (!r.filters.every((f) => passes(app, f, m))) continue;
    for (const { condition, test, label } of r.conditions) {
      if (!test && label === undefined) continue;
      const subject = subjectOf(m, condition.operand);
      if (subject === undefined) continue;
      if ((label !== undefined && wordsIn(condition.operand, subject).has(label)) || test?.(subject))
        return { ruleId: r.rule.id, ruleName: r.name, revisionId: r.revisionId, condition, action: r.action };
    }
  }
  return undefined;
}
