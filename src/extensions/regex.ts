/**
 * Custom data-masking patterns run on every message sent while the extension is on, so a pattern that can
 * backtrack exponentially would freeze the emulator: a quantified group that itself holds a quantifier
 * (`(a+)+`, `(\w*)*`, `(x{1,9})+`) is refused, as are patterns that do not compile or are over 500 characters.
 */
export function isSafePattern(source: string): boolean {
  if (source.length > 500 || hasNestedQuantifier(source)) return false;
  try {
    new RegExp(source, "gu");
    return true;
  } catch {
    return false;
  }
}

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
