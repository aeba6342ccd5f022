/** Map-of-sets helpers for the secondary indexes (role -> users, tag -> groups, ...); empty sets are dropped. */

export function addTo<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(value);
}

export function removeFrom<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(value);
  if (set.size === 0) map.delete(key);
}

/** The distinct items of several sets (missing ones skipped), in first-seen order. */
export function unionOf<T>(sets: (Iterable<T> | undefined)[]): T[] {
  const seen = new Set<T>();
  for (const s of sets) if (s) for (const item of s) seen.add(item);
  return [...seen];
}
