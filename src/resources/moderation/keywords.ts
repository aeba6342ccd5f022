import type { Ctx } from "../../http/context.js";
import { apiError, badRequest, type Details } from "../../http/errors.js";
import { ok, success } from "../../http/reply.js";
import type { Body } from "../../http/validate.js";
import { checkFields } from "../../http/body-check.js";
import { operation, routes } from "../../http/operation.js";
import type { Schema } from "../../http/schema.js";
import { MAX_KEYWORD_TERM, type KeywordCategory, type KeywordListRecord } from "../../store/moderation.js";
import { listProblem, MAX_PATTERNS, patternProblem } from "../../util/safe-regex.js";
import { checkListBudget } from "./budget.js";
import { currentList, limitQuery, byPathId, readForm, splitTerms } from "./input.js";
import { DESCRIPTION_MAX, ID_MESSAGE, MODERATION_ID, NAME_MAX, ownCount } from "./rules.js";
import { keywordView } from "./views.js";

/** Keyword lists (`/moderation/keywords`): words, phrases or patterns that rule conditions refer to by id. */

const CATEGORIES: readonly KeywordCategory[] = ["word", "pattern", "sentence-similarity"];
const MAX_TERMS = 10_000;
/** The platform's limit (moderation/constraints-and-limits): keyword lists per app, built-in ones not counted. */
export const LISTS_PER_APP = 25;

/** The terms once split (the declaration takes `searchTerms` as a list or as text). */
const TERMS: Schema = { searchTerms: { type: "array", max: MAX_TERMS, items: { required: true, type: "string", max: MAX_KEYWORD_TERM } } };

/** The terms a body gives (see `readForm` for forms), and whether a CSV file gave some. */
function termsOf(body: Body): { terms?: unknown[]; csv: boolean } {
  const files = Array.isArray(body.file) ? (body.file as { csv?: string }[]) : [];
  const fromCsv = files.flatMap((f) => (typeof f?.csv === "string" ? splitTerms(f.csv) : []));
  const raw = body.searchTerms;
  if (raw === undefined && files.length === 0) return { csv: false };
  const given = raw === undefined ? [] : Array.isArray(raw) ? raw : typeof raw === "string" ? splitTerms(raw) : [raw];
  return { terms: [...given, ...fromCsv], csv: files.length > 0 };
}

function readTerms(body: Body, category: KeywordCategory, required: boolean): { terms?: string[]; csv: boolean } {
  const { terms, csv } = termsOf(body);
  if (terms === undefined) {
    if (required) throw badRequest({ searchTerms: ["The searchTerms field is required."] });
    return { csv };
  }
  const given = terms.map((t) => (typeof t === "string" ? t.trim() : t)).filter((t) => t !== "");
  checkFields({ searchTerms: given }, TERMS);
  const clean = [...new Set(given as string[])];
  if (clean.length === 0) throw badRequest({ searchTerms: ["The searchTerms field is required."] });
  if (category === "pattern") {
    if (clean.length > MAX_PATTERNS) throw badRequest({ searchTerms: [`A pattern list may hold at most ${MAX_PATTERNS} patterns.`] });
    const details: Details = {};
    clean.forEach((t, i) => {
      const unsafe = patternProblem(t);
      if (unsafe) details[`searchTerms.${i}`] = [`The pattern ${unsafe}.`];
    });
    if (Object.keys(details).length > 0) throw badRequest(details);
    const tooLarge = listProblem(clean);
    if (tooLarge) throw badRequest({ searchTerms: [`The patterns ${tooLarge}.`] });
  }
  return { terms: clean, csv };
}

/**
 * A list's fields, as JSON or as a form (`readForm`). `searchTerms` is a list or comma-separated text (its terms are
 * checked once split, in `readTerms`); `file` is what a form's CSV file parts become.
 */
