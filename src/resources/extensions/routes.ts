import { createHash } from "node:crypto";
import type { Ctx } from "../../http/context.js";
import { apiError, badRequest, keyedMap } from "../../http/errors.js";
import { pageOf, pageQuery } from "../../http/pagination.js";
import { bulkFailure, ok } from "../../http/reply.js";
import type { Body } from "../../http/validate.js";
import type { Schema } from "../../http/schema.js";
import { bodySchema } from "../../http/schema.js";
import { checkBody } from "../../http/body-check.js";
import { operation, routes, type Method } from "../../http/operation.js";
import type { AppState } from "../../store/app-state.js";
import type { JsonObject } from "../../store/types.js";
import { EXTENSION_BY_ID, EXTENSIONS, type ExtensionSpec, type SettingsSpec } from "../../extensions/catalogue.js";
import { listProblem, maskProblem } from "../../util/safe-regex.js";
import { effectiveSettings, readSettings, requireEnabled, settingsFields } from "../../extensions/settings.js";
import { randomUuid } from "../../util/random.js";
import { pathApp } from "../apps/routes.js";
import { certificates } from "./certificates.js";
import { serviceReply } from "./reply.js";

/** When the platform's extension records were created (the list shows it; the emulator has no history of its own). */
const LISTED_AT = 1592815197;
const HOOK_TEXT = {
  before_message: "The hook will be triggered before adding message to database.",
  after_message: "The hook triggers after sending a message.",
};

/** The host of an extension's service in the app's region (`https://<id>-<region>.cometchat.io`), as the examples show. */
export function serviceHost(app: AppState, id: string): string {
  return `https://${id}-${app.meta.region}.cometchat.io`;
}

/**
 * The token the extension services put in the URLs they hand out (`<signature>.<base64 {"appId"}>`, the examples'
 * form): derived from the app and the extension, so it is stable across restarts and differs between apps.
 */
export function serviceToken(app: AppState, id: string): string {
  const signature = createHash("sha256").update(`${app.meta.appId}/${id}`).digest("base64url");
  return `${signature}=.${Buffer.from(JSON.stringify({ appId: app.meta.appId })).toString("base64url")}`;
}

function extensionView(app: AppState, e: ExtensionSpec) {
  const host = serviceHost(app, e.id);
  return {
    id: e.id,
    name: e.name,
    tagLine: e.tagLine,
    description: e.tagLine,
    author: "CometChat",
    email: "help@cometchat.com",
    webhookURL: `${host}/v1/`,
    accessToAppData: false,
    adminURL: `${host}/v1/show-setting?appToken=${serviceToken(app, e.id)}`,
    websiteURL: "https://www.cometchat.com",
    // Whether the extension is enabled for this app.
    isActive: app.management.extensions[e.id]?.enabled === true,
    isPrivate: false,
    isInvisible: false,
    isThirdParty: e.isThirdParty === true,
    createdAt: LISTED_AT,
    hooks: { data: e.hooks.map((hook) => ({ hook, description: HOOK_TEXT[hook], isActive: true, enabled: 1, createdAt: LISTED_AT })) },
    categories: { data: [] },
  };
}

function setEnabled(c: Ctx, app: AppState, id: string, enabled: boolean) {
  if (!EXTENSION_BY_ID.has(id)) throw apiError("ERR_EXTENSION_NOT_FOUND", { id });
  const now = c.get("emulator").clock.now();
  const state = app.management.extensions[id];
  app.management.extensions[id] = { ...state, enabled, updatedAt: now };
  return { success: true, message: `The extension ${id} has been ${enabled ? "enabled" : "disabled"} successfully.` };
}

