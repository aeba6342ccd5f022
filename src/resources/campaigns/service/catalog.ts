import type { Ctx } from "../../../http/context.js";
import { apiError } from "../../../http/errors.js";
import { operation } from "../../../http/operation.js";
import { q } from "../../../http/query-spec.js";
import type { Schema } from "../../../http/schema.js";
import { asBool, type Body } from "../../../http/validate.js";
import {
  CHANNEL_TYPES,
  MAX_CATEGORIES,
  type CategoryRecord,
  type ChannelContent,
  type ChannelRecord,
  type ChannelType,
  type TemplateRecord,
  type TemplateStatus,
  type TemplateVariable,
} from "../../../store/campaigns.js";
import type { JsonObject } from "../../../store/types.js";
import { categoryView, channelView, templateView } from "../views.js";
import { DELIVERED_TYPES } from "../sends.js";
import { adminOnly, campaignsOf, conflict, cursorPage, invalid, notFound, nowOf, PAGE_QUERY, refused, withDetails } from "./service.js";

/**
 * Template categories, templates (with immutable versions: an edit of content or variables makes a new current
 * version) and channels of the campaigns service.
 */

export const MAX_TEMPLATES = 1000;
/** Channels of one type an app may have (the platform refuses past its limit with 409; it does not publish it). */
export const MAX_CHANNELS_PER_TYPE = 10;
/** Built-in template categories (the published file's enum); an app's own categories are valid too. */
export const BUILT_IN_CATEGORIES = ["Onboarding", "Transactional", "Marketing", "Product_Showcase", "Alerts", "Polls", "Custom"];
const STATUSES = ["draft", "approved", "archived"] as const;
const WAIT_MINUTES = [5, 10, 30, 60, 240, 1440];
const STOP_CONDITIONS: Record<string, readonly string[]> = { in_app: ["delivered", "read", "engaged"], push: ["delivered", "clicked"] };
const SLUG = /^[A-Za-z0-9_-]+$/;

const slugOf = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "").slice(0, 90) || "template";

// ---- categories ----

const CATEGORY: Schema = {
  name: { required: true, type: "string", max: 100 },
  description: { type: "string", max: 1000 },
};

function category(c: Ctx): CategoryRecord {
  const id = c.req.param("id")!;
  const found = campaignsOf(c).categories.get(id);
  if (!found) throw notFound("ERR_CATEGORY_NOT_FOUND", id, "categoryId");
  return found;
}

function uniqueName(c: Ctx, name: string, except?: string): void {
  for (const cat of campaignsOf(c).categories.values())
    if (cat.name === name && cat.id !== except) throw conflict("Duplicate category name", `A category named ${name} exists: ${cat.id}`, { name, categoryId: cat.id });
}

