/**
 * How an operation declares its JSON body: a field map in a compact notation (`FieldSpec`), turned once into the JSON
 * Schema (draft 2020-12) that is the contract. The JSON Schema is what ajv compiles to validate a request
 * (http/body-check.ts), what the served OpenAPI description shows (control/served-openapi.ts) and what the surface
 * test compares with the platform's published files. The notation only keeps declarations short and close to the
 * platform's documented limits; it adds nothing JSON Schema cannot say, except the `x-` keywords below, whose
 * checks ajv runs as custom keywords:
 * - `x-type`: the Laravel type the platform coerces from (`boolean` takes true/false/0/1 and their strings,
 *   `integer` takes digit strings), which picks the sentence of a type error;
 * - `x-url`: a URL (`"called"`: one the emulator calls, so without credentials);
 * - `x-max-kb`: an object's serialized size limit;
 * - `x-message`: the platform's sentence for a pattern that does not match;
 * - `x-filled`: a present value may not be empty (updates).
 */

export interface FieldSpec {
  /** Absent, null, "" or [] fails with "field is required". */
  required?: boolean;
  /** Present but empty fails with "field must have a value" (updates). */
  filled?: boolean;
  type?: "string" | "boolean" | "integer" | "number" | "object" | "array";
  /** Characters for strings (code points: emoji count once), items for arrays. */
  max?: number;
  /** Arrays: the fewest items a present array may have (the reference's `minItems`). */
  minItems?: number;
  /** Arrays: the most items it may have (a documented per-call maximum). */
  maxItems?: number;
  /** Objects: the only keys allowed (the reference's `additionalProperties: false`). */
  keys?: readonly string[];
  /** Serialized size limit for objects. */
  maxKb?: number;
  in?: readonly string[];
  /** A URL; `"called"`: one the emulator calls, so without credentials (util/called-url.ts). */
  url?: boolean | "called";
  pattern?: RegExp;
  patternMessage?: string;
  items?: FieldSpec;
  /** What the field is, for the served description. */
  description?: string;
}

/** A body's fields by name. */
export type Schema = Record<string, FieldSpec>;

export type JsonSchema = { [keyword: string]: unknown };

/** The values the platform's Laravel validation takes for a boolean. */
export const BOOLEAN_VALUES = [true, false, 0, 1, "true", "false", "0", "1"] as const;

/** One field's JSON Schema. `null` is allowed where the platform lets an optional field be null. */
export function fieldSchema(spec: FieldSpec, optional = !spec.required && !spec.filled): JsonSchema {
  const out: JsonSchema = {};
  const types: string[] = [];
  switch (spec.type) {
    case "string":
      types.push("string");
      if (spec.max !== undefined) out.maxLength = spec.max;
      if (spec.required || spec.filled) out.minLength = 1;
      if (spec.url) out["x-url"] = spec.url;
      if (spec.pattern) {
        out.pattern = spec.pattern.source;
        if (spec.patternMessage) out["x-message"] = spec.patternMessage;
      }
      break;
    case "boolean":
      out["x-type"] = "boolean";
      out.enum = optional ? [...BOOLEAN_VALUES, null] : [...BOOLEAN_VALUES];
      break;
    case "integer":
      out["x-type"] = "integer";
      types.push("integer", "string");
      out.pattern = "^-?\\d+$";
      break;
    case "number":
      types.push("number");
      break;
    case "object":
      types.push("object");
      if (spec.maxKb !== undefined) out["x-max-kb"] = spec.maxKb;
      if (spec.keys) {
        out.properties = Object.fromEntries(spec.keys.map((k) => [k, {}]));
        out.additionalProperties = false;
      }
      break;
    case "array": {
      types.push("array");
      const most = Math.min(spec.max ?? Infinity, spec.maxItems ?? Infinity);
      if (most !== Infinity) out.maxItems = most;
      const least = Math.max(spec.minItems ?? 0, spec.required || spec.filled ? 1 : 0);
      if (least > 0) out.minItems = least;
      if (spec.items) out.items = fieldSchema(spec.items);
      break;
    }
  }
  // Required (or filled) means not empty whatever the type: null, "" and [] count as absent (Laravel's rule).
  if (spec.type === undefined && (spec.required || spec.filled)) out.not = { enum: [null, "", []] };
  if (spec.filled) out["x-filled"] = true;
  if (spec.in) out.enum = optional ? [...spec.in, null] : [...spec.in];
  if (types.length > 0) {
    if (optional) types.push("null");
    out.type = types.length === 1 ? types[0] : types;
  }
  if (spec.description) out.description = spec.description;
  return out;
}

/** A body's JSON Schema: an object with the declared fields; other fields are allowed (the platform ignores them). */
export function bodySchema(schema: Schema): JsonSchema {
  const required = Object.keys(schema).filter((name) => schema[name].required);
  return {
    type: "object",
    properties: Object.fromEntries(Object.entries(schema).map(([name, spec]) => [name, fieldSchema(spec)])),
    ...(required.length > 0 && { required }),
  };
}