/** The extension addressed by `/extensions/{ext}/v1/settings` and its settings spec; other ids are unknown routes. */
function settingsTarget(c: Ctx, op: "store" | "update" | "get" | "delete") {
  const app = pathApp(c);
  const ext = EXTENSION_BY_ID.get(c.req.path.split("/").at(-3)!);
  const spec = ext?.settings;
  if (!ext || !spec || (op === "store" && spec.ops === "upsert")) throw apiError("ERR_API_NOT_FOUND");
  requireEnabled(app, ext.id);
  return { app, ext, spec };
}

function writeSettings(c: Ctx, op: "store" | "update", body: Body) {
  const started = performance.now();
  const { app, ext, spec } = settingsTarget(c, op);
  const state = app.management.extensions[ext.id]!;
  // An upsert (data masking, stickers) updates what is there, or stores it.
  const merge = op === "update" || spec.ops === "upsert";
  let settings = readSettings(ext, spec, body, state.settings, merge);
  if (ext.id === "data-masking") settings = maskSettings(settings, state.settings);
  app.management.extensions[ext.id] = { ...state, settings, updatedAt: c.get("emulator").clock.now() };
  return serviceReply(c, replyBody(app, ext, spec), started);
}

/** What store and update answer: the settings for most, `{success: true}` for the upsert forms. */
function replyBody(app: AppState, ext: ExtensionSpec, spec: SettingsSpec) {
  if (spec.replies?.write === "bare") return { success: true };
  if (spec.ops === "upsert") return { data: { success: true } };
  return { data: { settings: settingsView(app, ext, spec, app.management.extensions[ext.id]?.settings ?? {}) } };
}

/** Settings as the service shows them: with the app id and the reply URL for the services that hand one out. */
function settingsView(app: AppState, ext: ExtensionSpec, spec: SettingsSpec, settings: JsonObject): JsonObject {
  if (!spec.replyWebhook) return settings;
  const webhookURL = `${serviceHost(app, ext.id)}/v1/webhook?token=${serviceToken(app, ext.id)}`;
  return { ...settings, appId: app.meta.appId, webhookURL };
}

/** What delete answers (`{data: {success: true}}` unless the extension's published reply differs). */
function deleteReply(app: AppState, ext: ExtensionSpec, spec: SettingsSpec) {
  switch (spec.replies?.delete) {
    case "bare":
      return { success: true };
    case "settingsSuccess":
      return { data: { settings: { success: true } } };
    case "settingsAfter":
      return { data: { settings: effectiveSettings(app, ext.id) } };
    default:
      return { data: { success: true } };
  }
}

/**
 * Data masking keeps its custom masks by id: new ones without an id get one, `deleteCustomRegexData` removes
 * ids, and default masks are switched by id (their regexes are the built-in ones).
 */
function maskSettings(next: JsonObject, stored: JsonObject | undefined): JsonObject {
  const { deleteCustomRegexData, ...rest } = next;
  const removed = new Set((deleteCustomRegexData as string[] | undefined) ?? []);
  const prior = ((stored?.customregexData as JsonObject[] | undefined) ?? []).filter((m) => !removed.has(String(m.id)));
  const added = ((next.customregexData as JsonObject[] | undefined) ?? []).map((m) => ({ ...m, id: String(m.id ?? randomUuid()) }));
  const byId = new Map(prior.map((m) => [String(m.id), m]));
  for (const m of added) byId.set(String(m.id), m);
  const custom = [...byId.values()].filter((m) => !removed.has(String(m.id)));
  const details: Record<string, string[]> = {};
  custom.forEach((m, i) => {
    const problem = typeof m.regex === "string" ? maskProblem(m.regex) : "must be a string";
    if (problem) details[`settings.customregexData.${i}.regex`] = [`The regex ${problem}.`];
  });
  if (Object.keys(details).length > 0) throw badRequest(details);
  const tooLarge = listProblem(custom.map((m) => m.regex as string));
  if (tooLarge) throw badRequest({ "settings.customregexData": [`The regexes ${tooLarge}.`] });
  return { ...rest, customregexData: custom };
}

