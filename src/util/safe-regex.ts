import { RE2JS, RE2Set } from "re2js";

/**
 * User-supplied regular expressions (moderation patterns and pattern keyword lists, data-masking masks) run on
 * every message sent. JavaScript's RegExp backtracks: `(a|a)*b` against 30 characters freezes the process for
 * seconds. They run on RE2JS instead, a pure-JavaScript RE2: time linear in the text, whatever the pattern. What
 * RE2 cannot run in linear time (back-references, look-ahead, look-behind) is refused where the pattern is given.
 *
 * Linear is per pass, so the size of the pattern is bounded too: a pass costs text length × program size
 * (`.{0,1000}` compiles to 2000 instructions, about a second over a 10 KB message).
 */

const MAX_PATTERN = 500;
/** Instructions one pattern may compile to, and all the patterns of one list together. */
const MAX_PROGRAM = 300;
const MAX_LIST_PROGRAM = 3000;
/**
 * Patterns one request may give (a keyword list, or all the conditions of a rule): every pattern compiles to 3
 * instructions or more, so a list of more could never pass MAX_LIST_PROGRAM, and checking each of 10,000 took half
 * a second of one turn. Counted before any is compiled.
 */
export const MAX_PATTERNS = MAX_LIST_PROGRAM / 3;
/**
 * Characters the searches of one masking pass may cover. Finding every match is linear per match, not per text:
 * a search may run to the end of the text before it settles (`a*b|a` over 10 000 `a`s is 10 000 searches of up
 * to 10 000 characters, seconds). Each search is charged the rest of the text; past the budget (about 30 ms of
 * searching) the rest of the text is masked whole. A message under 1 000 characters never reaches it.
 */
export const MASK_SEARCH_BUDGET = 100_000;

/**
 * The instructions all the patterns of one app's enabled moderation rules may compile to together (budget.ts).
 * Screening runs them in one pass as one RE2 set: a lazy DFA, one table step per character while its states fit.
 * When a set makes the DFA's states explode (`a[ab]{20}c` over a text of `a`s and `b`s: 24 instructions), RE2's NFA
 * takes over, and the NFA pays each live instruction on each character. Over the largest message (10 KB of
 * `data`), 300 instructions of such patterns cost 10 to 50 ms (see `npm run bench:regex`); ordinary patterns
 * (an email address: 11; a phone number: 18; `[a-z]{1,50}`: 101) stay on the DFA, under a millisecond. The
 * budget is MAX_PROGRAM on purpose: any pattern the emulator accepts can be used by an enabled rule.
 */
export const MAX_SCREENING_PROGRAM = MAX_PROGRAM;
/**
 * Memory for an RE2 set's DFA. Small on purpose: when the states explode, the DFA gives up after filling this
 * twice and the NFA runs instead; a large cache only delays that (with the library's 8 MB, a 10 KB text cost 60 ms
 * before the NFA took over). Ordinary patterns need far fewer states.
 */
const SET_DFA_MEMORY = 64 * 1024;

/** The engine every user pattern runs on (tests assert it). */
export const USER_PATTERN_ENGINE = RE2JS;

