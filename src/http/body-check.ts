import { createRequire } from "node:module";
import type { ErrorObject, ValidateFunction } from "ajv";
import type { Ajv2020 } from "ajv/dist/2020.js";
import { badRequest, keyedMap, type Details } from "./errors.js";
import { bodySchema, type JsonSchema, type Schema } from "./schema.js";
import { CREDENTIALS_REFUSED, holdsCredentials } from "../util/called-url.js";

/**
 * Body validation: a declared body's JSON Schema (http/schema.ts), compiled by ajv into a validator function the
 * first time its operation is called (ajv itself is loaded then too, synchronously: start-up pays nothing), and
 * ajv's errors turned into the platform's Laravel sentences, collected per field into the 400's `details` in the
 * declaration's order. It is the one validator: conditional and per-item checks use it too (`checkFields`).
 *
 * ajv was chosen over TypeBox and Zod because the declaration is JSON Schema (served as OpenAPI and compared with
 * the platform's published files without a conversion), and a compiled ajv validator is the fastest check there is
 * on a request that passes; the sentences are built only for a request that fails.
 */

type Compiled = ValidateFunction & { order?: Map<string, number> };

let ajv: Ajv2020 | undefined;
const compiled = new WeakMap<JsonSchema, Compiled>();

/** Loaded on first use (ajv's own module costs more at start than the rest of a small route table). */
function compiler(): Ajv2020 {
  if (ajv) return ajv;
  const { Ajv2020: Ajv } = createRequire(import.meta.url)("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js");
  const made = new Ajv({ allErrors: true, verbose: true, strict: false, validateFormats: false });
  made.addKeyword({ keyword: "x-type", schemaType: "string" });
  made.addKeyword({ keyword: "x-message", schemaType: "string" });
  made.addKeyword({ keyword: "x-filled", schemaType: "boolean" });
  made.addKeyword({
    keyword: "x-url",
    schemaType: ["boolean", "string"],
    type: "string",
    errors: true,
    validate: function urlCheck(this: unknown, kind: boolean | string, value: string) {
      const ok = URL_PATTERN.test(value) && !(kind === "called" && holdsCredentials(value));
      (urlCheck as { errors?: Partial<ErrorObject>[] }).errors = ok ? [] : [{ keyword: "x-url", params: { called: !URL_PATTERN.test(value) ? false : true } }];
      return ok;
    },
  });
  made.addKeyword({
    keyword: "x-max-kb",
    schemaType: "number",
    type: "object",
    validate: (kb: number, value: object) => Buffer.byteLength(JSON.stringify(value)) <= kb * 1024,
  });
  return (ajv = made);
}

