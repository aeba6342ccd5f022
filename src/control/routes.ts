import { Hono } from "hono";
import type { Env } from "../http/context.js";
import { apiError, badRequest } from "../http/errors.js";
import { jsonBodyChunks, MAX_JSON_DEPTH, readBody, tooLarge, validate } from "../http/validate.js";
import { parseSavedState, readingDocument, SeedError } from "../store/seed.js";
import { DocumentError, readDocumentStream } from "../store/state-reader.js";
import { stateText } from "../store/state-writer.js";
import { deliveries } from "./webhooks.js";
import { Input } from "./input.js";
import { notificationsRoutes } from "./notifications.js";
import { appsRoutes } from "./apps.js";
import { extensionCallRoutes } from "./extension-calls.js";
import { inspector } from "./ui.js";
import { streams } from "./streams.js";
import { controlCalls } from "./calls.js";
import { controlAiAndCampaigns } from "./campaigns.js";
import { sessionRoutes } from "./sessions.js";
import { clockRoutes } from "./clock-routes.js";
import { journalRoutes } from "./journal-routes.js";
import { coverageRoutes } from "./coverage-routes.js";
import { rateLimitRoutes } from "./rate-limit-routes.js";
import { adviceRoutes } from "./advice-routes.js";
import { rulesRoutes } from "./rules-routes.js";
import { snapshotRoutes } from "./snapshot-routes.js";
import { guardControl } from "./guard.js";
import { requireControlToken } from "./token.js";
import { OPENAPI } from "./openapi.js";
import { SERVED_PLANES, servedOpenApi } from "./served-openapi.js";
import { sdkServes } from "../client/endpoints.js";
import { schemaRoutes } from "./schema-routes.js";

/**
 * A whole state document (`PUT /_emulator/state`) may be large: up to this many bytes (a million messages take
 * about 330 MB). Read a part at a time (store/state-reader.ts), never held as one text; other routes keep theirs.
 */
export const STATE_BODY_LIMIT = 1024 * 1024 * 1024;
/** A state document nests the apps' records around the data users sent (itself at most MAX_JSON_DEPTH deep). */
const STATE_DEPTH = MAX_JSON_DEPTH + 16;

/** The OpenAPI description as last sent, and the address it names as its server (the one it was fetched from). */
let openapiText: { origin: string; text: string } | undefined;
function openapiFor(origin: string): string {
  if (openapiText?.origin !== origin) openapiText = { origin, text: JSON.stringify({ ...OPENAPI, servers: [{ url: origin, description: "the address this description was fetched from" }] }) };
  return openapiText.text;
}

