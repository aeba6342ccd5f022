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
