import type { Ctx } from "../../http/context.js";
import { apiError, badRequest, keyedMap } from "../../http/errors.js";
import { PAGE_QUERY, pageOf } from "../../http/pagination.js";
import { bulkFailure, ok, page, success } from "../../http/reply.js";
import { asBool, requireCredentials, type Body } from "../../http/validate.js";
import type { Schema } from "../../http/schema.js";
import { operation, routes } from "../../http/operation.js";
import { q } from "../../http/query-spec.js";
import type { AppState } from "../../store/app-state.js";
import type { WebhookRecord } from "../../store/types.js";
import { LEGACY_TRIGGERS, TRIGGERS } from "../../webhooks/triggers.js";
import { pathApp } from "../apps/routes.js";

export const WEBHOOKS_PER_APP = 25;

const FIELDS: Schema = {
  // rest-api/management-apis.mdx, name: "It can have a maximum of 50 characters."
  name: { type: "string", max: 50 },
  webhookURL: { type: "string", max: 255, url: "called" },
  useBasicAuth: { type: "boolean" },
  username: { type: "string", max: 50 },
  password: { type: "string", max: 100 },
  enabled: { type: "boolean" },
  retryOnFailure: { type: "boolean" },
};

/** `X-Webhook-Version: 2` addresses the current system; without it, the legacy one. */
function versionOf(c: Ctx): 1 | 2 {
  return c.req.header("x-webhook-version") === "2" ? 2 : 1;
}

function catalogue(version: 1 | 2) {
  return version === 2 ? TRIGGERS : LEGACY_TRIGGERS;
}

function webhookView(w: WebhookRecord): Record<string, unknown> {
  const out: Record<string, unknown> = { id: w.id, name: w.name, webhookURL: w.webhookURL, useBasicAuth: w.useBasicAuth };
  if (w.username !== undefined) out.username = w.username;
  out.enabled = w.enabled;
  out.retryOnFailure = w.retryOnFailure;
  out.createdAt = w.createdAt;
  out.updatedAt = w.updatedAt;
  return out;
}

function pathWebhook(c: Ctx): { app: AppState; webhook: WebhookRecord } {
  const app = pathApp(c);
  const id = c.req.param("webhookId")!;
  const webhook = app.webhooks.get(id);
  if (!webhook || webhook.version !== versionOf(c)) throw apiError("ERR_WEBHOOK_NOT_FOUND", { id });
  return { app, webhook };
}

function applyFields(w: WebhookRecord, body: Body): void {
  for (const k of ["name", "webhookURL", "username", "password"] as const) if (typeof body[k] === "string") w[k] = body[k] as string;
  for (const k of ["useBasicAuth", "enabled", "retryOnFailure"] as const) if (body[k] !== undefined) w[k] = asBool(body[k]);
}


const TRIGGER_IDS: Schema = { triggerIds: { required: true, type: "array", items: { required: true, type: "string" } } };
/** Every webhook operation reads the version header: absent, the legacy system; `2`, the current one. */
const HEADERS = ["X-Webhook-Version"];