const URL_PATTERN = /^[a-z][a-z0-9+.-]*:\/\/[^\s/?#]+[^\s]*$/i;

/** The validator of `schema`, compiled on its first call and kept (schemas are made once, at module level). */
function validatorOf(schema: JsonSchema): Compiled {
  let fn = compiled.get(schema);
  if (!fn) {
    fn = compiler().compile(schema) as Compiled;
    compiled.set(schema, fn);
  }
  return fn;
}

/** Checks `body` against `schema`; throws the platform's 400 ERR_BAD_REQUEST with every failing field's sentences. */
export function checkBody(body: Record<string, unknown>, schema: JsonSchema): void {
  checkWith(compiled.get(schema) ?? validatorOf(schema), schema, body);
}

function checkWith(fn: ValidateFunction, schema: JsonSchema, body: Record<string, unknown>): void {
  if (!fn(body)) throw badRequest(sentences(body, schema, fn.errors ?? []));
}

const ofFields = new WeakMap<Schema, JsonSchema>();
/** Field maps written inline (a new object per call, the same content): compiled once per content. */
const byContent = new Map<string, JsonSchema>();
const MAX_BY_CONTENT = 500;
const contentKey = (fields: Schema) => JSON.stringify(fields, (_k, v: unknown) => (v instanceof RegExp ? `/${v.source}/${v.flags}` : v));

/**
 * Checks `body` against a field map (http/schema.ts notation) that a declaration cannot state: one chosen by
 * another field's value, an item of a batch, settings whose required fields depend on what is stored. Compiled once
 * per map, and once per content for maps written inline; past a bound of distinct contents, compiled for the call
 * and dropped (ajv would keep every schema it compiled).
 */
export function checkFields(body: Record<string, unknown>, fields: Schema): void {
  let schema = ofFields.get(fields);
  if (!schema) {
    const key = contentKey(fields);
    schema = byContent.get(key);
    if (!schema && byContent.size >= MAX_BY_CONTENT) {
      const once = bodySchema(fields);
      const ajv = compiler();
      try {
        return checkWith(ajv.compile(once), once, body);
      } finally {
        ajv.removeSchema(once);
      }
    }
    if (!schema) byContent.set(key, (schema = bodySchema(fields)));
    ofFields.set(fields, schema);
  }
  return checkBody(body, schema);
}

/** What empty means to the platform's `required` and `filled` rules. */
const isEmpty = (v: unknown) => v === undefined || v === null || v === "" || (Array.isArray(v) && v.length === 0);

/** The order in which the platform reports a field's failures (Laravel runs a field's rules in its rule order). */
const RANK: Record<string, number> = { required: 0, type: 1, enum: 2, maxLength: 3, "x-url": 4, pattern: 5, maxItems: 6, minItems: 7, additionalProperties: 8, "x-max-kb": 3 };

interface Failure {
  /** The field as the platform names it: `tags`, `tags.0`, `metadata.key`. */
  field: string;
  /** The top-level field's place in the declaration, to keep its order in `details`. */
  order: number;
  rank: number;
  message: string;
}

/** A JSON pointer's segments (`/tags/0`: `tags`, `0`). */
const segments = (pointer: string) => (pointer === "" ? [] : pointer.slice(1).split("/").map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~")));

function sentences(body: Record<string, unknown>, schema: JsonSchema, errors: readonly ErrorObject[]): Details {
  const names = Object.keys((schema.properties as object | undefined) ?? {});
  const failures: Failure[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    const path = segments(e.instancePath);
    let field = path.join("."); // the platform's dotted name: `tags.0`
    // A missing field of a nested object (a rule's `conditions.0.value`) is named with the object's path.
    if (e.keyword === "required") field = [field, (e.params as { missingProperty: string }).missingProperty].filter((p) => p !== "").join(".");
    if (e.keyword === "additionalProperties") field = `${field}.${(e.params as { additionalProperty: string }).additionalProperty}`;
    const top = path.length === 0 ? field : path[0];
    const failure = sentence(e, field, valueAt(body, path));
    if (!failure) continue;
    // One sentence per field and rule: a type error can come with others ajv also reports.
    const key = `${failure.field}\u0000${failure.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    failures.push({ field: failure.field, message: failure.message, order: names.indexOf(top), rank: failure.rank ?? RANK[e.keyword] ?? 9 });
  }
  // A field that is required (or must be filled) and empty gets that sentence alone; so does one of the wrong type
  // (the platform checks a field's other rules only on a value of its type).
  const emptied = new Set(failures.filter((f) => f.rank === 0).map((f) => f.field));
  const mistyped = new Set(failures.filter((f) => f.rank === 1).map((f) => f.field));
  const details: Details = keyedMap();
  failures
    .filter((f) => (f.rank === 0 ? true : !emptied.has(f.field) && (f.rank === 1 || !mistyped.has(f.field))))
    .sort((a, b) => a.order - b.order || depth(a.field) - depth(b.field) || itemOf(a.field) - itemOf(b.field) || a.rank - b.rank)
    .forEach((f) => (details[f.field] ??= []).push(f.message));
  return details;
}

const depth = (field: string) => field.split(".").length;
const itemOf = (field: string) => Number(/\.(\d+)(?:\.|$)/.exec(field)?.[1] ?? -1);

function valueAt(body: unknown, path: readonly string[]): unknown {
  let v: unknown = body;
  for (const part of path) v = (v as Record<string, unknown> | undefined)?.[part];
  return v;
}

/** The platform's sentence for one ajv error, or undefined for errors that only accompany another. */
function sentence(e: ErrorObject, field: string, value: unknown): { field: string; message: string; rank?: number } | undefined {
  const s = e.parentSchema as JsonSchema | undefined;
  const filled = s?.["x-filled"] === true;
  const empty = e.keyword !== "required" && e.keyword !== "additionalProperties" && isEmpty(value);
  if (e.keyword === "required") return { field, message: `The ${field} field is required.` };
  if (empty && filled) return { field, message: `The ${field} field must have a value.`, rank: 0 };
  if (empty && !isNullable(s)) return { field, message: `The ${field} field is required.`, rank: 0 };
  const type = (s?.["x-type"] as string | undefined) ?? typeOf(s);
  switch (e.keyword) {
    case "type":
    case "enum":
      if (type === "boolean") return { field, message: `The ${field} field must be true or false.`, rank: 1 };
      if (e.keyword === "enum") return { field, message: `The selected ${field} is invalid.` };
      return { field, message: TYPE_SENTENCE[type ?? ""]?.(field) ?? `The ${field} format is invalid.`, rank: 1 };
    case "pattern":
      if (type === "integer") return { field, message: `The ${field} must be an integer.`, rank: 1 };
      return { field, message: (s?.["x-message"] as string | undefined) ?? `The ${field} format is invalid.` };
    case "maxLength":
      return { field, message: `The ${field} may not be greater than ${e.params.limit} characters.` };
    case "maxItems":
      return { field, message: `The ${field} may not have more than ${e.params.limit} items.` };
    case "minItems":
      return { field, message: `The ${field} must have at least ${e.params.limit} items.` };
    case "minLength":
      return undefined; // only ever 1, for required and filled fields: said above
    case "additionalProperties":
      return { field, message: `The ${field} field is not allowed.` };
    case "x-url":
      return { field, message: e.params.called ? `The ${field} ${CREDENTIALS_REFUSED}.` : `The ${field} must be a valid URL.` };
    case "x-max-kb":
      return { field, message: `The ${field} may not be greater than ${s?.["x-max-kb"]} kilobytes.` };
    default:
      return { field, message: `The ${field} format is invalid.` };
  }
}

/** Whether the schema takes null (an optional field: the platform lets it be null, and it then counts as absent). */
function isNullable(s: JsonSchema | undefined): boolean {
  if (!s) return false;
  const t = s.type;
  return (Array.isArray(t) && t.includes("null")) || (Array.isArray(s.enum) && s.enum.includes(null));
}

function typeOf(s: JsonSchema | undefined): string | undefined {
  const t = s?.type;
  return Array.isArray(t) ? t[0] : (t as string | undefined);
}

const TYPE_SENTENCE: Record<string, (field: string) => string> = {
  string: (f) => `The ${f} must be a string.`,
  integer: (f) => `The ${f} must be an integer.`,
  number: (f) => `The ${f} must be a number.`,
  object: (f) => `The ${f} must be an object.`,
  array: (f) => `The ${f} must be an array.`,
};
