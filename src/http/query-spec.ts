import { badRequest, keyedMap, type Details } from "./errors.js";
import type { JsonSchema } from "./schema.js";

/**
 * How an operation declares its query parameters, and their parsing with the platform's coercions: booleans as
 * true/false/1/0 (any case), integers with a default and bounds, lists comma-separated or repeated (also `name[]`),
 * a value or a list of values from a set, and integer bounds written `name[op]` (`createdAt[from]`). A query
 * string is text, so these coercions are the contract (JSON Schema says only what the values become); every
 * parameter is parsed and checked before the handler runs, and the problems are answered together as one 400.
 */

export type QueryParam =
  | { kind: "string"; required?: boolean; max?: number; description?: string }
  | { kind: "boolean"; optional?: boolean; description?: string }
  | { kind: "integer"; def?: number; min?: number; max?: number; description?: string }
  | { kind: "list"; allowed?: readonly string[]; description?: string }
  | { kind: "oneOf"; allowed: readonly string[]; description?: string }
  | { kind: "bounds"; ops: readonly string[]; description?: string };

export type QuerySpec = Record<string, QueryParam>;

/** What a parameter parses to. */
type Parsed<P extends QueryParam> = P extends { kind: "string"; required: true }
  ? string
  : P extends { kind: "string" }
  ? string | undefined
  : P extends { kind: "boolean"; optional: true }
    ? boolean | undefined
    : P extends { kind: "boolean" }
    ? boolean
    : P extends { kind: "integer"; def: number }
      ? number
      : P extends { kind: "integer" }
        ? number | undefined
        : P extends { kind: "list"; allowed: readonly (infer T)[] }
          ? T[] | undefined
          : P extends { kind: "list" }
            ? string[] | undefined
            : P extends { kind: "oneOf"; allowed: readonly (infer T)[] }
              ? T | undefined
              : P extends { kind: "bounds"; ops: readonly (infer K extends string)[] }
                ? Partial<Record<K, number>> | undefined
                : never;

export type ParsedQuery<Q extends QuerySpec> = { [K in keyof Q]: Parsed<Q[K]> };

/** The declaration's builders. */
export const q = {
  /** A text parameter; `required` refuses it absent or empty, `max` longer than that many characters. */
  str: <const O extends { required?: boolean; max?: number; description?: string }>(o: O | string = {} as O) =>
    (typeof o === "string" ? { kind: "string", description: o } : { kind: "string", ...o }) as { kind: "string" } & (O extends string ? object : O),
  bool: (description?: string) => ({ kind: "boolean", description }) as const,
  /** A boolean that filters only when given: absent (or empty) parses to undefined rather than false. */
  optBool: (description?: string) => ({ kind: "boolean", optional: true, description }) as const,
  int: <const O extends { def?: number; min?: number; max?: number; description?: string }>(o: O = {} as O) => ({ kind: "integer", ...o }) as const,
  list: (description?: string) => ({ kind: "list", description }) as const,
  listOf: <const T extends string>(allowed: readonly T[], description?: string) => ({ kind: "list", allowed, description }) as const,
  oneOf: <const T extends string>(allowed: readonly T[], description?: string) => ({ kind: "oneOf", allowed, description }) as const,
  bounds: <const K extends string>(ops: readonly K[], description?: string) => ({ kind: "bounds", ops, description }) as const,
};

/**
 * The parameter names a spec reads (a list also as `name[]`, bounds as `name[op]`), for request advice (on the REST
 * and management planes, where the SDK's `per_page` alias is not read).
 */
export function queryNames(spec: QuerySpec): Set<string> {
  const names = new Set<string>();
  for (const [name, p] of Object.entries(spec)) {
    names.add(name);
    if (p.kind === "list") names.add(`${name}[]`);
    if (p.kind === "bounds") for (const op of p.ops) names.add(`${name}[${op}]`);
  }
  return names;
}

/**
 * Parses `params` (every value of each name) by `spec`; throws one 400 ERR_BAD_REQUEST with every problem.
 * `aliasPerPage`: on the client plane the SDK pages with `per_page`, which stands for `perPage` and `limit` there.
 */
export function parseQuery<Q extends QuerySpec>(spec: Q, params: Record<string, string[]> | undefined, aliasPerPage: boolean): ParsedQuery<Q> {
  const out: Record<string, unknown> = {};
  const details: Details = keyedMap();
  const fail = (name: string, message: string) => void (details[name] ??= []).push(message);
  for (const name in spec) out[name] = readParam(name, spec[name] as QueryParam, params, aliasPerPage, fail);
  if (Object.keys(details).length > 0) throw badRequest(details);
  return out as ParsedQuery<Q>;
}

