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
