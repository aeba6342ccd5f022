import { readFileSync } from "node:fs";
import { PACKAGE_ROOT } from "../paths.js";
import { nearest } from "../util/edit-distance.js";
import { ChunkedArray } from "./state-reader.js";

/**
 * The keys of a seed file that the loader does not know, each with the nearest known key: a typo (`metaData`,
 * `gropus`) would otherwise be dropped without a word. What is known is what the seed schema (schemas/, the one
 * editors check against) lists for the records it closes with `additionalProperties: false`, so the loader and the
 * editor flag the same keys. Open objects (metadata, settings, the moderation and management records the schema
 * only sketches) are not looked into for unknown keys.
 */

type Schema = { [key: string]: unknown };

export interface UnknownField {
  /** Where it is: `apps[0].users[2].metaData`. */
  path: string;
  /** The known key it is nearest to, if one is close. */
  near?: string;
}

let seedSchema: Schema | undefined;
const schema = (): Schema => (seedSchema ??= JSON.parse(readFileSync(new URL("schemas/seed.schema.json", PACKAGE_ROOT), "utf8")) as Schema);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof ChunkedArray);

/** `#/$defs/name` references, followed. */
function resolved(s: unknown): Schema | undefined {
  let at = s;
  for (let hops = 0; isObject(at) && typeof at.$ref === "string" && hops < 10; hops++) at = (schema().$defs as Schema)[at.$ref.replace("#/$defs/", "")];
  return isObject(at) ? at : undefined;
}

/** Every unknown key of a seed document, in document order (a key at most once). */
export function unknownSeedFields(doc: unknown): UnknownField[] {
  const found = new Map<string, UnknownField>();
  const walk = (value: unknown, s: unknown, path: string): void => {
    const node = resolved(s);
    if (!node) return;
    for (const branch of [...((node.allOf as unknown[]) ?? []), ...((node.anyOf as unknown[]) ?? []), ...((node.oneOf as unknown[]) ?? []), node.then, node.else])
      if (branch !== undefined) walk(value, branch, path);
    if (value instanceof ChunkedArray || Array.isArray(value)) {
      if (node.items === undefined) return;
      let i = 0;
      for (const item of value instanceof ChunkedArray ? value.items() : value) walk(item, node.items, `${path}[${i++}]`);
      return;
    }
    if (!isObject(value) || !isObject(node.properties)) return;
    const known = node.properties;
    for (const [key, v] of Object.entries(value)) {
      const at = path ? `${path}.${key}` : key;
      if (key in known) walk(v, known[key], at);
      else if (node.additionalProperties === false && !found.has(at)) found.set(at, { path: at, near: nearest(key, Object.keys(known)) });
    }
  };
  walk(doc, schema(), "");
  return [...found.values()];
}

/** One line for each: `apps[0].users[2].metaData (did you mean metadata?)`. */
export const describeUnknown = (f: UnknownField): string => `${f.path}${f.near ? ` (did you mean ${f.near}?)` : ""}`;
