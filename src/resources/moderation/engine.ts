import type { AppState } from "../../store/app-state.js";
import { current, revisionId, type ConditionRecord, type KeywordListRecord, type Moderation, type RuleRecord, type Verdict } from "../../store/moderation.js";
import type { Json, JsonObject, MessageRecord } from "../../store/types.js";
import { PatternSet } from "../../util/safe-regex.js";
import { WordList } from "../../util/word-list.js";

/**
 * The rule engine: which enabled rule, if any, catches a message. Rules are compiled once per change of rules or
 * keyword lists (a version counter): a send costs one pass over the message for all word terms of all rules, and
 * one for all their patterns (see `Compiled`). What those passes may cost is bounded where rules and lists are
 * changed (budget.ts).
 *
 * - `text` conditions read the text of text messages and the caption of media messages; `custom` conditions read
 *   the strings inside a custom message's customData. `image` and `video` conditions need the platform's AI
 *   engines, which the emulator does not run: they never match.
 * - `word` terms match whole words (or phrases), case-insensitive, found in one pass (util/word-list.ts);
 *   `pattern` terms are RE2 regular expressions, case-insensitive, run together as one RE2 set (safe-regex.ts);
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

/**
 * What one pass over a subject finds: the app's `contains` word terms (an automaton), its `contains` patterns and its
 * `equals` patterns (an RE2 set each, the latter matched against the whole trimmed text), all conditions' terms
 * together, each source under its own label (a condition's own terms; a keyword list, shared by the conditions
 * naming it).
 */
type Pass = "words" | "patterns" | "exact";

