import type { AppState } from "../../store/app-state.js";
import type { UserRecord } from "../../store/types.js";
import { pagination, type Pagination } from "../../http/pagination.js";

export interface UserFilters {
  searchKey?: string;
  searchIn?: ("name" | "uid")[];
  status?: "available" | "offline";
  roles?: string[];
  tags?: string[];
  deactivated: "exclude" | "include" | "only";
  perPage: number;
  page: number;
  /** Extra per-user condition (e.g. friends-only listing for a role). */
  allow?: (u: UserRecord) => boolean;
}

function prefixRange(app: AppState, field: "name" | "uid", key: string): readonly UserRecord[] {
  const index = field === "name" ? app.usersByName : app.usersByUid;
  const value = (u: UserRecord) => (field === "name" ? u.name.toLowerCase() : u.uid);
  const out: UserRecord[] = [];
  for (let i = index.search((u) => value(u) >= key); i < index.size; i++) {
    const u = index.at(i);
    if (!value(u).startsWith(key)) break;
    out.push(u);
  }
  return out;
}

function union(sets: (Iterable<UserRecord> | undefined)[]): UserRecord[] {
  const seen = new Set<UserRecord>();
  for (const s of sets) if (s) for (const u of s) seen.add(u);
  return [...seen];
}

/**
 * Users in list order, filtered and paged. The candidates come from the narrowest index (search prefix ranges,
 * role or tag sets); only the unfiltered case walks the name index, and then only to the end of the page.
 */
export function listUsers(app: AppState, f: UserFilters): { users: UserRecord[]; pagination: Pagination } {
  const byName = (a: UserRecord, b: UserRecord) => app.usersByName.compare(a, b);
  let candidates: readonly UserRecord[];
  let ordered = false;
  if (f.searchKey) {
    const key = f.searchKey.toLowerCase();
    const fields = f.searchIn?.length ? f.searchIn : (["name", "uid"] as const);
    candidates = union(fields.map((field) => prefixRange(app, field, key))).sort(byName);
  } else if (f.roles?.length) {
    candidates = union(f.roles.map((r) => app.usersByRole.get(r))).sort(byName);
  } else if (f.tags?.length) {
    candidates = union(f.tags.map((t) => app.usersByTag.get(t))).sort(byName);
  } else {
    candidates = app.usersByName.values();
    ordered = true;
  }

  const roles = f.roles?.length ? new Set(f.roles) : undefined;
  const tags = f.tags?.length ? f.tags : undefined;
  const matches = (u: UserRecord): boolean => {
    const deactivated = u.deactivatedAt !== undefined;
    if (f.deactivated === "exclude" ? deactivated : f.deactivated === "only" ? !deactivated : false) return false;
    if (f.status && u.status !== f.status) return false;
    if (roles && !roles.has(u.role)) return false;
    if (tags && !tags.some((t) => u.tags.includes(t))) return false;
    if (f.allow && !f.allow(u)) return false;
    return true;
  };

  const start = (f.page - 1) * f.perPage;
  const end = start + f.perPage;
  const users: UserRecord[] = [];
  // Unfiltered (but for deactivation) the total is a counter, so the walk stops at the page's end.
  const knownTotal =
    ordered && !f.status && !f.allow
      ? f.deactivated === "exclude"
        ? app.activeUserCount
        : f.deactivated === "only"
          ? app.deactivatedCount
          : app.usersByName.size
      : undefined;
  let seen = 0;
  for (const u of candidates) {
    if (!matches(u)) continue;
    if (seen >= start && seen < end) users.push(u);
    seen++;
    if (knownTotal !== undefined && seen >= end) break;
  }
  const total = knownTotal ?? seen;
  return { users, pagination: pagination(total, users.length, f.perPage, f.page) };
}