export const categoryOperations = [
  operation({
    id: "CategoriesController_findAll",
    method: "GET",
    path: "/templates/categories",
    plane: "campaigns",
    query: { updatedAt: q.int(), ...PAGE_QUERY, sort: q.oneOf(["name", "createdAt", "updatedAt"]) },
    handler: (c, { query }) => {
      const sort = query.sort ?? "updatedAt";
      return c.json(cursorPage([...campaignsOf(c).categories.values()], sort, (r) => r[sort], query, sort === "name" ? "asc" : "desc"), 200);
    },
  }),
  operation({
    id: "CategoriesController_create",
    method: "POST",
    path: "/templates/categories",
    plane: "campaigns",
    body: CATEGORY,
    handler: (c, { body }) => {
      const name = body.name as string;
      uniqueName(c, name);
      const { categories } = campaignsOf(c);
      if (categories.size >= MAX_CATEGORIES) throw conflict(`An app has at most ${MAX_CATEGORIES} template categories.`);
      const now = nowOf(c);
      const cat: CategoryRecord = { id: campaignsOf(c).nextId("category"), name, label: name, createdAt: now, updatedAt: now };
      if (typeof body.description === "string") cat.description = body.description;
      categories.set(cat.id, cat);
      return c.json({ data: categoryView(cat) }, 201);
    },
  }),
  operation({
    id: "CategoriesController_findById",
    method: "GET",
    path: "/templates/categories/:id",
    plane: "campaigns",
    handler: (c) => c.json({ data: categoryView(category(c)) }),
  }),
  operation({
    id: "CategoriesController_update",
    method: "PUT",
    path: "/templates/categories/:id",
    plane: "campaigns",
    body: { name: { filled: true, type: "string", max: 100 }, description: CATEGORY.description },
    handler: (c, { body }) => {
      const cat = category(c);
      if (typeof body.name === "string") {
        uniqueName(c, body.name, cat.id);
        cat.name = cat.label = body.name;
      }
      if (typeof body.description === "string") cat.description = body.description;
      cat.updatedAt = nowOf(c);
      return c.json({ data: categoryView(cat) });
    },
  }),
  operation({
    id: "CategoriesController_delete",
    method: "DELETE",
    path: "/templates/categories/:id",
    plane: "campaigns",
    handler: (c) => {
      const cat = category(c);
      campaignsOf(c).categories.delete(cat.id);
      return c.json({ data: { id: cat.id, deletedAt: new Date(c.get("emulator").clock.nowMs()).toISOString() } });
    },
  }),
];

// ---- templates ----

const CHANNEL_CONTENT = { type: "object", maxKb: 64 } as const;
const TEMPLATE_FIELDS: Schema = {
  name: { type: "string", max: 255 },
  templateCategory: { type: "string", max: 100 },
  label: { type: "string", max: 100 },
  alternativeText: { type: "string", max: 1000 },
  tags: { type: "array", max: 25, items: { required: true, type: "string", max: 100 } },
  status: { type: "string", in: STATUSES },
  variableSchema: { type: "array", max: 100 },
  config: { type: "object", maxKb: 16 },
};
const CREATE_TEMPLATE: Schema = {
  ...TEMPLATE_FIELDS,
  name: { required: true, type: "string", max: 255 },
  templateId: { type: "string", max: 100, pattern: SLUG, patternMessage: "The templateId may only contain letters, numbers, underscores and dashes." },
  channels: { required: true, type: "array", max: CHANNEL_TYPES.length, items: { required: true, type: "object", maxKb: 64 } },
};

/** A template by id or slug. */
export function template(c: Ctx, idOrSlug = c.req.param("id")!): TemplateRecord {
  const t = campaignsOf(c).template(idOrSlug);
  if (!t) throw notFound("ERR_TEMPLATE_NOT_FOUND", idOrSlug, "templateId");
  return t;
}

function templateCategory(c: Ctx, name: unknown): string | undefined {
  if (typeof name !== "string") return undefined;
  if (BUILT_IN_CATEGORIES.includes(name) || [...campaignsOf(c).categories.values()].some((cat) => cat.name === name)) return name;
  throw invalid(`templateCategory must be one of ${BUILT_IN_CATEGORIES.join(", ")} or the name of one of the app's template categories.`);
}

/** `variableSchema`: names, or `{key, default}` objects (the overview's `variableSchema[].default`). */
function variableSchema(raw: unknown[]): TemplateVariable[] {
  const out: TemplateVariable[] = [];
  raw.forEach((v, i) => {
    const key = typeof v === "string" ? v : typeof v === "object" && v !== null ? ((v as JsonObject).key ?? (v as JsonObject).name) : undefined;
    const def = typeof v === "object" && v !== null ? (v as JsonObject).default : undefined;
    if (typeof key !== "string" || !/^[A-Za-z0-9_.-]{1,100}$/.test(key)) throw invalid(`variableSchema.${i} must be a variable name (letters, digits, _ . -, at most 100) or an object with such a key.`);
    if (def !== undefined && typeof def !== "string" && typeof def !== "number" && typeof def !== "boolean") throw invalid(`variableSchema.${i}.default must be a string, number or boolean.`);
    if (out.some((o) => o.key === key)) throw invalid(`variableSchema.${i}: the variable ${key} is declared twice.`);
    out.push(def === undefined ? { key } : { key, default: String(def) });
  });
  return out;
}