function compile(source: string, ignoreCase = false): RE2JS {
  return RE2JS.compile(source, ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
}

/** Why a pattern is refused, or undefined: too long, not RE2 syntax (or what RE2 cannot run), or too large. */
export function patternProblem(source: string): string | undefined {
  if (source.length > MAX_PATTERN) return `may not be longer than ${MAX_PATTERN} characters`;
  let re: RE2JS;
  try {
    re = compile(source);
  } catch (e) {
    const reason = String((e as Error).message).replace(/^error parsing regexp: /, "");
    return `is not a valid RE2 pattern (${reason}); back-references, look-ahead and look-behind cannot run in linear time`;
  }
  if (re.programSize() > MAX_PROGRAM) return `compiles to more than ${MAX_PROGRAM} instructions (large counted repeats such as {200})`;
  return undefined;
}

/** Why a data-masking mask is refused: a pattern's problems, or matching empty text (it would mask nothing). */
export function maskProblem(source: string): string | undefined {
  return patternProblem(source) ?? (compile(source).testExact("") ? "may not match empty text" : undefined);
}

/** Instructions a valid pattern compiles to (remembered: the screening budget asks again on every rule change). */
const sizes = new Map<string, number>();
export function programSize(source: string): number {
  let size = sizes.get(source);
  if (size === undefined) {
    size = compile(source).programSize();
    if (sizes.size >= 10_000) sizes.clear();
    sizes.set(source, size);
  }
  return size;
}

/** Why patterns used together (one list, one condition, one app's masks) are refused, once each is valid. */
export function listProblem(sources: readonly string[]): string | undefined {
  const total = sources.reduce((sum, s) => sum + programSize(s), 0);
  return total > MAX_LIST_PROGRAM ? `together compile to more than ${MAX_LIST_PROGRAM} instructions` : undefined;
}

/**
 * The first problem of patterns used together, for a seed or state file checked at load (the routes run the same
 * checks and report every problem): `index` names the pattern, absent when the problem is the list's size.
 */
export function firstPatternProblem(
  sources: readonly unknown[],
  problemOf: (source: string) => string | undefined = patternProblem,
): { index?: number; problem: string } | undefined {
  for (const [index, s] of sources.entries()) {
    const problem = typeof s === "string" ? problemOf(s) : "must be a string";
    if (problem) return { index, problem };
  }
  const problem = listProblem(sources as string[]);
  return problem ? { problem } : undefined;
}

export interface UserPatternOptions {
  ignoreCase?: boolean;
  /** Match the whole text rather than search in it. */
  whole?: boolean;
}

/**
 * Patterns that match when any one of them does. Patterns with a problem are left out (a defence only: the routes
 * and the loader refuse them), undefined when none is left.
 */
export class UserPattern {
  private constructor(
    private readonly engines: RE2JS[],
    private readonly whole: boolean,
  ) {}

  static of(sources: readonly string[], { ignoreCase = false, whole = false }: UserPatternOptions = {}): UserPattern | undefined {
    const usable = sources.filter((s) => s.length > 0 && patternProblem(s) === undefined);
    if (usable.length === 0) return undefined;
    try {
      return new UserPattern([compile(usable.map((s) => `(?:${s})`).join("|"), ignoreCase)], whole);
    } catch {
      // Too large as one program (a state file can hold more than the routes accept): one engine per pattern.
      return new UserPattern(usable.map((s) => compile(s, ignoreCase)), whole);
    }
  }

  test(text: string): boolean {
    return this.engines.some((re) => (this.whole ? re.testExact(text) : re.test(text)));
  }

  /** The text with each match replaced by `mask(match)`; see MASK_SEARCH_BUDGET for the bound. */
  mask(text: string, mask: (match: string) => string): string {
    let out = text;
    let budget = MASK_SEARCH_BUDGET;
    for (const re of this.engines) {
      if (!re.test(out)) continue;
      let masked = "";
      let from = 0;
      budget -= out.length;
      for (const m of re.matchAll(out)) {
        masked += out.slice(from, m.index) + mask(m[0]);
        from = m.index! + m[0].length;
        budget -= out.length - from;
        if (budget < 0) return masked + mask(out.slice(from));
      }
      out = masked + out.slice(from);
    }
    return out;
  }
}

/**
 * Labelled lists of patterns (a moderation condition's own, or a pattern keyword list) run together in one pass,
 * case-insensitive: `labelsIn` answers which lists have a pattern that matches (`whole`: matches the whole text). A
 * pattern shared by several lists is compiled once. Patterns with a problem are left out, as in `UserPattern`. The
 * routes hold what screening compiles to a few hundred instructions; a data file from before that held more is
 * compiled in sets of SET_PROGRAM instructions at most (RE2 refuses a program past about 1.4 million).
 */
const SET_PROGRAM = 100_000;

export class PatternSet {
  private constructor(
    private readonly sets: RE2Set[],
    /** By set, then by the set's pattern index: the labels of the lists holding it. */
    private readonly labels: number[][][],
  ) {}

  static labelled(lists: readonly { label: number; patterns: readonly string[] }[], { whole = false } = {}): PatternSet | undefined {
    const index = new Map<string, number[]>();
    for (const { label, patterns } of lists)
      for (const source of patterns) {
        if (source.length === 0 || patternProblem(source) !== undefined) continue;
        const of = index.get(source);
        if (!of) index.set(source, [label]);
        else if (!of.includes(label)) of.push(label);
      }
    if (index.size === 0) return undefined;
    const sets: RE2Set[] = [];
    const labels: number[][][] = [];
    let size = SET_PROGRAM;
    for (const [source, of] of index) {
      if (size + programSize(source) > SET_PROGRAM) {
        sets.push(new RE2Set(whole ? RE2Set.ANCHOR_BOTH : RE2Set.UNANCHORED, RE2JS.CASE_INSENSITIVE, SET_DFA_MEMORY));
        labels.push([]);
        size = 0;
      }
      size += programSize(source);
      labels[labels.length - 1][sets[sets.length - 1].add(source)] = of;
    }
    for (const set of sets) set.compile();
    return new PatternSet(sets, labels);
  }

  labelsIn(text: string): Set<number> {
    const found = new Set<number>();
    this.sets.forEach((set, s) => {
      for (const i of set.match(text)) for (const label of this.labels[s][i]) found.add(label);
    });
    return found;
  }
}
