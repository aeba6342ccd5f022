import { RE2JS } from "re2js";

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
 * Characters the searches of one masking pass may cover. Finding every match is linear per match, not per text:
 * a search may run to the end of the text before it settles (`a*b|a` over 10 000 `a`s is 10 000 searches of up
 * to 10 000 characters, seconds). Each search is charged the rest of the text; past the budget (about 30 ms of
 * searching) the rest of the text is masked whole. A message under 1 000 characters never reaches it.
 */
export const MASK_SEARCH_BUDGET = 100_000;

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

/** Why patterns used together (one list, one condition, one app's masks) are refused, once each is valid. */
export function listProblem(sources: readonly string[]): string | undefined {
  const total = sources.reduce((sum, s) => sum + compile(s).programSize(), 0);
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