const WIDGET_FIELDS: Schema = {
  "settings.name": { required: true, type: "string", max: 100 },
  "settings.version": { required: true, type: "string", in: ["v2"] },
  "settings.style": { type: "object", maxKb: 16 },
  "settings.sidebar": { type: "object", maxKb: 16 },
  "settings.main": { type: "object", maxKb: 16 },
};
/**
 * The widget's settings sit under `settings`, and the platform names their errors `settings.name`: checked as
 * flat fields once the body's `settings` object is known (the declaration states the object).
 */
const WIDGET_CREATE = bodySchema(WIDGET_FIELDS);
const WIDGET_UPDATE = bodySchema({ ...WIDGET_FIELDS, "settings.widgetId": { required: true, type: "string", max: 100 } });
const WIDGET_BODY: Schema = { settings: { required: true, type: "object" } };

/** A widget's settings from a create or update body (name, version, and the style / sidebar / main objects). */
async function widgetSettings(body: Body, update = false): Promise<{ settings: JsonObject; widgetId?: string }> {
  const s = body.settings as JsonObject;
  const flat = Object.fromEntries(Object.entries(s).map(([k, v]) => [`settings.${k}`, v]));
  await checkBody(flat, update ? WIDGET_UPDATE : WIDGET_CREATE);
  const settings: JsonObject = {};
  for (const k of ["name", "version", "style", "sidebar", "main"]) if (s[k] !== undefined && s[k] !== null) settings[k] = s[k];
  return { settings, widgetId: typeof s.widgetId === "string" ? s.widgetId : undefined };
}

/**
 * A settings operation's published id (management-apis.json): `<verb>-settings-<extension>`, but for the two the
 * file names otherwise (Giphy's delete, Data masking's upsert).
 */
function settingsOpId(ext: string, method: Method): string {
  if (ext === "gifs-giphy" && method === "DELETE") return "delete-settings-giphy";
  if (ext === "data-masking" && method === "PUT") return "store-or-update-settings-data-masking";
  const verb = { POST: "store", PUT: "update", GET: "get", DELETE: "delete", PATCH: "update" }[method];
  return `${verb}-settings-${ext}`;
}

/** The settings operations of one extension, as the platform publishes them: store, update, get, delete (upsert forms: no store). */
function settingsOperations(ext: ExtensionSpec) {
  const spec = ext.settings!;
  const path = `/apps/:appId/extensions/${ext.id}/v1/settings`;
  // The fields' checks depend on what is stored (an update needs only what was not stored before): readSettings.
  const body = settingsFields(spec);
  const ops: [Method, (c: Ctx, body: Body) => ReturnType<typeof writeSettings>][] = [
    ...(spec.ops === "upsert" ? [] : [["POST", (c: Ctx, b: Body) => writeSettings(c, "store", b)] as [Method, (c: Ctx, body: Body) => ReturnType<typeof writeSettings>]]),
    ["PUT", (c, b) => writeSettings(c, "update", b)],
    ["GET", (c) => getSettings(c)],
    ["DELETE", (c) => deleteSettings(c)],
  ];
  return ops.map(([method, run]) =>
    operation({ id: settingsOpId(ext.id, method), method, path, plane: "management", ...(method === "POST" || method === "PUT" ? { body } : {}), handler: (c, input) => run(c, input.body) }),
  );
}

function getSettings(c: Ctx) {
  const started = performance.now();
  const { app, ext, spec } = settingsTarget(c, "get");
  return serviceReply(c, { data: { settings: settingsView(app, ext, spec, { ...effectiveSettings(app, ext.id), appId: app.meta.appId }) } }, started);
}

function deleteSettings(c: Ctx) {
  const started = performance.now();
  const { app, ext, spec } = settingsTarget(c, "delete");
  const { settings: _gone, ...state } = app.management.extensions[ext.id]!;
  app.management.extensions[ext.id] = { ...state, updatedAt: c.get("emulator").clock.now() };
  return serviceReply(c, deleteReply(app, ext, spec), started);
}