/** The `/_emulator` control API (design §4). Responses are plain JSON objects, but for the web inspector (HTML) and the event streams. */
export const control = new Hono<Env>()
  .use("*", guardControl, requireControlToken)
  .route("/", inspector)
  .route("/", streams)
  .route("/", deliveries)
  .route("/", notificationsRoutes)
  .route("/", appsRoutes)
  .route("/", sessionRoutes)
  .route("/", extensionCallRoutes)
  // An OpenAPI 3.1 description of every route here (control/openapi.ts), behind the same guards.
  .get("/openapi.json", (c) => c.body(openapiFor(new URL(c.req.url).origin), 200, { "content-type": "application/json" }))
  // What each platform plane serves, generated from the declared operations (control/served-openapi.ts).
  .get("/openapi/:file", (c) => {
    const plane = SERVED_PLANES.find((p) => c.req.param("file") === `${p}.json`);
    if (!plane) throw apiError("ERR_API_NOT_FOUND");
    const { store } = c.get("emulator");
    const app = store.defaultAppId ? store.apps.get(store.defaultAppId.toLowerCase())?.meta : undefined;
    const text = servedOpenApi(plane, new URL(c.req.url).origin, { appId: app?.appId ?? "APP_ID", region: app?.region ?? "us" }, sdkServes);
    return c.body(text, 200, { "content-type": "application/json" });
  })
  .get("/health", (c) => {
    const { store, version, startedAtMs, persistence } = c.get("emulator");
    const health = {
      status: "ok",
      version,
      uptimeMs: Date.now() - startedAtMs,
      apps: [...store.apps.values()].map((a) => ({ appId: a.meta.appId, region: a.meta.region, name: a.meta.name })),
      defaultAppId: store.defaultAppId ?? null,
    };
    const reason = persistence?.problem;
    if (reason === undefined) return c.json(health);
    // 503, so that readiness probes (which look at the status) see it; the body is the envelope as well.
    return c.json({ ...health, status: "degraded", reason, ...apiError("ERR_EMULATOR_DEGRADED", { reason }).toBody("emulator") }, 503);
  })

  .post("/reset", async (c) => {
    const body = await readBody(c);
    // Unknown fields are refused, as on every control route (a typo such as "app" must not reset every app).
    const input = new Input();
    input.object(body, "", ["appId", "to"]);
    input.done();
    validate(body, { appId: { type: "string" }, to: { type: "string", in: ["seed", "empty"] } });
    const { store } = c.get("emulator");
    const appId = (body.appId as string | undefined)?.toLowerCase();
    if (appId !== undefined && !store.apps.has(appId)) throw apiError("ERR_APP_NOT_FOUND", { appId });
    const to = (body.to as "seed" | "empty" | undefined) ?? "seed";
    store.reset({ appId, to });
    return c.json({ reset: appId ? [appId] : [...store.apps.keys()], to });
  })

  // Streamed a piece at a time (state-writer.ts): exporting a million messages never holds up other requests.
  .get("/state", (c) => {
    const pieces = stateText(c.get("emulator").store.toData());
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await pieces.next();
        if (next.done) controller.close();
        else controller.enqueue(Buffer.from(next.value));
      },
      cancel: () => void pieces.return(undefined),
    });
    return c.body(body, 200, { "content-type": "application/json" });
  })

  .put("/state", async (c) => {
    const { doc, dispose } = await readDocumentStream(jsonBodyChunks(c, STATE_BODY_LIMIT), {
      maxDepth: STATE_DEPTH,
      maxBytes: STATE_BODY_LIMIT,
      tooLarge: () => tooLarge(STATE_BODY_LIMIT),
    }).catch((e: unknown) => {
      if (e instanceof DocumentError) throw badRequest({ body: [`The request body ${e.message}.`] });
      throw e;
    });
    const { store, clock } = c.get("emulator");
    try {
      if (typeof doc !== "object" || doc === null || Array.isArray(doc))
        throw badRequest({ body: ["The request body must be a JSON object."] });
      const { apps, births } = readingDocument("state", () => parseSavedState(doc, clock.now(), "state"));
      store.replace(apps, births);
    } catch (e) {
      if (e instanceof SeedError) throw badRequest({ state: [e.message] });
      throw e;
    } finally {
      await dispose();
    }
    return c.json({ apps: [...store.apps.keys()] });
  })
  .route("/rules", rulesRoutes)
  .route("/requests", journalRoutes)
  .route("/coverage", coverageRoutes)
  .route("/clock", clockRoutes)
  .route("/snapshots", snapshotRoutes)
  .route("/rate-limits", rateLimitRoutes)
  .route("/advice", adviceRoutes)
  .route("/schemas", schemaRoutes);

control.route("/", controlCalls);
control.route("/", controlAiAndCampaigns);

/**
 * `GET /_emulator`: the control API's index, read from its own routes so that it cannot miss one (itself and the
 * inspector's page, sign-in and files included). Paths name their parameters as `{name}` (the inspector's files
 * `{file}`).
 */
let index: { method: string; path: string }[] | undefined;
const SERVED_DOCS = Object.fromEntries(SERVED_PLANES.map((p) => [p, `/_emulator/openapi/${p}.json`]));
control.get("/", (c) => {
  index ??= [
    ...new Map(
      control.routes
        .filter((r) => r.method !== "ALL")
        .map((r) => {
          const path = `/_emulator${r.path.replace(/:(\w+)(\{[^}]*\})?/g, "{$1}").replace(/\/\*$/, "/{file}").replace(/\/$/, "")}`;
          return [`${r.method} ${path}`, { method: r.method, path }] as const;
        }),
    ).values(),
  ].sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
  return c.json({ version: c.get("emulator").version, docs: "docs/control-api.md", openapi: "/_emulator/openapi.json", served: SERVED_DOCS, endpoints: index });
});
