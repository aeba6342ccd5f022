import type { Ctx } from "../../http/context.js";
import { apiError, badRequest, type Details } from "../../http/errors.js";
import { ok, success } from "../../http/reply.js";
import { asBool, type Body } from "../../http/validate.js";
import { bodySchema, type JsonSchema, type Schema } from "../../http/schema.js";
import { operation, routes, type Operation } from "../../http/operation.js";
import type { AppState } from "../../store/app-state.js";
import { current, type ConditionRecord, type RuleRecord, type RuleRevision } from "../../store/moderation.js";
import { mediaMessages } from "../../store/moderation-defaults.js";
import type { JsonObject } from "../../store/types.js";
import { listProblem, MAX_PATTERNS, patternProblem } from "../../util/safe-regex.js";
import { checkRuleBudget } from "./budget.js";
import { currentList, limitQuery, byPathId } from "./input.js";
import { ruleView } from "./views.js";

/** Rules (`/moderation/rules`): every create or update is a revision; the newest is the active one. */

export const MODERATION_ID = /^[A-Za-z0-9_-]+$/;
export const ID_MESSAGE = "The id may only contain letters, numbers, dashes and underscores.";
const OPERANDS = ["text", "image", "video", "custom"] as const;
/**
 * What a rule does with a message it catches. `blockMessage` and `dropMessage` hold it for review. `flagMessage` is
 * the dashboard's "Flag" ("Message is delivered but flagged for review", moderation/rules-management): the API value
 * is not documented; the emulator takes the name the documented ones suggest (see docs/moderation.md).
 */
const ACTIONS = ["blockMessage", "dropMessage", "flagMessage"] as const;

/** The platform's limits (moderation/constraints-and-limits): rules per app (built-in ones not counted), and per rule. */
export const RULES_PER_APP = 25;
export const CONDITIONS_PER_RULE = 10;
export const FILTERS_PER_RULE = 10;
export const NAME_MAX = 100;
export const DESCRIPTION_MAX = 255;

/** A condition's own fields, checked with the body (`withConditions`); what depends on stored lists is checked in `readConditions`. */
const CONDITION: Schema = {
  operand: { required: true, type: "string", in: OPERANDS },
  operator: { type: "string", in: ["contains", "equals"] },
  category: { type: "string", in: ["word", "pattern"] },
  value: { required: true, type: "array", max: 1000, items: { required: true, type: "string", max: 500 } },
  message: { type: "array", max: 25, items: { required: true, type: "string", max: 1000 } },
  isKeywordsReferencePresent: { type: "boolean" },
  isMediaPresent: { type: "boolean" },
};

/**
 * A rule's create or update: each item of its `conditions` has fields of its own (`conditions.0.operand`), checked
 * with the rest of the body. The body notation names no nested fields, so they are added to the declaration's JSON
 * Schema here, before its first use compiles it (as roles/routes.ts does for a role's settings).
 */
function withConditions<O extends Operation<any>>(op: O): O {
  const items = (op.bodyJson!.properties as Record<string, JsonSchema>).conditions.items as JsonSchema;
  const { properties, required } = bodySchema(CONDITION);
  Object.assign(items, { properties, required });
  return op;
}

const RULE: Schema = {
  name: { type: "string", max: NAME_MAX },
  description: { type: "string", max: DESCRIPTION_MAX },
  enabled: { type: "boolean" },
  action: { type: "array", max: ACTIONS.length, items: { required: true, type: "string", in: ACTIONS } },
  conditions: { type: "array", max: CONDITIONS_PER_RULE, items: { required: true, type: "object" } },
  filters: { type: "array", max: FILTERS_PER_RULE, items: { required: true, type: "object" } },
};

/** Whether a condition body names keyword lists (the newest files spell the flag one way, older ones two others). */
const byListOf = (c: Body) => asBool(c.isKeywordsReferencePresent ?? c.isKeywordReferencePresent ?? c.isListReferencePresent);

/** Checks and completes the conditions of a rule body (ids 1-based, `entity: "message"`). */
function readConditions(app: AppState, raw: Body[]): ConditionRecord[] {
  const details: Details = {};
  const patterns = raw.reduce((n, c) => n + (c.category === "pattern" && !byListOf(c) && Array.isArray(c.value) ? c.value.length : 0), 0);
  if (patterns > MAX_PATTERNS) throw badRequest({ conditions: [`The conditions may hold at most ${MAX_PATTERNS} patterns together.`] });
  const out = raw.map((c, i) => {
    const at = `conditions.${i}`;
    const byList = byListOf(c);
    const condition: ConditionRecord = {
      id: i + 1,
      entity: "message",
      operand: c.operand as ConditionRecord["operand"],
      category: (c.category as ConditionRecord["category"] | undefined) ?? "word",
      operator: (c.operator as ConditionRecord["operator"] | undefined) ?? "contains",
      isKeywordsReferencePresent: byList,
      isMediaPresent: c.isMediaPresent === undefined ? c.operand === "image" || c.operand === "video" : asBool(c.isMediaPresent),
      value: c.value as string[],
    };
    if (Array.isArray(c.message)) condition.message = c.message as string[];
    else if (condition.operand === "image" || condition.operand === "video") condition.message = mediaMessages(condition.operand, condition.value);
    let patternsValid = !byList && condition.category === "pattern";
    condition.value.forEach((v, j) => {
      if (byList && !app.moderation.keywordLists.has(v)) (details[`${at}.value.${j}`] ??= []).push(`The keyword list ${v} does not exist.`);
      const unsafe = !byList && condition.category === "pattern" ? patternProblem(v) : undefined;
      if (unsafe) (details[`${at}.value.${j}`] ??= []).push(`The pattern ${unsafe}.`);
      if (unsafe) patternsValid = false;
    });
    const tooLarge = patternsValid ? listProblem(condition.value) : undefined;
    if (tooLarge) (details[`${at}.value`] ??= []).push(`The patterns ${tooLarge}.`);
    return condition;
  });
  if (Object.keys(details).length > 0) throw badRequest(details);
  return out as ConditionRecord[];
}