const EXTENSION_IDS = { type: "array", max: 100, items: { required: true, type: "string", max: 100 } } as const;

/** Management plane: the extension list, enable/disable, every extension's settings, the chat widget, push certificates. */
export const extensions = routes(
  operation({
    id: "list-extensions",
    method: "GET",
    path: "/apps/:appId/extensions",
    plane: "management",
    query: pageQuery(25),
    handler: (c, { query }) => {
      const app = pathApp(c);
      const { perPage, page: pageNo } = query;
      const { data, pagination } = pageOf(EXTENSIONS, perPage, pageNo);
      // `links.next` (the example's) addresses the next page while there is one.
      const next = new URL(c.req.url);
      next.searchParams.set("page", String(pageNo + 1));
      const links = pageNo < pagination.total_pages ? { next: next.toString() } : {};
      return c.json({ data: data.map((e) => extensionView(app, e)), meta: { pagination: { ...pagination, links } } });
    },
  }),
  operation({
    id: "enable-extension",
    method: "POST",
    path: "/apps/:appId/extensions",
    plane: "management",
    body: { enabled: EXTENSION_IDS, disabled: EXTENSION_IDS },
    handler: (c, { body }) => {
      const app = pathApp(c);
      if (body.enabled === undefined && body.disabled === undefined)
        throw badRequest({ enabled: ["The enabled field is required when disabled is not present."] });
      const data: Record<string, Record<string, unknown>> = {};
      for (const [list, on] of [["enabled", true], ["disabled", false]] as const) {
        if (body[list] === undefined) continue;
        data[list] = keyedMap();
        for (const id of body[list] as string[]) {
          try {
            data[list][id] = setEnabled(c, app, id, on);
          } catch (e) {
            data[list][id] = bulkFailure(e);
          }
        }
      }
      return ok(c, data);
    },
  }),

  operation({
    id: "store-chat-widget",
    method: "POST",
    path: "/apps/:appId/extensions/widget/v2/settings",
    plane: "management",
    body: WIDGET_BODY,
    handler: async (c, { body }) => {
      const started = performance.now();
      const app = pathApp(c);
      requireEnabled(app, "widget");
      const { settings } = await widgetSettings(body);
      const now = c.get("emulator").clock.now();
      const widgetId = randomUuid();
      app.management.widgets = [...app.management.widgets, { widgetId, settings, createdAt: now, updatedAt: now }];
      return serviceReply(c, { data: { widgetId } }, started);
    },
  }),
  operation({
    id: "update-chat-widget",
    method: "PUT",
    path: "/apps/:appId/extensions/widget/v2/settings",
    plane: "management",
    body: WIDGET_BODY,
    handler: async (c, { body }) => {
      const started = performance.now();
      const app = pathApp(c);
      requireEnabled(app, "widget");
      const { settings, widgetId } = await widgetSettings(body, true);
      const widget = app.management.widgets.find((w) => w.widgetId === widgetId);
      if (!widget) throw badRequest({ "settings.widgetId": ["The selected settings.widgetId is invalid."] });
      app.management.widgets = app.management.widgets.map((w) =>
        w === widget ? { ...w, settings, updatedAt: c.get("emulator").clock.now() } : w,
      );
      return serviceReply(c, { data: { success: true } }, started);
    },
  }),
  operation({
    id: "list-chat-widget",
    method: "GET",
    path: "/apps/:appId/extensions/widget/v2/settings",
    plane: "management",
    handler: (c) => {
      const started = performance.now();
      const app = pathApp(c);
      requireEnabled(app, "widget");
      const configuration = app.management.widgets.map((w) => ({ ...w.settings, appId: app.meta.appId, widgetId: w.widgetId }));
      return serviceReply(c, { data: { configuration } }, started);
    },
  }),

  ...certificates,
  ...EXTENSIONS.filter((e) => e.settings).flatMap(settingsOperations),
);
