import { readFileSync } from "node:fs";
import { DECLARED, type Operation, type OperationPlane } from "../src/http/operation.js";

/**
 * The served surface against the published API (test/surface.test.ts, `npm run surface:review`): which published
 * operations (catalogue/published-operations.json, scripts/gen-catalogue.mjs) are declared, which are listed as
 * deliberately not served (catalogue/not-served.json), whether declared ids are the published operationIds, and
 * which body fields and query parameters the two sides name differently (reviewed in catalogue/differences.json).
 */

export type Api = "chat" | "management" | "calls" | "data-import" | "campaigns";

export interface Published {
  api: Api;
  id: string | null;
  method: string;
  path: string;
  query?: Record<string, string>;
  headers?: string[];
  media?: string;
  body?: Record<string, string>;
}

export interface NotServed {
  api: Api;
  method: string;
  path: string;
  reason: string;
}

/** Per operation key (`key(op)`): the reviewed differences, name → reason; `id`: why the declared id differs. */
export type Differences = Record<string, { id?: string; body?: Record<string, string>; query?: Record<string, string> }>;

export const PLANE_OF: Record<Api, OperationPlane> = {
  chat: "rest",
  management: "management",
  calls: "calls",
  "data-import": "data-import",
  campaigns: "campaigns",
};

const CATALOGUE = new URL("../catalogue/", import.meta.url);
const readJson = <T>(name: string): T => JSON.parse(readFileSync(new URL(name, CATALOGUE), "utf8")) as T;

export const published = () => readJson<{ operations: Published[] }>("published-operations.json").operations;
export const notServed = () => readJson<NotServed[]>("not-served.json");
export const reviewed = () => readJson<Differences>("differences.json");

/** The key an operation goes by in the reviewed lists and the test's output: `chat POST /users`. */
export const key = (p: { api: string; method: string; path: string }) => `${p.api} ${p.method} ${p.path}`;

const segments = (path: string) => path.split("/").filter(Boolean);
const isParam = (s: string) => s.startsWith(":") || /^\{[^}]+\}$/.test(s);

/**
 * How well a declared path serves a published one: undefined when it does not; else the number of literal segments
 * both name (the best match wins). Parameters match whatever their names (`{uid}` ≡ `:id`); a declared parameter
 * may stand for a published literal segment (one declaration serving several published paths).
 */
export function pathScore(declared: string, published: string): number | undefined {
  const d = segments(declared);
  const p = segments(published);
  if (d.length !== p.length) return undefined;
  let literal = 0;
  for (let i = 0; i < d.length; i++) {
    if (isParam(d[i])) continue;
    if (isParam(p[i]) || d[i] !== p[i]) return undefined;
    literal++;
  }
  return literal;
}

/** The declaration that serves a published operation, if any. */
export function declarationOf(p: Published, declared: readonly Operation[] = DECLARED): Operation | undefined {
  let best: Operation | undefined;
  let bestScore = -1;
  for (const op of declared) {
    if (op.plane !== PLANE_OF[p.api] || op.method !== p.method) continue;
    const score = pathScore(op.path, p.path);
    if (score !== undefined && score > bestScore) [best, bestScore] = [op, score];
  }
  return best;
}

/** The query parameter names a declaration states (a list's `name[]` and the per-page alias are spellings, not names). */
function declaredQuery(op: Operation): Set<string> {
  const names = new Set<string>();
  for (const [name, spec] of Object.entries(op.query ?? {})) {
    if (spec.kind === "bounds") for (const o of spec.ops) names.add(`${name}[${o}]`);
    else names.add(name);
  }
  return names;
}

export interface Difference {
  key: string;
  in: "body" | "query";
  name: string;
  /** Which side names it: the published file (the declaration lacks it) or the declaration. */
  side: "published" | "declared";
}

/**
 * The body fields and query parameters one side names and the other lacks. A `"raw"` body (multipart, forms, files)
 * is read by the handler itself: its fields are not compared.
 */
