import { Hono } from "hono";
import type { Env } from "../http/context.js";

/**
 * `GET /_emulator/apps`: what a browser or a script needs to call the planes of every app: the base paths, the
 * API keys, which app is the default, and the management key and secret.
 */
export const appsRoutes = new Hono<Env>().get("/apps", (c) => {
  const { store, management } = c.get("emulator");
  return c.json({
    defaultAppId: store.defaultAppId ?? null,
    management: { path: "/apimgmt", key: management.key, secret: management.secret },
    apps: [...store.apps.values()].map(({ meta, apiKeys }) => ({
      appId: meta.appId,
      name: meta.name,
      region: meta.region,
      default: meta.appId === store.defaultAppId,
      restPath: `/${meta.appId}.api-${meta.region}/v3`,
      callsPath: `/${meta.appId}.call-${meta.region}/v3`,
      apiKeys: [...apiKeys.values()].map((k) => ({ apiKey: k.apiKey, name: k.name, scope: k.scope })),
    })),
  });
});
