import { Hono, type MiddlewareHandler } from "hono";
import { header, type Env } from "../../http/context.js";
import { apiError, badRequest, maskKey } from "../../http/errors.js";
import { ok } from "../../http/reply.js";
import { operation, routes } from "../../http/operation.js";
import type { TenantRecord } from "../../store/management.js";
import { REGIONS, type Region } from "../../store/types.js";

/**
 * `POST /tenants`: a new customer account with its first app, as the management reference declares it, behind
 * HTTP Basic authentication (user: the management key, password: the management secret) instead of the
 * key/secret headers of every other management operation.
 */
const basicAuth: MiddlewareHandler<Env> = (c, next) => {
  const { management } = c.get("emulator");
  const auth = header(c, "authorization");
  const m = auth ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(auth) : null;
  if (!m) throw apiError("AUTH_ERR_EMPTY_AUTH_HEADER", { missing: "Basic authorization header is" });
  const decoded = Buffer.from(m[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  const user = colon === -1 ? decoded : decoded.slice(0, colon);
  const password = colon === -1 ? "" : decoded.slice(colon + 1);
  if (user !== management.key || password !== management.secret) throw apiError("AUTH_ERR_INVALID_CREDENTIALS", { key: maskKey(user) });
  return next();
};

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Basic authentication runs first (a request without it is refused before its body is read), then the declared
 * operation. The management reference gives no operation id for it.
 */
export const tenants = new Hono<Env>().post("/tenants", basicAuth).route(
  "/",
  routes(
    operation({
      id: "add-tenant",
      method: "POST",
      path: "/tenants",
      plane: "management",
      body: {
        name: { required: true, type: "string", max: 100 },
        email: { required: true, type: "string", max: 255, pattern: EMAIL, patternMessage: "The email must be a valid email address." },
        password: { required: true, type: "string", max: 255 },
        appName: { required: true, type: "string", max: 100 },
        appRegion: { required: true, type: "string", in: REGIONS },
        contactNumber: { type: "string", max: 50 },
        role: { type: "string", max: 100 },
        industry: { type: "string", max: 100 },
        technology: { type: "string", max: 100 },
      },
      handler: (c, { body }) => {
        const { store, clock } = c.get("emulator");
        const email = (body.email as string).toLowerCase();
        // Accounts are few (one per tenant app): a walk over the apps, not over any app's records.
        for (const app of store.apps.values())
          if (app.management.tenant?.email === email) throw badRequest({ email: ["The email has already been taken."] });
        const now = clock.now();
        const tenant: TenantRecord = { name: body.name as string, email, createdAt: now };
        for (const k of ["contactNumber", "role", "industry", "technology"] as const) if (typeof body[k] === "string") tenant[k] = body[k] as string;
        const app = store.createApp({ name: body.appName as string, region: body.appRegion as Region, plan: "Build", tenant });
        const keys = [...app.apiKeys.values()];
        return ok(c, {
          name: tenant.name,
          email: tenant.email,
          createdAt: now,
          ...(tenant.contactNumber !== undefined ? { contactNumber: tenant.contactNumber } : {}),
          app: {
            name: app.meta.name,
            appId: app.meta.appId,
            region: app.meta.region,
            authKey: keys.find((k) => k.scope === "authOnly")!.apiKey,
            apiKey: keys.find((k) => k.scope === "fullAccess")!.apiKey,
            createdAt: app.meta.createdAt,
            plan: app.meta.plan,
          },
        });
      },
    }),
  ),
);