/** Management plane: `/apps/{appId}/webhooks` and their triggers. */
export const webhooks = routes(
  operation({
    id: "create-webhook",
    method: "POST",
    path: "/apps/:appId/webhooks",
    plane: "management",
    headers: HEADERS,
    body: {
      id: { required: true, type: "string", max: 50, pattern: /^[A-Za-z0-9_-]+$/, patternMessage: "The id may only contain letters, numbers, dashes and underscores." },
      ...FIELDS,
      name: { required: true, type: "string", max: 50 },
      webhookURL: { required: true, type: "string", max: 255, url: "called" },
    },
    handler: (c, { body }) => {
      const app = pathApp(c);
      const id = body.id as string;
      if (app.webhooks.has(id)) throw badRequest({ id: ["The id has already been taken."] });
      if (app.webhooks.size >= WEBHOOKS_PER_APP)
        throw apiError("ERR_PLAN_QUOTA_RESTRICTION", { what: `The app ${app.meta.appId} has reached the limit of ${WEBHOOKS_PER_APP} webhooks.` });
      const now = c.get("emulator").clock.now();
      const w: WebhookRecord = { id, name: "", webhookURL: "", useBasicAuth: false, enabled: true, retryOnFailure: false, version: versionOf(c), triggers: [], createdAt: now, updatedAt: now };
      applyFields(w, body);
      requireCredentials(w);
      app.webhooks.set(id, w);
      return ok(c, webhookView(w));
    },
  }),
  operation({
    id: "list-webhooks",
    method: "GET",
    path: "/apps/:appId/webhooks",
    plane: "management",
    headers: HEADERS,
    query: { searchKey: q.str(), ...PAGE_QUERY },
    handler: (c, { query }) => {
      const app = pathApp(c);
      const searchKey = query.searchKey?.toLowerCase();
      const version = versionOf(c);
      const list = [...app.webhooks.values()].filter((w) => w.version === version && (!searchKey || w.name.toLowerCase().includes(searchKey)));
      const { data, pagination } = pageOf(list, query.perPage, query.page);
      return page(c, data.map(webhookView), pagination);
    },
  }),
  operation({
    id: "get-webhook",
    method: "GET",
    path: "/apps/:appId/webhooks/:webhookId",
    plane: "management",
    headers: HEADERS,
    handler: (c) => ok(c, webhookView(pathWebhook(c).webhook)),
  }),
  operation({
    id: "update-webhook",
    method: "PUT",
    path: "/apps/:appId/webhooks/:webhookId",
    plane: "management",
    headers: HEADERS,
    body: { ...FIELDS, name: { filled: true, type: "string", max: 50 }, webhookURL: { filled: true, type: "string", max: 255, url: "called" } },
    handler: (c, { body }) => {
      const { webhook } = pathWebhook(c);
      const next = { ...webhook };
      applyFields(next, body);
      requireCredentials(next);
      Object.assign(webhook, next, { updatedAt: c.get("emulator").clock.now() });
      return ok(c, webhookView(webhook));
    },
  }),
  operation({
    id: "delete-webhook",
    method: "DELETE",
    path: "/apps/:appId/webhooks/:webhookId",
    plane: "management",
    headers: HEADERS,
    handler: (c) => {
      const { app, webhook } = pathWebhook(c);
      app.webhooks.delete(webhook.id);
      return success(c, "Deleted Webhook successfully.");
    },
  }),

  operation({
    id: "add-triggers",
    method: "POST",
    path: "/apps/:appId/webhooks/:webhookId/triggers",
    plane: "management",
    headers: HEADERS,
    body: TRIGGER_IDS,
    handler: (c, { body }) => {
      const { webhook } = pathWebhook(c);
      const known = new Set(catalogue(webhook.version).map((t) => t.id));
      const data: Record<string, unknown> = keyedMap();
      for (const id of body.triggerIds as string[]) {
        try {
          if (!known.has(id)) throw apiError("ERR_TRIGGER_NOT_FOUND", { id });
          if (!webhook.triggers.includes(id)) webhook.triggers = [...webhook.triggers, id];
          data[id] = { success: true, message: "Triggers has been added successfully." };
        } catch (e) {
          data[id] = bulkFailure(e);
        }
      }
      return ok(c, data);
    },
  }),
  operation({
    id: "list-triggers",
    method: "GET",
    path: "/apps/:appId/webhooks/:webhookId/triggers",
    plane: "management",
    headers: HEADERS,
    handler: (c) => {
      const { webhook } = pathWebhook(c);
      const byId = new Map(catalogue(webhook.version).map((t) => [t.id, t]));
      const { data, pagination } = pageOf(webhook.triggers.map((id) => ({ id, category: byId.get(id)!.category, description: byId.get(id)!.description })), 100, 1);
      return page(c, data, pagination);
    },
  }),
  operation({
    id: "remove-triggers",
    method: "DELETE",
    path: "/apps/:appId/webhooks/:webhookId/triggers",
    plane: "management",
    headers: HEADERS,
    body: TRIGGER_IDS,
    handler: (c, { body }) => {
      const { webhook } = pathWebhook(c);
      const remove = new Set(body.triggerIds as string[]);
      webhook.triggers = webhook.triggers.filter((t) => !remove.has(t));
      return success(c, "Removed trigger successfully.");
    },
  }),
);
