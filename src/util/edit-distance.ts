/** Levenshtein distance of two short strings, or `limit + 1` once it exceeds `limit` (one row at a time). */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      best = Math.min(best, next[j]);
    }
    if (best > limit) return limit + 1;
    row = next;
  }
  return row[b.length];
}

/** A name as people mean it: case, dashes, underscores and spaces aside (`On-Behalf-Of`, `metaData`). */
export const normalized = (name: string) => name.toLowerCase().replace(/[-_\s]/g, "");

/** The nearest of `known` to `name`: same letters in another case or spelling, else at most two typos away. */
export function nearest(name: string, known: Iterable<string>): string | undefined {
  const n = normalized(name);
  let best: string | undefined;
  let bestDistance = 3;
  for (const k of known) {
    if (k === name) continue;
    const d = normalized(k) === n ? 0 : editDistance(n, normalized(k), 2);
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return best;
}
