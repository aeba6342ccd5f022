import { readFileSync } from "node:fs";
import { Hono } from "hono";
import type { Env } from "../http/context.js";
import { apiError } from "../http/errors.js";
import { PACKAGE_ROOT } from "../paths.js";

/**
 * `GET /_emulator/schemas/{name}`: the JSON Schemas of seed and state files, as the package ships them (schemas/),
 * so that an editor or a validator can fetch the running version's before (or without) a published one. The state
 * schema refers to the seed schema by a relative address, which resolves beside it here too.
 */
export const SCHEMA_FILES = ["seed.schema.json", "state.schema.json"] as const;

const texts = new Map<string, string>();

export const schemaRoutes = new Hono<Env>().get("/:name", (c) => {
  const name = c.req.param("name");
  if (!(SCHEMA_FILES as readonly string[]).includes(name)) throw apiError("ERR_SCHEMA_NOT_FOUND", { name });
  let text = texts.get(name);
  if (text === undefined) texts.set(name, (text = readFileSync(new URL(`schemas/${name}`, PACKAGE_ROOT), "utf8")));
  return c.body(text, 200, { "content-type": "application/schema+json" });
});
