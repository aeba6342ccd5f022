import { backwards, pageMatching, type Pagination } from "../../http/pagination.js";
import type { AppState } from "../../store/app-state.js";
import { touchedAt, type GroupSort } from "../../store/groups.js";
import { unionOf } from "../../store/multimap.js";
import type { GroupRecord, GroupType, UserRecord } from "../../store/types.js";
import { inRange, type Range } from "../../http/validate.js";

/** The `membersCount[op]` comparisons (the reference declares gte, lte, eq; its text also names gt and lt). */
export const COUNT_OPS = ["gte", "lte", "eq", "gt", "lt"] as const;

function countMatches(n: number, c: Partial<Record<(typeof COUNT_OPS)[number], number>>): boolean {
  return (
    (c.gte === undefined || n >= c.gte) &&
    (c.lte === undefined || n <= c.lte) &&
    (c.eq === undefined || n === c.eq) &&
    (c.gt === undefined || n > c.gt) &&
    (c.lt === undefined || n < c.lt)
  );
}

export interface GroupFilters {
  searchKey?: string;
  searchIn?: ("name" | "guid")[];
  types?: GroupType[];
  tags?: string[];
  /** Only these groups (`guid`, `guids`). */
  guids?: string[];
  createdAt?: Range;
  /** `updatedAt[from|to]`: only groups updated since their creation. */
  updatedAtRange?: Range;
  membersCount?: Partial<Record<(typeof COUNT_OPS)[number], number>>;
  /** Only groups this user is a member of. */
  joinedBy?: UserRecord;
  /** Private groups only if this user is a member (the client plane's list). */
  hidePrivateFrom?: UserRecord;
  /** Cursor: groups touched after (`append`) or before (`prepend`) this time. */
  updatedAt?: number;
  affix: "append" | "prepend";
  sortBy: GroupSort;
  sortOrder: "asc" | "desc";
  perPage: number;
  page: number;
}

/**
 * Groups in list order, filtered and paged. Candidates come from the narrowest index (the user's groups, search
 * prefix ranges, tag or type sets, the cursor's time range); only the unfiltered case walks a sorted index, and
 * then only to the end of the page.
 */
export function listGroups(app: AppState, f: GroupFilters): { groups: GroupRecord[]; pagination: Pagination } {
  const g = app.groups;
  const order = g.sorted[f.sortBy];
  let candidates: GroupRecord[] | undefined;
  if (f.guids) {
    candidates = unionOf([f.guids.map((guid) => g.get(guid.toLowerCase())).filter((x): x is GroupRecord => x !== undefined)]);
  } else if (f.joinedBy) {
    candidates = [...g.groupsOf(f.joinedBy.uid).keys()].map((guid) => g.get(guid)!);
  } else if (f.searchKey) {
    const key = f.searchKey.toLowerCase();
    const fields = f.searchIn?.length ? f.searchIn : (["name", "guid"] as const);
    candidates = unionOf(
      fields.map((field) =>
        field === "name" ? g.sorted.name.withPrefix(key, (x) => x.name.toLowerCase()) : g.sorted.guid.withPrefix(key, (x) => x.guid),
      ),
    );
  } else if (f.tags?.length) {
    candidates = unionOf(f.tags.map((t) => g.byTag.get(t)));
  } else if (f.types?.length) {
    candidates = unionOf(f.types.map((t) => g.byType.get(t)));
  } else if (f.updatedAt !== undefined) {
    const at = g.byTouched.search((x) => touchedAt(x) > f.updatedAt!);
    const all = g.byTouched.values();
    candidates = f.affix === "append" ? all.slice(at) : all.slice(0, g.byTouched.search((x) => touchedAt(x) >= f.updatedAt!));
  }

  const key = f.searchKey?.toLowerCase();
  const types = f.types?.length ? new Set(f.types) : undefined;
  const matches = (x: GroupRecord): boolean => {
    if (key) {
      const fields = f.searchIn?.length ? f.searchIn : ["name", "guid"];
      if (!fields.some((field) => (field === "name" ? x.name.toLowerCase() : x.guid).startsWith(key))) return false;
    }
    if (types && !types.has(x.type)) return false;
    if (f.tags?.length && !f.tags.some((t) => x.tags.includes(t))) return false;
    if (f.updatedAt !== undefined && (f.affix === "append" ? touchedAt(x) <= f.updatedAt : touchedAt(x) >= f.updatedAt)) return false;
    if (f.joinedBy && !g.member(x.guid, f.joinedBy.uid)) return false;
    if (f.hidePrivateFrom && x.type === "private" && !g.member(x.guid, f.hidePrivateFrom.uid)) return false;
    if (f.createdAt && !inRange(x.createdAt, f.createdAt)) return false;
    if (f.updatedAtRange && !(x.updatedAt !== x.createdAt && inRange(x.updatedAt, f.updatedAtRange))) return false;
    if (f.membersCount && !countMatches(g.membersCount(x.guid), f.membersCount)) return false;
    return true;
  };

  const hidesPrivate = f.hidePrivateFrom !== undefined && (g.byType.get("private")?.size ?? 0) > 0;
  const filtered =
    candidates !== undefined || f.createdAt !== undefined || f.updatedAtRange !== undefined || f.membersCount !== undefined || hidesPrivate;
  let ordered: Iterable<GroupRecord>;
  if (candidates) {
    candidates.sort(order.compare);
    ordered = f.sortOrder === "asc" ? candidates : backwards(candidates);
  } else {
    ordered = f.sortOrder === "asc" ? order.values() : backwards(order.values());
  }
  const { items, pagination } = pageMatching(ordered, filtered ? matches : undefined, f.perPage, f.page, filtered ? undefined : g.size);
  return { groups: items, pagination };
}