const FIELDS: Schema = {
  name: { type: "string", max: NAME_MAX },
  description: { type: "string", max: DESCRIPTION_MAX },
  category: { type: "string", in: CATEGORIES },
  searchTerms: {},
  file: { type: "array" },
};

function pathList(c: Ctx): KeywordListRecord {
  return byPathId(c.get("app").moderation.keywordLists, c.req.param("keywordId")!, "ERR_KEYWORD_NOT_FOUND");
}

export const keywords = routes(
  operation({
    id: "create-rule-keyword",
    method: "POST",
    path: "/moderation/keywords",
    plane: "rest",
    body: {
      id: { required: true, type: "string", max: 100, pattern: MODERATION_ID, patternMessage: ID_MESSAGE },
      ...FIELDS,
      name: { required: true, type: "string", max: NAME_MAX },
    },
    read: readForm,
    handler: (c, { body }) => {
      const app = c.get("app");
      const id = body.id as string;
      if (app.moderation.keywordLists.has(id)) throw apiError("ERR_KEYWORD_ALREADY_EXISTS", { id });
      if (ownCount(app.moderation.keywordLists) >= LISTS_PER_APP)
        throw apiError("ERR_PLAN_QUOTA_RESTRICTION", { what: `The app ${app.meta.appId} has reached the limit of ${LISTS_PER_APP} keyword lists (built-in lists not counted).` });
      const category = (body.category as KeywordCategory | undefined) ?? "word";
      const { terms, csv } = readTerms(body, category, true);
      const now = c.get("emulator").clock.now();
      const list: KeywordListRecord = { id, name: body.name as string, category, isCSV: csv, searchTerms: terms!, revision: 1, createdAt: now, updatedAt: now };
      if (typeof body.description === "string") list.description = body.description;
      app.moderation.keywordLists.set(id, list);
      app.moderation.changed();
      return ok(c, keywordView(app, list));
    },
  }),

  operation({
    id: "list-rule-keywords",
    method: "GET",
    path: "/moderation/keywords",
    plane: "rest",
    query: limitQuery(10),
    handler: (c, { query: { limit } }) => {
      const app = c.get("app");
      return currentList(c, [...app.moderation.keywordLists.values()].slice(0, limit).map((k) => keywordView(app, k, true)), limit);
    },
  }),

  operation({ id: "get-rule-keyword", method: "GET", path: "/moderation/keywords/:keywordId", plane: "rest", handler: (c) => ok(c, keywordView(c.get("app"), pathList(c))) }),

  operation({
    id: "update-rule-keyword",
    method: "PUT",
    path: "/moderation/keywords/:keywordId",
    plane: "rest",
    body: { ...FIELDS, name: { filled: true, type: "string", max: NAME_MAX } },
    read: readForm,
    handler: (c, { body }) => {
      const list = pathList(c);
      const category = (body.category as KeywordCategory | undefined) ?? list.category;
      const { terms, csv } = readTerms(body, category, false);
      if (terms === undefined && category === "pattern" && list.category !== "pattern") readTerms({ searchTerms: list.searchTerms }, category, true);
      const app = c.get("app");
      checkListBudget(app.moderation, { ...list, category, searchTerms: terms ?? list.searchTerms });
      if (typeof body.name === "string") list.name = body.name;
      if (typeof body.description === "string") list.description = body.description;
      list.category = category;
      if (terms) {
        list.searchTerms = terms;
        list.isCSV = csv;
      }
      list.revision++;
      list.updatedAt = c.get("emulator").clock.now();
      app.moderation.changed();
      return ok(c, keywordView(app, list));
    },
  }),

  operation({
    id: "delete-rule-keyword",
    method: "DELETE",
    path: "/moderation/keywords/:keywordId",
    plane: "rest",
    handler: (c) => {
      const list = pathList(c);
      const app = c.get("app");
      app.moderation.keywordLists.delete(list.id);
      app.moderation.changed();
      return success(c, `Keyword with id ${list.id} has been deleted successfully.`);
    },
  }),
);
