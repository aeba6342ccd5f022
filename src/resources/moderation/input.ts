import { header, type Ctx } from "../../http/context.js";
import { apiError, badRequest, type ErrorCode } from "../../http/errors.js";
import { onBehalfOf } from "../../http/auth.js";
import { readBody, readText, type Body } from "../../http/validate.js";
import { q } from "../../http/query-spec.js";
import { SYSTEM_UID } from "../../views/messages.js";

/** A keyword list's CSV file: "up to 1 MB", as the platform documents (moderation/constraints-and-limits). */
export const CSV_FILE_LIMIT = 1024 * 1024;
/** Keyword lists may come with a CSV file: their bodies may hold one at its limit and the form around it. */
export const FORM_LIMIT_BYTES = 2 * CSV_FILE_LIMIT;

/**
 * A keyword-list body: `multipart/form-data` (as the platform documents; a `file` part is a CSV of terms),
 * `application/x-www-form-urlencoded`, or JSON. Form fields become strings, `searchTerms` fields a list of terms
 * (each field a JSON array or one term per line) and file parts `file: [{csv: text}]`.
 */
export async function readForm(c: Ctx): Promise<Body> {
  const type = header(c, "content-type") ?? "";
  if (!/^multipart\/form-data|^application\/x-www-form-urlencoded/i.test(type)) return readBody(c, FORM_LIMIT_BYTES);
  const text = await readText(c, FORM_LIMIT_BYTES);
  let form: FormData;
  try {
    form = await new Response(text, { headers: { "content-type": type } }).formData();
  } catch {
    throw badRequest({ body: ["The request body must be a valid form."] });
  }
  const out: Body = {};
  for (const [key, value] of form.entries()) {
    const name = key.endsWith("[]") ? key.slice(0, -2) : key;
    if (typeof value !== "string") {
      if (value.size > CSV_FILE_LIMIT) throw apiError("ERR_FILE_SIZE_EXCEEDED", { name: value.name || key, limit: CSV_FILE_LIMIT });
      ((out.file ??= []) as unknown[]).push({ csv: await value.text() });
    }
    else if (name === "searchTerms") for (const term of formTerms(value)) ((out.searchTerms ??= []) as unknown[]).push(term);
    else out[name] = value;
  }
  return out;
}

/**
 * Terms given as text (a CSV file, a form field, a JSON string): comma-separated, as the schema describes
 * `searchTerms`, or one per line; surrounding quotes and blanks dropped. A term that holds a comma (a pattern's
 * `{2,4}`) is given in a JSON array.
 */
export function splitTerms(text: string): string[] {
  return text
    .split(/\r?\n|,/)
    .map((t) => t.trim().replace(/^"(.*)"$/s, "$1").trim())
    .filter((t) => t.length > 0);
}

/** Terms of one form field: a JSON array, or comma-separated / one per line. */
function formTerms(value: string): unknown[] {
  if (value.trimStart().startsWith("[")) {
    try {
      const parsed: unknown = JSON.parse(value);
      if (Array.isArray(parsed)) return parsed;
    } catch {
      // not JSON: lines
    }
  }
  return splitTerms(value);
}

/** The `limit` of a moderation list (its default differs by list). */
export const limitQuery = <const D extends number>(def: D) => ({ limit: q.int({ def, min: 1, max: 1000 }) });

/** Moderation lists answer `meta = {current: {limit, count}}`. */
export function currentList(c: Ctx, data: unknown[], limit: number, extra: Record<string, unknown> = {}) {
  return c.json({ data, meta: { current: { limit, count: data.length }, ...extra } });
}

/** `{success, message}` at the top level, without `data` (as the platform answers some moderation operations). */
export function bareSuccess(c: Ctx, message: string) {
  return c.json({ success: true, message });
}

/** Who reviews: the `onBehalfOf` user when given, the app otherwise. */
export function reviewer(c: Ctx): string {
  return onBehalfOf(c, "optional")?.uid ?? SYSTEM_UID;
}

/** A moderation object by its path id (letters, digits, `-`, `_`), or the area's not-found error. */
export function byPathId<T>(map: ReadonlyMap<string, T>, raw: string, code: ErrorCode): T {
  const found = /^[A-Za-z0-9_-]{1,100}$/.test(raw) ? map.get(raw) : undefined;
  if (!found) throw apiError(code, { id: raw });
  return found;
}