interface CompiledCondition {
  condition: ConditionRecord;
  /** `equals` on word terms. */
  test?: Test;
  /** Its labels in the passes of its operand. */
  labels: [Pass, number][];
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
 * Where a condition's terms come from: its own `value` (no `list`), or each keyword list it names, with the list's
 * terms as words or patterns as the list's category says.
 */
export function sourcesOf(c: ConditionRecord, lists: ReadonlyMap<string, KeywordListRecord>): { list?: string; words: string[]; patterns: string[] }[] {
  const raw = c as unknown as Record<string, unknown>;
  const byList = c.isKeywordsReferencePresent || raw.isListReferencePresent === true || raw.isKeywordReferencePresent === true;
  if (!byList) return [c.category === "pattern" ? { words: [], patterns: c.value } : { words: c.value, patterns: [] }];
  return c.value.flatMap((id) => {
    const list = lists.get(id);
    if (!list) return [];
    return [list.category === "pattern" ? { list: id, words: [], patterns: list.searchTerms } : { list: id, words: list.searchTerms, patterns: [] }];
  });
}

/**
 * The enabled rules of an app, compiled: per operand, one word automaton and one RE2 set for each kind of pattern
 * condition, holding the terms of all conditions (each source under its label). A message is searched once per operand
 * and kind, whatever the number of rules and conditions.
 */
interface Compiled {
  version: number;
  rules: CompiledRule[];
  passes: Map<`${ConditionRecord["operand"]} ${Pass}`, WordList | PatternSet>;
}

const compiledRules = new WeakMap<Moderation, Compiled>();

function enabledRules(app: AppState): Compiled {
  const mod = app.moderation;
  const cached = compiledRules.get(mod);
  if (cached?.version === mod.version) return cached;
  const rules: CompiledRule[] = [];
  const gathered = new Map<`${ConditionRecord["operand"]} ${Pass}`, { label: number; terms: string[] }[]>();
  // A keyword list named by many conditions is compiled once per pass, under one label they share.
  const listLabels = new Map<string, number>();
  let next = 0;
  const labelFor = (operand: ConditionRecord["operand"], pass: Pass, list: string | undefined, terms: string[]): [Pass, number] | undefined => {
    if (!terms.some((t) => t.trim().length > 0)) return undefined;
    const key = `${operand} ${pass}` as const;
    const shared = list === undefined ? undefined : `${key} ${list}`;
    const known = shared === undefined ? undefined : listLabels.get(shared);
    if (known !== undefined) return [pass, known];
    const label = next++;
    if (shared !== undefined) listLabels.set(shared, label);
    let of = gathered.get(key);
    if (!of) gathered.set(key, (of = []));
    of.push({ label, terms });
    return [pass, label];
  };
  for (const rule of mod.rules.values()) {
    const rev = current(rule);
    if (!rev.enabled) continue;
    const conditions = rev.conditions.map((c): CompiledCondition => {
      const equals = c.operator === "equals";
      const labels: [Pass, number][] = [];
      const words: string[] = [];
      for (const source of sourcesOf(c, mod.keywordLists)) {
        const found = [labelFor(c.operand, equals ? "exact" : "patterns", source.list, source.patterns), equals ? undefined : labelFor(c.operand, "words", source.list, source.words)];
        for (const l of found) if (l) labels.push(l);
        if (equals) words.push(...source.words);
      }
      return { condition: c, test: equals ? wordsEqual(words) : undefined, labels };
    });
    rules.push({ rule, revisionId: revisionId(app.meta.appId, rule.id, rev.revision), name: rev.name, action: rev.action, filters: rev.filters ?? [], conditions });
  }
  const passes: Compiled["passes"] = new Map();
  for (const [key, of] of gathered) {
    const pass = key.split(" ")[1] as Pass;
    const compiled =
      pass === "words" ? WordList.labelled(of, WORDS) : PatternSet.labelled(of.map(({ label, terms }) => ({ label, patterns: terms })), { whole: pass === "exact" });
    if (compiled) passes.set(key, compiled);
  }
  const compiled = { version: mod.version, rules, passes };
  compiledRules.set(mod, compiled);
  return compiled;
}

const lower = (v: unknown) => String(v).toLowerCase();

/** One user or group filter of a rule: does the message's sender/receiver pass it? */
function passesFilter(app: AppState, f: JsonObject, m: Pick<MessageRecord, "sender" | "receiver" | "receiverType">): boolean {
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

/** Whether a rule's actions hold a message back; a rule whose only action is `flagMessage` delivers and flags it. */
export function holds(action: readonly string[]): boolean {
  return action.some((a) => a !== "flagMessage");
}

/**
 * The rule that decides what happens to the message, or undefined: the first enabled rule that catches it and holds
 * it back, else the first that catches it and only flags it (a flag never spares a message a later rule blocks).
 */
export function verdictFor(
  app: AppState,
  m: Pick<MessageRecord, "category" | "data" | "sender" | "receiver" | "receiverType">,
): Verdict | undefined {
  const { rules, passes } = enabledRules(app);
  // The labels each pass finds in its operand's subject, searched once, when a condition first needs them.
  const found = new Map<string, Set<number>>();
  const labelsIn = (operand: ConditionRecord["operand"], pass: Pass, subject: string) => {
    const key = `${operand} ${pass}` as const;
    let labels = found.get(key);
    if (!labels) found.set(key, (labels = passes.get(key)?.labelsIn(pass === "exact" ? subject.trim() : subject) ?? new Set()));
    return labels;
  };
  let flagged: Verdict | undefined;
  for (const r of rules) {
    if (flagged && !holds(r.action)) continue;
    if (!r.filters.every((f) => passesFilter(app, f, m))) continue;
    for (const { condition, test, labels } of r.conditions) {
      if (!test && labels.length === 0) continue;
      const subject = subjectOf(m, condition.operand);
      if (subject === undefined) continue;
      if (labels.some(([pass, label]) => labelsIn(condition.operand, pass, subject).has(label)) || test?.(subject)) {
        const verdict = { ruleId: r.rule.id, ruleName: r.name, revisionId: r.revisionId, condition, action: r.action };
        if (holds(r.action)) return verdict;
        flagged = verdict;
        break;
      }
    }
  }
  return flagged;
}