/** A new revision from a body, on top of the previous one (create: on top of nothing). */
function revisionFrom(app: AppState, body: Body, previous: RuleRevision | undefined, now: number): RuleRevision {
  const rev: RuleRevision = {
    revision: (previous?.revision ?? 0) + 1,
    name: (body.name as string | undefined) ?? previous!.name,
    enabled: body.enabled === undefined ? (previous?.enabled ?? false) : asBool(body.enabled),
    conditions: Array.isArray(body.conditions) ? readConditions(app, body.conditions as Body[]) : (previous?.conditions ?? []),
    action: Array.isArray(body.action) && body.action.length > 0 ? [...new Set(body.action as string[])] : (previous?.action ?? ["blockMessage"]),
    createdAt: now,
  };
  const description = (body.description as string | undefined) ?? previous?.description;
  if (description !== undefined) rev.description = description;
  const filters = Array.isArray(body.filters) ? (body.filters as JsonObject[]) : previous?.filters;
  if (filters !== undefined) rev.filters = filters;
  return rev;
}

/** The rules or keyword lists an app made itself: the platform's per-app limits do not count its built-in ones. */
export function ownCount(map: ReadonlyMap<string, { default?: boolean }>): number {
  let n = 0;
  for (const v of map.values()) if (!v.default) n++;
  return n;
}

function pathRule(c: Ctx): RuleRecord {
  return byPathId(c.get("app").moderation.rules, c.req.param("ruleId")!, "ERR_MODERATION_RULE_NOT_FOUND");
}

const RULE_LIMIT = 64 * 1024;

export const rules = routes(
  withConditions(
    operation({
      id: "create-rule",
      method: "POST",
      path: "/moderation/rules",
      plane: "rest",
      body: {
        id: { required: true, type: "string", max: 100, pattern: MODERATION_ID, patternMessage: ID_MESSAGE },
        ...RULE,
        name: { required: true, type: "string", max: NAME_MAX },
      },
      bodyLimit: RULE_LIMIT,
      handler: (c, { body }) => {
        const app = c.get("app");
        const id = body.id as string;
        if (app.moderation.rules.has(id)) throw apiError("ERR_MODERATION_RULE_ALREADY_EXISTS", { id });
        if (ownCount(app.moderation.rules) >= RULES_PER_APP)
          throw apiError("ERR_PLAN_QUOTA_RESTRICTION", { what: `The app ${app.meta.appId} has reached the limit of ${RULES_PER_APP} moderation rules (built-in rules not counted).` });
        const now = c.get("emulator").clock.now();
        const rule: RuleRecord = { id, createdAt: now, revisions: [revisionFrom(app, body, undefined, now)] };
        checkRuleBudget(app.moderation, id, current(rule));
        app.moderation.rules.set(id, rule);
        app.moderation.changed();
        return ok(c, ruleView(app, rule));
      },
    }),
  ),

  operation({
    id: "list-rules",
    method: "GET",
    path: "/moderation/rules",
    plane: "rest",
    query: limitQuery(50),
    handler: (c, { query: { limit } }) => {
      const app = c.get("app");
      return currentList(c, [...app.moderation.rules.values()].slice(0, limit).map((r) => ruleView(app, r)), limit);
    },
  }),

  operation({ id: "get-rule", method: "GET", path: "/moderation/rules/:ruleId", plane: "rest", handler: (c) => ok(c, ruleView(c.get("app"), pathRule(c))) }),

  withConditions(
    operation({
      id: "update-rule",
      method: "PUT",
      path: "/moderation/rules/:ruleId",
      plane: "rest",
      body: { ...RULE, name: { filled: true, type: "string", max: NAME_MAX } },
      bodyLimit: RULE_LIMIT,
      handler: (c, { body }) => {
        const rule = pathRule(c);
        const app = c.get("app");
        const next = revisionFrom(app, body, current(rule), c.get("emulator").clock.now());
        checkRuleBudget(app.moderation, rule.id, next);
        rule.revisions.push(next);
        app.moderation.changed();
        return ok(c, ruleView(app, rule));
      },
    }),
  ),

  operation({
    id: "delete-rule",
    method: "DELETE",
    path: "/moderation/rules/:ruleId",
    plane: "rest",
    handler: (c) => {
      const rule = pathRule(c);
      const app = c.get("app");
      app.moderation.rules.delete(rule.id);
      app.moderation.changed();
      return success(c, `Rule with id ${rule.id} has been deleted successfully.`);
    },
  }),

  operation({
    id: "list-rule-revisions",
    method: "GET",
    path: "/moderation/rules/:ruleId/revisions",
    plane: "rest",
    query: limitQuery(10),
    handler: (c, { query: { limit } }) => {
      const rule = pathRule(c);
      const app = c.get("app");
      const newest = [...rule.revisions].reverse().slice(0, limit);
      return currentList(c, newest.map((rev) => ruleView(app, rule, rev)), limit);
    },
  }),
);
