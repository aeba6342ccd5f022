import { apiError, badRequest, keyedMap, type Details } from "../http/errors.js";
import { asBool, validate, type Body, type FieldSpec, type Schema } from "../http/validate.js";
import type { AppState } from "../store/app-state.js";
import type { ExtensionState } from "../store/management.js";
import type { Json, JsonObject } from "../store/types.js";
import { EXTENSION_BY_ID, type ExtensionSpec, type SettingField, type SettingsSpec } from "./catalogue.js";

/** Settings validation and lookup, generic over the catalogue's field tables. */

const FIELD_SPECS: Record<SettingField["type"], FieldSpec> = {
  string: { type: "string", max: 10_000 },
  boolean: { type: "boolean" },
  number: { type: "number" },
  integer: { type: "integer" },
  object: { type: "object" },
  strings: { type: "array", max: 1000, items: { required: true, type: "string", max: 1000 } },
  objects: { type: "array", max: 1000, items: { required: true, type: "object" } },
};

/**
 * What a store or update body declares: the `settings` object (or, for the extensions whose fields sit at the top
 * level, the fields themselves). Which fields are required depends on what is stored, so `readSettings` checks them.
 */
export function settingsFields(spec: SettingsSpec): Schema {
  if (!spec.topLevel) return { settings: { required: true, type: "object" } };
  return { appId: {}, ...Object.fromEntries(Object.keys(spec.fields).map((name) => [name, {}])) };
}

function normalize(field: SettingField, v: unknown): Json {
  if (field.type === "boolean") return asBool(v);
  if (field.type === "integer") return Number(v);
  return v as Json;
}

/**
 * The settings a store or update request carries, checked against the extension's fields: unknown fields are
 * refused, required ones must be present (for an update, present now or stored before), types must match.
 * Returns the settings to store: `merge` (update) lays them over what was stored.
 */
export function readSettings(ext: ExtensionSpec, spec: SettingsSpec, body: Body, stored: JsonObject | undefined, merge: boolean): JsonObject {
  const prefix = spec.topLevel ? "" : "settings.";
  let raw: Body = body;
  if (!spec.topLevel) raw = body.settings as Body; // declared: a required object (settingsFields)
  const details: Details = keyedMap();
  for (const k of Object.keys(raw))
    if (!Object.hasOwn(spec.fields, k) && !(spec.topLevel && k === "appId"))
      details[prefix + k] = [`The ${prefix}${k} field is not a setting of the ${ext.id} extension.`];
  const values: Body = {};
  const schema: Schema = {};
  for (const [name, field] of Object.entries(spec.fields)) {
    values[prefix + name] = raw[name];
    const required = field.required && !(merge && stored?.[name] !== undefined);
    schema[prefix + name] = { ...FIELD_SPECS[field.type], required };
  }
  try {
    validate(values, schema);
  } catch (e) {
    Object.assign(details, (e as { details?: Details }).details);
  }
  for (const [name, field] of Object.entries(spec.fields)) {
    const v = raw[name];
    if (field.in && v !== undefined && !details[prefix + name] && !field.in.includes(Number(v)))
      details[prefix + name] = [`The selected ${prefix}${name} is invalid.`];
  }
  if (Object.keys(details).length > 0) throw badRequest(details);
  const next: JsonObject = merge ? { ...stored } : {};
  for (const [name, field] of Object.entries(spec.fields)) if (raw[name] !== undefined && raw[name] !== null) next[name] = normalize(field, raw[name]);
  return next;
}

/** The extension's state in the app, or undefined when it was never touched (disabled, nothing stored). */
export function stateOf(app: AppState, id: string): ExtensionState | undefined {
  return app.management.extensions[id];
}

export function isEnabled(app: AppState, id: string): boolean {
  return app.management.extensions[id]?.enabled === true;
}

/** What the extension runs with: its defaults overlaid with what was stored. */
export function effectiveSettings(app: AppState, id: string): JsonObject {
  const spec = EXTENSION_BY_ID.get(id)?.settings;
  return { ...spec?.defaults, ...app.management.extensions[id]?.settings };
}

/** Settings operations need the extension enabled in the app (`ERR_EXTENSION_INACTIVE` otherwise). */
export function requireEnabled(app: AppState, id: string): void {
  if (!isEnabled(app, id)) throw apiError("ERR_EXTENSION_INACTIVE", { id, appId: app.meta.appId });
}
