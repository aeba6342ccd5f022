/**
 * User-supplied regular expressions (moderation patterns, data-masking patterns) run on every message sent, so a
 * pattern that can backtrack exponentially would freeze the emulator. One check for all of them.
 */

const MAX_PATTERN = 500;

/** Why a pattern is refused, or undefined: too long, invalid, back-references, or nested quantifiers. */
export function patternProblem(source: string): string | undefined {
  if (source.length > MAX_PATTERN) return `may not be longer than ${MAX_PATTERN} characters`;
  try {
    new RegExp(source, "u");
  } catch {
    return "is not a valid regular expression";
  }
  if (/\\[1-9]|\\k</.test(source)) return "may not use back-references";
  if (hasNestedQuantifier(source)) return "may not repeat a group that repeats (nested quantifiers)";
  return undefined;
}

export const isSafePattern = (source: string): boolean => patternProblem(source) === undefined;

/** A quantified group that itself holds a quantifier: `(a+)+`, `(\w*)*`, `(x{1,9})+`. */
function hasNestedQuantifier(source: string): boolean {
  const groups: boolean[] = []; // per open group: does it hold a quantifier?
  const mark = () => {
    if (groups.length > 0) groups[groups.length - 1] = true;
  };
  const quantifiedAt = (i: number) => /[*+?{]/.test(source[i] ?? "");
  for (let i = 0; i < source.length; i++) {
    const ch = source[i];
    if (ch === "\\") {
      i++;
      if (quantifiedAt(i + 1)) mark();
    } else if (ch === "[") {
      for (i++; i < source.length && source[i] !== "]"; i++) if (source[i] === "\\") i++;
      if (quantifiedAt(i + 1)) mark();
    } else if (ch === "(") {
      groups.push(false);
      if (source[i + 1] === "?") i++; // (?: (?= (?! (?<name> are group syntax, not quantifiers
    } else if (ch === ")") {
      const inner = groups.pop() ?? false;
      const repeated = /[*+{]/.test(source[i + 1] ?? "");
      if (repeated && inner) return true;
      if (repeated || inner) mark();
    } else if (quantifiedAt(i)) mark();
  }
  return false;
}
