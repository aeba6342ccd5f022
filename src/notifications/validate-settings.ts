import type { Details } from "../http/errors.js";
import type { Json, JsonObject } from "../store/types.js";
import { isObject } from "./settings.js";

/**
 * Checks a partial settings object against the shape of the defaults: known keys only, the defaults' types,
 * and the allowed values of each setting. Problems are collected per dotted field (Laravel-style sentences).
 */
export function checkSettingsPatch(patch: JsonObject, shape: JsonObject, details: Details, prefix = ""): void {
  for (const [k, v] of Object.entries(patch)) {
    const name = prefix ? `${prefix}.${k}` : k;
    const fail = (m: string) => void (details[name] ??= []).push(m);
    if (!Object.hasOwn(shape, k)) {
      fail(`The ${name} field is not allowed.`);
      continue;
    }
    const expected = shape[k];
    if (name === "preferences.push.customJson") {
      if (!isObject(v)) fail(`The ${name} must be an object.`);
      continue;
    }
    if (isObject(expected)) {
      if (!isObject(v)) fail(`The ${name} must be an object.`);
      else checkSettingsPatch(v, expected, details, name);
      continue;
    }
    if (typeof expected === "boolean" && typeof v !== "boolean") fail(`The ${name} field must be true or false.`);
    else if (typeof expected === "string" && typeof v !== "string") fail(`The ${name} must be a string.`);
    else if (typeof expected === "string" && (v as string).length > 1000) fail(`The ${name} may not be greater than 1000 characters.`);
    else if (typeof expected === "number") checkNumber(name, v, fail);
  }
}

function checkNumber(name: string, v: Json, fail: (m: string) => void): void {
  if (typeof v !== "number" || !Number.isInteger(v)) return fail(`The ${name} must be an integer.`);
  const allowed = allowedValues(name);
  if (allowed && !allowed.includes(v)) return fail(`The selected ${name} is invalid.`);
  if (/\.(from|to)$/.test(name) && !isClock(v)) return fail(`The ${name} must be a time between 0 and 2359 (HHMM).`);
  if (v < 0) fail(`The ${name} must be at least 0.`);
}

/** HHMM clock values: 0…2359 with minutes below 60. */
export function isClock(v: unknown): boolean {
  return typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= 2359 && v % 100 < 60;
}

function allowedValues(name: string): number[] | undefined {
  if (name === "templates.usePrivacyTemplate") return [1, 2, 3];
  if (/^preferences\.(group|oneOnOne)\.(messages|replies|quotedReplies|reactions)Setting$/.test(name)) return [1, 2, 3];
  if (/Setting$/.test(name)) return [1, 2];
  return undefined;
}
