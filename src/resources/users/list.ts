import type { AppState } from "../../store/app-state.js";
import { unionOf } from "../../store/multimap.js";
import type { UserRecord } from "../../store/types.js";
import { pageMatching, type Pagination } from "../../http/pagination.js";
import { inRange, type Range } from "../../http/validate.js";

export interface UserFilters {
  searchKey?: string;
  searchIn?: ("name" | "uid")[];
  /** Any of these statuses (`status` is comma-separated). */
  statuses?: readonly ("available" | "offline")[];
  createdAt?: Range;
  /** Users without an update count as updated when created (as lists show them). */
  updatedAt?: Range;
  roles?: string[];
  tags?: string[];
  deactivated: "exclude" | "include" | "only";
  perPage: number;
  page: number;
  /** Only these users (e.g. the requester's friends, for a friends-only role). */
  among?: Iterable<UserRecord>;
  /** Not these uids (e.g. the users the requester blocked). */
  hidden?: ReadonlyMap<string, unknown>;
}

function prefixRange(app: AppState, field: "name" | "uid", key: string): readonly UserRecord[] {
  return field === "name" ? app.usersByName.withPrefix(key, (u) => u.name.toLowerCase()) : app.usersByUid.withPrefix(key, (u) => u.uid);
}

/**
 * Users in list order, filtered and paged. The candidates come from the narrowest index (search prefix ranges,
 * role or tag sets); only the unfiltered case walks the name index, and then only to the end of the page.
 */
export function listUsers(app: AppState, f: UserFilters): { users: UserRecord[]; pagination: Pagination } {
  const byName = (a: UserRecord, b: UserRecord) => app.usersByName.compare(a, b);
  let candidates: readonly UserRecord[];
  let ordered = false;
  if (f.among) {
    candidates = [...f.among].sort(byName);
  } else if (f.searchKey) {
    const key = f.searchKey.toLowerCase();
    const fields = f.searchIn?.length ? f.searchIn : (["name", "uid"] as const);
    candidates = unionOf(fields.map((field) => prefixRange(app, field, key))).sort(byName);
  } else if (f.roles?.length) {
    candidates = unionOf(f.roles.map((r) => app.usersByRole.get(r))).sort(byName);
  } else if (f.tags?.length) {
    candidates = unionOf(f.tags.map((t) => app.usersByTag.get(t))).sort(byName);
  } else {
    candidates = app.usersByName.values();
    ordered = true;
  }

  const roles = f.roles?.length ? new Set(f.roles) : undefined;
  const tags = f.tags?.length ? f.tags : undefined;
  const matches = (u: UserRecord): boolean => {
    const deactivated = u.deactivatedAt !== undefined;
    if (f.deactivated === "exclude" ? deactivated : f.deactivated === "only" ? !deactivated : false) return false;
    if (f.statuses && !f.statuses.includes(u.status)) return false;
    if (f.createdAt && !inRange(u.createdAt, f.createdAt)) return false;
    if (f.updatedAt && !inRange(u.updatedAt ?? u.createdAt, f.updatedAt)) return false;
    if (roles && !roles.has(u.role)) return false;
    if (tags && !tags.some((t) => u.tags.includes(t))) return false;
    if (f.hidden?.has(u.uid)) return false;
    return true;
  };

  // Unfiltered (but for deactivation) the total is a counter, so the walk stops at the page's end.
  const knownTotal =
    ordered && !f.statuses && !f.createdAt && !f.updatedAt && !f.hidden?.size
      ? f.deactivated === "exclude"
        ? app.activeUserCount
        : f.deactivated === "only"
          ? app.deactivatedCount
          : app.usersByName.size
      : undefined;
  const { items, pagination } = pageMatching(candidates, matches, f.perPage, f.page, knownTotal);
  return { users: items, pagination };
}