/**
 * One parameter of `params` as `p` says, with the platform's coercions; its problems go to `fail` (the declared
 * parse above, and the control plane's `Query` reader, http/validate.ts, collect them into one 400).
 */
export function readParam(
  name: string,
  p: QueryParam,
  params: Record<string, string[]> | undefined,
  aliasPerPage: boolean,
  fail: (name: string, message: string) => void,
): unknown {
  const raw = (name: string): string | undefined => {
    const v = params?.[name]?.[0];
    if (v === undefined && aliasPerPage && (name === "perPage" || name === "limit")) return params?.per_page?.[0];
    return v;
  };
  const integer = (name: string): number | undefined => {
    const v = raw(name);
    if (v === undefined || v === "") return undefined;
    if (/^-?\d+$/.test(v)) return Number(v);
    fail(name, `The ${name} must be an integer.`);
    return undefined;
  };
  switch (p.kind) {
    case "string": {
      const v = raw(name);
      if (p.required && (v === undefined || v === "")) fail(name, `The ${name} field is required.`);
      else if (p.max !== undefined && v !== undefined && [...v].length > p.max) fail(name, `The ${name} may not be greater than ${p.max} characters.`);
      return v === "" ? undefined : v;
    }
    case "boolean": {
      const v = raw(name)?.toLowerCase();
      if (v !== undefined && v !== "" && v !== "true" && v !== "false" && v !== "1" && v !== "0") fail(name, `The ${name} field must be true or false.`);
      return p.optional && (v === undefined || v === "") ? undefined : v === "true" || v === "1";
    }
    case "integer": {
      const n = integer(name);
      if (n !== undefined && p.min !== undefined && n < p.min) fail(name, `The ${name} must be at least ${p.min}.`);
      else if (n !== undefined && p.max !== undefined && n > p.max) fail(name, `The ${name} may not be greater than ${p.max}.`);
      return n ?? p.def;
    }
    case "list": {
      const values = [...(params?.[name] ?? []), ...(params?.[`${name}[]`] ?? [])];
      const items = values.flatMap((v) => v.split(",")).map((s) => s.trim()).filter((s) => s.length > 0);
      if (p.allowed) items.forEach((v, i) => p.allowed!.includes(v) || fail(`${name}.${i}`, `The selected ${name}.${i} is invalid.`));
      return items.length > 0 ? items : undefined;
    }
    case "oneOf": {
      const v = raw(name);
      if (v !== undefined && v !== "" && !p.allowed.includes(v)) fail(name, `The selected ${name} is invalid.`);
      return v !== undefined && v !== "" && p.allowed.includes(v) ? v : undefined;
    }
    case "bounds": {
      const b: Record<string, number> = {};
      let given = false;
      for (const op of p.ops) {
        const n = integer(`${name}[${op}]`);
        if (n !== undefined) [b[op], given] = [n, true];
      }
      return given ? b : undefined;
    }
  }
}

/** The parameters as OpenAPI describes them (query strings, with the coercions as types). */
export function queryParameters(spec: QuerySpec): JsonSchema[] {
  return Object.entries(spec).flatMap(([name, p]): JsonSchema[] => {
    const doc = p.description ? { description: p.description } : {};
    switch (p.kind) {
      case "string":
        return [{ name, in: "query", ...(p.required && { required: true }), schema: { type: "string", ...(p.max !== undefined && { maxLength: p.max }) }, ...doc }];
      case "boolean":
        return [{ name, in: "query", schema: { type: "boolean" }, ...doc }];
      case "integer":
        return [{ name, in: "query", schema: { type: "integer", ...(p.def !== undefined && { default: p.def }), ...(p.min !== undefined && { minimum: p.min }), ...(p.max !== undefined && { maximum: p.max }) }, ...doc }];
      case "list":
        return [{ name, in: "query", style: "form", explode: false, schema: { type: "array", items: { type: "string", ...(p.allowed && { enum: [...p.allowed] }) } }, ...doc }];
      case "oneOf":
        return [{ name, in: "query", schema: { type: "string", enum: [...p.allowed] }, ...doc }];
      case "bounds":
        return p.ops.map((op) => ({ name: `${name}[${op}]`, in: "query", schema: { type: "integer" }, ...doc }));
    }
  });
}
