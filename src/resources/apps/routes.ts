import type { Ctx } from "../../http/context.js";
import { apiError, keyedMap } from "../../http/errors.js";
import { pageOf, pageQuery } from "../../http/pagination.js";
import { ok, page } from "../../http/reply.js";
import { asBool } from "../../http/validate.js";
import { operation, routes } from "../../http/operation.js";
import { q } from "../../http/query-spec.js";
import type { AppState } from "../../store/app-state.js";
import { REGIONS, type Region } from "../../store/types.js";
import { reportedApps, usageReport } from "./usage.js";

const REGION_INFO: Record<Region, { id: Region; name: string; description: string }> = {
  us: { id: "us", name: "USA", description: "The USA region has servers located at Ohio." },
  eu: { id: "eu", name: "Europe", description: "The Europe region has servers located at Ireland." },
  in: { id: "in", name: "India", description: "The India region has servers located at Mumbai." },
};

const TRIAL_DAYS = 30;
const ARCHIVE_DAYS = 30;

/** Who owns the app: the tenant account that created it, or the emulator's own account. */
export function appOwner(app: AppState): { id: string; name: string; email: string } {
  // The account id is a number in `owner` but a string in `appOwner.id` (the app schema and both examples).
  const tenant = app.management.tenant;
  return tenant ? { id: "1", name: tenant.name, email: tenant.email } : { id: "1", name: "Chat Emulator", email: "owner@chat-emulator.local" };
}

/** The management API's app object, with its API keys keyed by value. */
export function appView(app: AppState): Record<string, unknown> {
  const apiKeys: Record<string, unknown> = keyedMap();
  for (const k of app.apiKeys.values())
    apiKeys[k.apiKey] = { apiKey: k.apiKey, name: k.name, scope: k.scope, createdBy: k.createdBy ?? "app_system" };
  const m = app.meta;
  return {
    id: m.appId,
    name: m.name,
    plan: m.plan,
    trialEndsAt: m.createdAt + TRIAL_DAYS * 86400,
    state: m.state,
    owner: 1,
    region: m.region,
    version: m.version,
    createdAt: m.createdAt,
    appOwner: appOwner(app),
    appRegion: REGION_INFO[m.region],
    apiKeys,
  };
}

export function pathApp(c: Ctx): AppState {
  const appId = c.req.param("appId")!.toLowerCase();
  const { store } = c.get("emulator");
  const app = store.apps.get(appId);
  if (app) return app;
  throw apiError(store.isArchived(appId) ? "ERR_APP_ARCHIVED" : "ERR_APP_NOT_FOUND", { appId });
}

export const apps = routes(
  operation({
    id: "create-app",
    method: "POST",
    path: "/apps",
    plane: "management",
    body: {
      name: { required: true, type: "string", max: 100 },
      region: { type: "string", in: REGIONS },
      version: { type: "string", in: ["3"] },
      skipSampleData: { type: "boolean" },
    },
    handler: (c, { body }) => {
      const app = c.get("emulator").store.createApp({
        name: body.name as string,
        region: (body.region as Region | undefined) ?? "us",
        skipSampleData: asBool(body.skipSampleData),
      });
      return ok(c, appView(app));
    },
  }),

  operation({
    id: "list-apps",
    method: "GET",
    path: "/apps",
    plane: "management",
    query: { searchKey: q.str(), ...pageQuery(25) },
    handler: (c, { query }) => {
      const searchKey = query.searchKey?.toLowerCase();
      const { perPage, page: pageNo } = query;
      const matching = [...c.get("emulator").store.apps.values()].filter(
        (a) => !searchKey || a.meta.appId.includes(searchKey) || a.meta.name.toLowerCase().includes(searchKey),
      );
      const { data, pagination } = pageOf(matching, perPage, pageNo);
      // The list's items also carry `accessKey`: the app's (first) full-access key, as the list example shows.
      const listed = data.map((a) => ({ ...appView(a), accessKey: [...a.apiKeys.values()].find((k) => k.scope === "fullAccess")?.apiKey ?? null }));
      return page(c, listed, pagination);
    },
  }),

  operation({
    id: "fetch-multi-tenant-usage",
    method: "POST",
    path: "/apps/:appId/usage",
    plane: "management",
    body: { usePreviousBillingCycle: { type: "boolean" } },
    handler: (c, { body }) => {
      const app = pathApp(c);
      const { store, clock } = c.get("emulator");
      const report = usageReport(reportedApps(store.apps.values(), app), clock.now(), asBool(body.usePreviousBillingCycle));
      const message =
        `Your usage request has been accepted and is being processed for ${report.cycle.name}. ` +
        `You will receive an email with the details at ${appOwner(app).email}`;
      return ok(c, { success: true, message, usage: report });
    },
  }),

  operation({
    id: "delete-app",
    method: "DELETE",
    path: "/apps/:appId",
    plane: "management",
    handler: (c) => {
      const app = pathApp(c);
      const { store, clock } = c.get("emulator");
      store.deleteApp(app.meta.appId);
      return ok(c, { success: true, scheduledToDeleteAt: clock.now() + ARCHIVE_DAYS * 86400 });
    },
  }),
);
