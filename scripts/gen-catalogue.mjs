#!/usr/bin/env node
// Regenerates catalogue/published-operations.json, the compact catalogue of the platform's published operations,
// from copies of its published OpenAPI files (the public cometchat/docs repository's root folder).
//
//   node scripts/gen-catalogue.mjs DIR [DIR ...]
//
// Each DIR may hold any of: chat-apis.json, management-apis.json, calls.json, data-import-apis.json,
// campaigns-apis.json (a later DIR's copy of a file wins). A copy may be a reduced transcription (paths,
// parameters, request bodies; no responses or examples) that names itself in a top-level "x-extract" string: the
// catalogue's sources then record that note beside the copy's hash. APIs whose file is in none of the folders keep their
// operations from the catalogue as it is. For each operation the catalogue keeps: the API, its operationId, method,
// path (relative to the API's server), the query parameters and body fields by name with their JSON types, the
// headers it names, and the body's media type. test/surface.test.ts holds the emulator's declared operations to it.
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const OUT = fileURLToPath(new URL("../catalogue/published-operations.json", import.meta.url));
const FILES = {
  chat: "chat-apis.json",
  management: "management-apis.json",
  calls: "calls.json",
  "data-import": "data-import-apis.json",
  campaigns: "campaigns-apis.json",
};
const METHODS = ["get", "post", "put", "patch", "delete"];

const dirs = process.argv.slice(2);
if (dirs.length === 0) {
  process.stderr.write("usage: node scripts/gen-catalogue.mjs DIR [DIR ...]  (folders holding the published OpenAPI files)\n");
  process.exit(2);
}

const previous = existsSync(OUT) ? JSON.parse(readFileSync(OUT, "utf8")) : { sources: {}, operations: [] };
const sources = { ...previous.sources };
let operations = previous.operations;

for (const [api, file] of Object.entries(FILES)) {
  const found = dirs.map((d) => join(d, file)).filter((p) => existsSync(p)).at(-1);
  if (!found) continue;
  const text = readFileSync(found, "utf8");
  const doc = JSON.parse(text);
  sources[api] = { file, sha256: createHash("sha256").update(text).digest("hex"), operations: 0 };
  // A reduced transcription (paths, parameters and request bodies only) says so; the catalogue keeps its note.
  if (doc["x-extract"]) sources[api].extract = doc["x-extract"];
  const ops = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    const shared = item.parameters ?? [];
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const params = [...shared, ...(op.parameters ?? [])].map((p) => resolve(doc, p));
      const query = {};
      const headers = [];
      for (const p of params) {
        if (p.in === "query") query[p.name] = typeName(resolve(doc, p.schema ?? {}), doc);
        if (p.in === "header") headers.push(p.name);
      }
      const content = resolve(doc, op.requestBody ?? {}).content ?? {};
      const media = Object.keys(content)[0];
      const body = media ? fieldsOf(doc, content[media].schema ?? {}) : {};
      ops.push({
        api,
        id: op.operationId ?? null,
        method: method.toUpperCase(),
        path,
        ...(Object.keys(query).length > 0 && { query }),
        ...(headers.length > 0 && { headers }),
        ...(media && { media }),
        ...(Object.keys(body).length > 0 && { body }),
      });
    }
  }
  sources[api].operations = ops.length;
  operations = [...operations.filter((o) => o.api !== api), ...ops];
}

const order = Object.keys(FILES);
operations.sort((a, b) => order.indexOf(a.api) - order.indexOf(b.api));
// One operation a line: the file stays readable in a diff.
const lines = operations.map((o) => `    ${JSON.stringify(o)}`);
writeFileSync(OUT, `{\n  "sources": ${JSON.stringify(sources)},\n  "operations": [\n${lines.join(",\n")}\n  ]\n}\n`);
process.stdout.write(`catalogue: ${operations.length} operations (${Object.entries(sources).map(([a, s]) => `${a} ${s.operations}`).join(", ")})\n`);

/** Follows local `$ref`s (`#/components/...`). */
function resolve(doc, node, depth = 0) {
  if (!node || typeof node !== "object" || !node.$ref || depth > 20) return node ?? {};
  const target = node.$ref.replace(/^#\//, "").split("/").reduce((o, k) => o?.[decodeURIComponent(k.replace(/~1/g, "/").replace(/~0/g, "~"))], doc);
  return resolve(doc, target ?? {}, depth + 1);
}

/** A body's top-level fields and their types (allOf merged; oneOf/anyOf: every branch's fields). */
function fieldsOf(doc, schema, depth = 0) {
  const s = resolve(doc, schema);
  if (depth > 10) return {};
  const out = {};
  for (const part of [...(s.allOf ?? []), ...(s.oneOf ?? []), ...(s.anyOf ?? [])]) Object.assign(out, fieldsOf(doc, part, depth + 1));
  for (const [name, prop] of Object.entries(s.properties ?? {})) out[name] = typeName(resolve(doc, prop), doc);
  return out;
}

/** A schema's JSON type, as one word (`string`, `integer`, `array`, ...; `any` when it says none). */
function typeName(s, doc) {
  const r = resolve(doc, s);
  if (Array.isArray(r.type)) return r.type.filter((t) => t !== "null").join("|") || "null";
  if (r.type) return r.type;
  if (r.properties || r.additionalProperties) return "object";
  if (r.items) return "array";
  const branches = r.oneOf ?? r.anyOf ?? r.allOf;
  if (branches) return [...new Set(branches.map((b) => typeName(b, doc)))].join("|");
  if (r.enum) return typeof r.enum[0];
  return "any";
}
