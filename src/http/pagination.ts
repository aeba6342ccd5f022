import { q } from "./query-spec.js";

/** Page-style list envelopes (users, keys, tokens, groups, ...): `meta.pagination` as the platform sends it. */
export interface Pagination {
  total: number;
  count: number;
  per_page: number;
  current_page: number;
  total_pages: number;
}

export function pageOf<T>(items: readonly T[], perPage: number, page: number): { data: T[]; pagination: Pagination } {
  const start = (page - 1) * perPage;
  const data = items.slice(start, start + perPage);
  return { data, pagination: pagination(items.length, data.length, perPage, page) };
}

export function pagination(total: number, count: number, perPage: number, page: number): Pagination {
  return {
    total,
    count,
    per_page: perPage,
    current_page: page,
    total_pages: Math.max(1, Math.ceil(total / perPage)),
  };
}

/**
 * One page of the `candidates` (already in list order) that pass `matches`. When the caller knows the total
 * (no filter beyond what the candidates already are), the walk stops at the end of the page.
 */
export function pageMatching<T>(
  candidates: Iterable<T>,
  matches: ((item: T) => boolean) | undefined,
  perPage: number,
  page: number,
  knownTotal?: number,
): { items: T[]; pagination: Pagination } {
  const start = (page - 1) * perPage;
  const end = start + perPage;
  const items: T[] = [];
  let seen = 0;
  for (const item of candidates) {
    if (matches && !matches(item)) continue;
    if (seen >= start && seen < end) items.push(item);
    seen++;
    if (knownTotal !== undefined && seen >= end) break;
  }
  return { items, pagination: pagination(knownTotal ?? seen, items.length, perPage, page) };
}

/** An array walked from its end, without copying it. */
export function* backwards<T>(items: readonly T[]): Generator<T> {
  for (let i = items.length - 1; i >= 0; i--) yield items[i];
}

/** A page-style list's query parameters, as an operation declares them (http/operation.ts): at most 1000 a page. */
export const pageQuery = <const D extends number>(perPageDefault: D) => ({
  perPage: q.int({ def: perPageDefault, min: 1, max: 1000 }),
  page: q.int({ def: 1, min: 1 }),
});
/** The common default: 100 a page. */
export const PAGE_QUERY = pageQuery(100);