function channelId(c: Ctx, raw: unknown, at: string): string | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== "string" || raw === "") throw invalid(`${at}.channelId must be a string.`);
  const all = campaignsOf(c).channels;
  if (!all.has(raw) && ![...all.values()].some((ch) => ch.channelId === raw)) throw notFound("ERR_CHANNEL_NOT_FOUND", raw, "channelId");
  return raw;
}

/** One channel's content, checked field by field (the published ChannelContentDto). */
function channelContent(c: Ctx, raw: JsonObject, at: string): ChannelContent {
  const type = raw.channelType;
  if (typeof type !== "string" || !(CHANNEL_TYPES as readonly string[]).includes(type)) throw invalid(`${at}.channelType must be one of ${CHANNEL_TYPES.join(", ")}.`);
  const out: ChannelContent = { channelType: type as ChannelType, content: {} };
  const id = channelId(c, raw.channelId, at);
  if (id !== undefined) out.channelId = id;
  if (raw.content !== undefined) {
    if (typeof raw.content !== "object" || raw.content === null || Array.isArray(raw.content)) throw invalid(`${at}.content must be an object.`);
    out.content = raw.content;
  }
  if (raw.dataType !== undefined) {
    if (raw.dataType !== "ui_template" && raw.dataType !== "data_template") throw invalid(`${at}.dataType must be ui_template or data_template.`);
    out.dataType = raw.dataType;
  }
  for (const k of ["categoryFilterEnabled", "templateLabelEnabled"] as const)
    if (raw[k] !== undefined) {
      if (typeof raw[k] !== "boolean") throw invalid(`${at}.${k} must be a boolean.`);
      if (type !== "in_app") throw invalid(`${at}.${k} applies to in_app channels only.`);
      out[k] = raw[k];
    }
  if (raw.messageRetentionHours !== undefined) {
    if (typeof raw.messageRetentionHours !== "number" || !(raw.messageRetentionHours > 0)) throw invalid(`${at}.messageRetentionHours must be a positive number.`);
    out.messageRetentionHours = raw.messageRetentionHours;
  }
  if (raw.sequenceOrder !== undefined) {
    if (!Number.isInteger(raw.sequenceOrder) || (raw.sequenceOrder as number) < 1) throw invalid(`${at}.sequenceOrder must be an integer of at least 1.`);
    out.sequenceOrder = raw.sequenceOrder as number;
  }
  if (raw.stopCondition !== undefined) {
    const allowed = STOP_CONDITIONS[type] ?? [];
    if (typeof raw.stopCondition !== "string" || !allowed.includes(raw.stopCondition))
      throw invalid(allowed.length ? `${at}.stopCondition of a ${type} channel must be one of ${allowed.join(", ")}.` : `${at}.stopCondition is not allowed on a ${type} channel.`);
    out.stopCondition = raw.stopCondition;
  }
  if (raw.waitMinutes !== undefined) {
    if (!WAIT_MINUTES.includes(raw.waitMinutes as number)) throw invalid(`${at}.waitMinutes must be one of ${WAIT_MINUTES.join(", ")}.`);
    out.waitMinutes = raw.waitMinutes as number;
  }
  return out;
}

function channels(c: Ctx, raw: unknown[]): ChannelContent[] {
  const out = raw.map((ch, i) => channelContent(c, ch as JsonObject, `channels.${i}`));
  const seen = new Set<string>();
  for (const ch of out) {
    if (seen.has(ch.channelType)) throw conflict("Duplicate channel type", `The template has two ${ch.channelType} channels.`, { channelType: ch.channelType });
    seen.add(ch.channelType);
  }
  return out;
}