export function differences(p: Published, op: Operation): Difference[] {
  const out: Difference[] = [];
  const k = key(p);
  const compare = (where: "body" | "query", pub: Iterable<string>, decl: Set<string>, declAll: Set<string>) => {
    const pubSet = new Set(pub);
    for (const name of pubSet) if (!declAll.has(name)) out.push({ key: k, in: where, name, side: "published" });
    for (const name of decl) if (!pubSet.has(name)) out.push({ key: k, in: where, name, side: "declared" });
  };
  if (op.body !== "raw") compare("body", Object.keys(p.body ?? {}), new Set(op.bodyNames), new Set(op.bodyNames));
  compare("query", Object.keys(p.query ?? {}), declaredQuery(op), new Set([...op.queryNames, ...declaredQuery(op)]));
  return out;
}

export const TODO = "TODO: review";

export interface Surface {
  /** Published operations neither declared nor listed as not served. */
  missing: Published[];
  /** not-served.json entries that are declared after all, or name no published operation. */
  staleNotServed: NotServed[];
  /** Declared ids that are not the published operationId (and not reviewed). */
  wrongIds: { key: string; declared: string; published: string | null }[];
  /** Declarations of published operations without an id: key → the published operationId to fill in. */
  missingIds: Record<string, string | null>;
  /** Differences not in differences.json. */
  unreviewed: Difference[];
  /** differences.json entries that are no longer differences (or whose operation is not declared and published). */
  stale: string[];
  /** Reviewed entries (differences, not-served) whose reason is empty or still reads "TODO". */
  todo: string[];
}

const unwritten = (why: string | undefined) => why !== undefined && (why.trim() === "" || why.startsWith("TODO"));

export function surface(
  ops: readonly Published[] = published(),
  skipped: readonly NotServed[] = notServed(),
  review: Differences = reviewed(),
  declared: readonly Operation[] = DECLARED,
): Surface {
  const out: Surface = { missing: [], staleNotServed: [], wrongIds: [], missingIds: {}, unreviewed: [], stale: [], todo: [] };
  const skippedKeys = new Set(skipped.map(key));
  const found = new Map<string, { p: Published; op: Operation }>();
  for (const p of ops) {
    const op = declarationOf(p, declared);
    if (op) found.set(key(p), { p, op });
    else if (!skippedKeys.has(key(p))) out.missing.push(p);
  }
  const publishedKeys = new Set(ops.map(key));
  for (const s of skipped) if (found.has(key(s)) || !publishedKeys.has(key(s))) out.staleNotServed.push(s);

  for (const [k, { p, op }] of found) {
    const r = review[k];
    if (op.id === undefined) out.missingIds[k] = p.id;
    else if (op.id !== p.id && !r?.id) out.wrongIds.push({ key: k, declared: op.id, published: p.id });
    else if (op.id === p.id && r?.id) out.stale.push(`${k} id`);
    const diffs = differences(p, op);
    for (const d of diffs) if (!r?.[d.in]?.[d.name]) out.unreviewed.push(d);
    for (const where of ["body", "query"] as const)
      for (const name of Object.keys(r?.[where] ?? {}))
        if (!diffs.some((d) => d.in === where && d.name === name)) out.stale.push(`${k} ${where} ${name}`);
  }
  for (const [k, r] of Object.entries(review)) {
    if (!found.has(k)) out.stale.push(`${k} (not a declared published operation)`);
    if ([r.id, ...Object.values(r.body ?? {}), ...Object.values(r.query ?? {})].some(unwritten)) out.todo.push(k);
  }
  for (const n of skipped) if (unwritten(n.reason ?? "")) out.todo.push(`${key(n)} (not served)`);
  return out;
}

/** JSON skeletons to paste into the reviewed lists, reasons to be written ("TODO: review" is never accepted). */
export function skeletons(s: Surface) {
  const differencesSkeleton: Differences = {};
  for (const d of s.unreviewed) {
    const entry = (differencesSkeleton[d.key] ??= {});
    const side = d.side === "published" ? "the published file names it, the declaration lacks it" : "the declaration names it, the published file does not";
    (entry[d.in] ??= {})[d.name] = `${TODO} (${side})`;
  }
  for (const w of s.wrongIds) (differencesSkeleton[w.key] ??= {}).id = `${TODO} (declared ${w.declared}, published ${w.published})`;
  return {
    notServed: s.missing.map((p) => ({ api: p.api, method: p.method, path: p.path, reason: `${TODO} (${p.id ?? "no operationId"})` })),
    differences: differencesSkeleton,
    missingIds: s.missingIds,
  };
}
