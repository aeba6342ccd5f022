import type { AppState } from "../../store/app-state.js";
import { current, revisionId, type ConditionRecord, type Moderation, type RuleRecord, type Verdict } from "../../store/moderation.js";
import type { Json, JsonObject, MessageRecord } from "../../store/types.js";
import { UserPattern } from "../../util/safe-regex.js";
import { WordList } from "../../util/word-list.js";

/**
 * The rule engine: which enabled rule, if any, catches a message. Rules are compiled once per change of rules or
 * keyword lists (a version counter), so a send costs one regular-expression test per condition.
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

function wordTest(terms: string[], operator: ConditionRecord["operator"]): Test | undefined {
  const clean = terms.map((t) => t.trim()).filter((t) => t.length > 0);
  if (clean.length === 0) return undefined;
  if (operator === "equals") {
    const set = new Set(clean.map((t) => t.toLowerCase()));
    return (s) => set.has(s.trim().toLowerCase());
  }
  // A phrase matches with any run of white space between its words.
  const list = WordList.of(clean, { edges: "always", anySpace: true });
  return list && ((s) => list.test(s));
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
}

interface CompiledRule {
  rule: RuleRecord;
  revisionId: string;
  name: string;
  action: string[];
  filters: JsonObject[];
  conditions: CompiledCondition[];
}

function compileCondition(mod: Moderation, c: ConditionRecord): CompiledCondition {
  const raw = c as unknown as Record<string, unknown>;
  const byList = c.isKeywordsReferencePresent || raw.isListReferencePresent === true || raw.isKeywordReferencePresent === true;
  if (!byList) return { condition: c, test: (c.category === "pattern" ? patternTest : wordTest)(c.value, c.operator) };
  const words: string[] = [];
  const patterns: string[] = [];
  for (const id of c.value) {
    const list = mod.keywordLists.get(id);
    if (list) for (const term of list.searchTerms) (list.category === "pattern" ? patterns : words).push(term);
  }
  const tests = [wordTest(words, c.operator), patternTest(patterns, c.operator)].filter((t): t is Test => t !== undefined);
  return { condition: c, test: tests.length ? (s) => tests.some((t) => t(s)) : undefined };
}

const compiledRules = new WeakMap<Moderation, { version: number; rules: CompiledRule[] }>();

function enabledRules(app: AppState): CompiledRule[] {
  const mod = app.moderation;
  const cached = compiledRules.get(mod);
  if (cached?.version === mod.version) return cached.rules;
  const rules: CompiledRule[] = [];
  for (const rule of mod.rules.values()) {
    const rev = current(rule);
    if (!rev.enabled) continue;
    rules.push({
      rule,
      revisionId: revisionId(app.meta.appId, rule.id, rev.revision),
      name: rev.name,
      action: rev.action,
      filters: rev.filters ?? [],
      conditions: rev.conditions.map((c) => compileCondition(mod, c)),
    });
  }
  compiledRules.set(mod, { version: mod.version, rules });
  return rules;
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
  for (const r of enabledRules(app)) {
    if (!r.filters.every((f) => passes(app, f, m))) continue;
    for (const { condition, test } of r.conditions) {
      if (!test) continue;
      const subject = subjectOf(m, condition.operand);
      if (subject !== undefined && test(subject))
        return { ruleId: r.rule.id, ruleName: r.name, revisionId: r.revisionId, condition, action: r.action };
    }
  }
  return undefined;
}