/** A new current version of `t` (versions are immutable). */
function newVersion(c: Ctx, t: TemplateRecord, change: { channels?: ChannelContent[]; variableSchema?: TemplateVariable[] }) {
  if (t.status === "archived") throw refused("The template is archived: its content cannot change.", { templateId: t.id });
  const current = t.versions[t.currentVersion - 1];
  const now = nowOf(c);
  t.versions.push({ version: t.versions.length + 1, channels: change.channels ?? current.channels, variableSchema: change.variableSchema ?? current.variableSchema, createdAt: now });
  t.currentVersion = t.versions.length;
  t.updatedAt = now;
}

function applyMetadata(c: Ctx, t: TemplateRecord, body: Body): void {
  if (typeof body.name === "string") t.name = body.name;
  const cat = templateCategory(c, body.templateCategory);
  if (cat !== undefined) t.templateCategory = cat;
  for (const k of ["label", "alternativeText"] as const) if (typeof body[k] === "string") t[k] = body[k] as string;
  if (Array.isArray(body.tags)) t.tags = [...new Set(body.tags as string[])];
  if (typeof body.status === "string") t.status = body.status as TemplateStatus;
  if (body.config !== undefined && body.config !== null) t.config = body.config as JsonObject;
}

const tagFilter = (tags: string[] | undefined, match: "any" | "all" | undefined) => (own: readonly string[]) =>
  tags === undefined || (match === "all" ? tags.every((t) => own.includes(t)) : tags.some((t) => own.includes(t)));

