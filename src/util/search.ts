/** Position of the first item that satisfies `atOrAfter`, which must be monotone over the list's order. */
export function firstWhere<T>(list: readonly T[], atOrAfter: (item: T) => boolean): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (atOrAfter(list[mid])) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