export const templateOperations = [
  operation({
    id: "TemplatesController_findAll",
    method: "GET",
    path: "/templates",
    plane: "campaigns",
    query: {
      updatedAt: q.int(),
      ...PAGE_QUERY,
      sort: q.oneOf(["updatedAt", "createdAt", "name"]),
      status: q.oneOf(STATUSES),
      search: q.str({ max: 255 }),
      tags: q.list(),
      tagMatch: q.oneOf(["any", "all"]),
      templateCategory: q.str({ max: 100 }),
    },
    handler: (c, { query }) => {
      const search = query.search?.toLowerCase();
      const tags = tagFilter(query.tags, query.tagMatch);
      const found = [...campaignsOf(c).templates.values()].filter(
        (t) =>
          (query.status === undefined || t.status === query.status) &&
          (search === undefined || t.name.toLowerCase().includes(search) || t.templateId.toLowerCase().includes(search)) &&
          tags(t.tags) &&
          (query.templateCategory === undefined || t.templateCategory === query.templateCategory),
      );
      const sort = query.sort ?? "updatedAt";
      const page = cursorPage(found, sort, (t) => t[sort], query, sort === "name" ? "asc" : "desc");
      return c.json({ data: page.data.map((t) => templateView(t, false)), meta: page.meta });
    },
  }),
  operation({
    id: "TemplatesController_create",
    method: "POST",
    path: "/templates",
    plane: "campaigns",
    body: CREATE_TEMPLATE,
    bodyLimit: 512 * 1024,
    handler: (c, { body }) => {
      const campaigns = campaignsOf(c);
      if (campaigns.templates.size >= MAX_TEMPLATES) throw conflict(`An app has at most ${MAX_TEMPLATES} templates.`);
      const content = channels(c, body.channels as unknown[]);
      const vars = variableSchema((body.variableSchema as unknown[] | undefined) ?? []);
      templateCategory(c, body.templateCategory);
      let slug = body.templateId as string | undefined;
      if (slug !== undefined) {
        if (campaigns.template(slug)) throw conflict("Duplicate templateId", `A template with the templateId ${slug} exists.`, { templateId: slug });
      } else {
        const base = slugOf(body.name as string);
        slug = base;
        for (let n = 2; campaigns.template(slug); n++) slug = `${base}_${n}`;
      }
      const now = nowOf(c);
      const t: TemplateRecord = {
        id: campaigns.nextId("template"),
        templateId: slug,
        name: body.name as string,
        tags: [],
        status: "draft",
        config: {},
        currentVersion: 1,
        versions: [{ version: 1, channels: content, variableSchema: vars, createdAt: now }],
        createdAt: now,
        updatedAt: now,
      };
      applyMetadata(c, t, body);
      campaigns.templates.set(t.id, t);
      return c.json({ data: templateView(t) }, 201);
    },
  }),
  operation({
    id: "TemplatesController_findById",
    method: "GET",
    path: "/templates/:id",
    plane: "campaigns",
    handler: (c) => c.json({ data: templateView(template(c)) }),
  }),
  operation({
    id: "TemplatesController_update",
    method: "PUT",
    path: "/templates/:id",
    plane: "campaigns",
    body: { ...TEMPLATE_FIELDS, name: { filled: true, type: "string", max: 255 } },
    bodyLimit: 64 * 1024,
    handler: (c, { body }) => {
      const t = template(c);
      const vars = Array.isArray(body.variableSchema) ? variableSchema(body.variableSchema) : undefined;
      templateCategory(c, body.templateCategory);
      if (vars) newVersion(c, t, { variableSchema: vars });
      applyMetadata(c, t, body);
      t.updatedAt = nowOf(c);
      return c.json({ data: templateView(t) });
    },
  }),
  operation({
    id: "TemplatesController_archive",
    method: "DELETE",
    path: "/templates/:id",
    plane: "campaigns",
    handler: (c) => {
      const t = template(c);
      if (t.status !== "archived") [t.status, t.updatedAt] = ["archived", nowOf(c)];
      return c.json({ data: templateView(t) });
    },
  }),
  operation({
    id: "TemplatesController_updateChannelContent",
    method: "PUT",
    path: "/templates/:id/channels/:channelType",
    plane: "campaigns",
    body: { content: { required: true, ...CHANNEL_CONTENT } },
    bodyLimit: 128 * 1024,
    handler: (c, { body }) => {
      const t = template(c);
      const type = c.req.param("channelType")!;
      if (!(CHANNEL_TYPES as readonly string[]).includes(type)) throw invalid(`channelType must be one of ${CHANNEL_TYPES.join(", ")}.`);
      const current = t.versions[t.currentVersion - 1].channels;
      const had = current.some((ch) => ch.channelType === type);
      const next = had
        ? current.map((ch) => (ch.channelType === type ? { ...ch, content: body.content as JsonObject } : ch))
        : [...current, { channelType: type as ChannelType, content: body.content as JsonObject }];
      newVersion(c, t, { channels: next });
      return c.json({ data: templateView(t) });
    },
  }),
  operation({
    id: "TemplatesController_createVersion",
    method: "POST",
    path: "/templates/:id/versions",
    plane: "campaigns",
    handler: (c) => {
      const t = template(c);
      newVersion(c, t, {});
      return c.json({ data: templateView(t) }, 201);
    },
  }),
];

// ---- channels ----

function channel(c: Ctx): ChannelRecord {
  const id = c.req.param("id")!;
  const all = campaignsOf(c).channels;
  const found = all.get(id) ?? [...all.values()].find((ch) => ch.channelId === id);
  if (!found) throw notFound("ERR_CHANNEL_NOT_FOUND", id, "channelId");
  return found;
}

const countOf = (c: Ctx, type: string) => [...campaignsOf(c).channels.values()].filter((ch) => ch.type === type).length;

const CHANNEL_FIELDS: Schema = {
  name: { type: "string", max: 100 },
  enabled: { type: "boolean" },
  metadata: { type: "object", maxKb: 4 },
};

export const channelOperations = [
  operation({
    id: "ChannelsController_list",
    method: "GET",
    path: "/channels",
    plane: "campaigns",
    query: { updatedAt: q.int(), ...PAGE_QUERY, sort: q.oneOf(["channelType", "createdAt", "updatedAt"]), search: q.str({ max: 255 }) },
    handler: (c, { query }) => {
      const search = query.search?.toLowerCase();
      const found = [...campaignsOf(c).channels.values()].filter((ch) => search === undefined || ch.name.toLowerCase().includes(search) || ch.channelId.toLowerCase().includes(search));
      const sort = query.sort ?? "updatedAt";
      const page = cursorPage(found, sort, (ch) => (sort === "channelType" ? ch.type : ch[sort]), query, sort === "channelType" ? "asc" : "desc");
      return c.json({ data: page.data.map(channelView), meta: page.meta });
    },
  }),
  operation({
    id: "ChannelsController_create",
    method: "POST",
    path: "/channels",
    plane: "campaigns",
    headers: ["onbehalfof"],
    body: {
      ...CHANNEL_FIELDS,
      name: { required: true, type: "string", max: 100 },
      type: { required: true, type: "string", in: CHANNEL_TYPES },
      channelId: { type: "string", max: 100, pattern: SLUG, patternMessage: "The channelId may only contain letters, numbers, underscores and dashes." },
    },
    handler: (c, { body }) => {
      adminOnly(c, 400);
      const type = body.type as ChannelType;
      if (!DELIVERED_TYPES.has(type)) throw withDetails(apiError("ERR_FORBIDDEN", { reason: "Channel type restricted" }), { type });
      const all = campaignsOf(c).channels;
      const slug = (body.channelId as string | undefined) ?? `cc-notification-channel-${slugOf(body.name as string).replace(/_/g, "-")}`;
      if ([...all.values()].some((ch) => ch.channelId === slug)) throw conflict("Duplicate channelId", `A channel with the channelId ${slug} exists.`, { channelId: slug });
      if (countOf(c, type) >= MAX_CHANNELS_PER_TYPE) throw conflict("Channel limit reached", `An app has at most ${MAX_CHANNELS_PER_TYPE} ${type} channels.`, { type });
      const now = nowOf(c);
      const ch: ChannelRecord = {
        id: campaignsOf(c).nextId("channel"),
        name: body.name as string,
        type,
        channelId: slug,
        enabled: asBool(body.enabled),
        metadata: (body.metadata as JsonObject | undefined) ?? {},
        createdAt: now,
        updatedAt: now,
      };
      all.set(ch.id, ch);
      return c.json({ data: channelView(ch) }, 201);
    },
  }),
  operation({
    id: "ChannelsController_getAvailability",
    method: "GET",
    path: "/channels/availability",
    plane: "campaigns",
    headers: ["onbehalfof"],
    handler: (c) => {
      adminOnly(c, 400);
      return c.json({
        data: CHANNEL_TYPES.map((type) => {
          const count = countOf(c, type);
          const restricted = !DELIVERED_TYPES.has(type);
          return {
            type,
            available: !restricted && count < MAX_CHANNELS_PER_TYPE,
            restricted,
            count,
            limit: MAX_CHANNELS_PER_TYPE,
            ...(restricted && { reason: `The emulator does not deliver ${type} channels.` }),
          };
        }),
      });
    },
  }),
  operation({
    id: "ChannelsController_getById",
    method: "GET",
    path: "/channels/:id",
    plane: "campaigns",
    handler: (c) => c.json({ data: channelView(channel(c)) }),
  }),
  operation({
    id: "ChannelsController_update",
    method: "PUT",
    path: "/channels/:id",
    plane: "campaigns",
    headers: ["onbehalfof"],
    body: { ...CHANNEL_FIELDS, name: { filled: true, type: "string", max: 100 } },
    handler: (c, { body }) => {
      adminOnly(c, 400);
      const ch = channel(c);
      if (typeof body.name === "string") ch.name = body.name;
      if (body.enabled !== undefined && body.enabled !== null) ch.enabled = asBool(body.enabled);
      if (body.metadata !== undefined && body.metadata !== null) ch.metadata = body.metadata as JsonObject;
      ch.updatedAt = nowOf(c);
      return c.json({ data: channelView(ch) });
    },
  }),
];
