import { DECLARED, type Operation, type OperationPlane } from "../http/operation.js";
import { queryParameters } from "../http/query-spec.js";
import type { JsonSchema } from "../http/schema.js";
import { ERROR_SCHEMA } from "./openapi.js";

/**
 * What the emulator serves, described for users' own tools (clients generated from OpenAPI, request validators, API
 * explorers): one OpenAPI 3.1 document per plane, `GET /_emulator/openapi/{plane}.json`, generated from the declared
 * operations (http/operation.ts), so it lists exactly what is served, with the bodies and query parameters each
 * operation takes and the limits it checks. Built once per plane and origin, on first request.
 */

export const SERVED_PLANES = ["rest", "management", "calls", "data-import", "campaigns", "client"] as const satisfies readonly OperationPlane[];

interface PlaneDoc {
  title: string;
  /** The server address after the emulator's origin (path-label form, docs/addressing.md). */
  base: string;
  variables?: Record<string, { default: string; description: string }>;
  security: Record<string, JsonSchema>;
}

const APP_VARIABLES = (appId: string, region: string) => ({
  appId: { default: appId, description: "the app's id (the default app's, printed at start)" },
  region: { default: region, description: "the app's region: us, eu or in" },
});

function planeDoc(plane: (typeof SERVED_PLANES)[number], appId: string, region: string): PlaneDoc {
  const apikey = { apikey: { type: "apiKey", in: "header", name: "apikey", description: "a REST API key of the app (fullAccess; authOnly for user and auth-token creation)" } };
  switch (plane) {
    case "rest":
      return { title: "Chat REST API", base: "/{appId}.api-{region}/v3", variables: APP_VARIABLES(appId, region), security: apikey };
    case "data-import":
      return { title: "Data import API", base: "/{appId}.api-{region}/v3", variables: APP_VARIABLES(appId, region), security: apikey };
    case "campaigns":
      return { title: "Campaigns API", base: "/{appId}.api-{region}/v3/campaigns", variables: APP_VARIABLES(appId, region), security: apikey };
    case "calls":
      return { title: "Calls API", base: "/{appId}.call-{region}/v3", variables: APP_VARIABLES(appId, region), security: apikey };
    case "management":
      return {
        title: "Management API",
        base: "/apimgmt",
        security: {
          key: { type: "apiKey", in: "header", name: "key", description: "--management-key" },
          secret: { type: "apiKey", in: "header", name: "secret", description: "--management-secret" },
        },
      };
    case "client":
      return {
        title: "Client plane (what the official SDKs call)",
        base: "/{appId}.apiclient-{region}/v3.0",
        variables: APP_VARIABLES(appId, region),
        security: {
          appId: { type: "apiKey", in: "header", name: "appId", description: "the app's id" },
          authToken: { type: "apiKey", in: "header", name: "authToken", description: "a user's auth token (REST: POST /users/{uid}/auth_tokens)" },
        },
      };
  }
}

/** `:uid` → `{uid}`. */
const templated = (path: string) => path.replace(/:(\w+)(\{[^}]*\})?/g, "{$1}");

/** Operations served on `plane`: the REST plane's routes the SDK may call are the client plane's too. */
function operationsOn(plane: OperationPlane, clientServes: (method: string, path: string) => boolean): Operation[] {
  if (plane !== "client") return DECLARED.filter((op) => op.plane === plane);
  return DECLARED.filter((op) => op.plane === "client" || (op.plane === "rest" && clientServes(op.method, op.path)));
}

/** A declaration's body schema without the emulator's `x-` keywords' internals (they stay as annotations). */
function describe(op: Operation, plane: OperationPlane): JsonSchema {
  const pathParams = [...op.path.matchAll(/:(\w+)/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: { type: "string" } }));
  const headerParams = (op.headers ?? []).map((name) => ({ name, in: "header", required: false, schema: { type: "string" } }));
  const operationId = op.id ?? `${plane}-${op.method.toLowerCase()}${op.path.replace(/[/:]+/g, "-").replace(/-$/, "")}`;
  const out: JsonSchema = {
    operationId,
    ...(op.summary && { summary: op.summary }),
    parameters: [...pathParams, ...(op.query ? queryParameters(op.query) : []), ...headerParams],
    responses: {
      "200": { description: "Success: `{data}` (lists add `meta`)", content: { "application/json": { schema: { type: "object", properties: { data: {} } } } } },
      default: { $ref: "#/components/responses/Error" },
    },
  };
  if (op.bodyJson) out.requestBody = { required: false, content: { "application/json": { schema: op.bodyJson } } };
  else if (op.rawJson) out.requestBody = { required: false, content: { "application/json": { schema: op.rawJson }, "multipart/form-data": { schema: op.rawJson } } };
  else if (op.body === "raw") out.requestBody = { required: false, content: { "*/*": { schema: {} } } };
  return out;
}

const built = new Map<string, string>();

/** The document of `plane` as sent, for requests that came to `origin` (its `servers` entry names that address). */
export function servedOpenApi(plane: (typeof SERVED_PLANES)[number], origin: string, app: { appId: string; region: string }, clientServes: (method: string, path: string) => boolean): string {
  const key = `${plane} ${origin} ${app.appId} ${app.region}`;
  const cached = built.get(key);
  if (cached) return cached;
  const doc = planeDoc(plane, app.appId, app.region);
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const op of operationsOn(plane, clientServes)) (paths[templated(op.path)] ??= {})[op.method.toLowerCase()] = describe(op, plane);
  const text = JSON.stringify({
    openapi: "3.1.0",
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    info: {
      title: `chat-emulator: ${doc.title}`,
      description:
        "What the emulator serves on this plane, generated from its declared operations: each operation's body fields and query parameters with the limits it checks. Keywords starting with x- are the emulator's (x-type: the type the platform coerces a value from; x-url, x-max-kb, x-message, x-filled). Errors use the platform's envelope.",
      version: "1",
    },
    servers: [{ url: `${origin}${doc.base}`, ...(doc.variables && { variables: doc.variables }) }],
    security: [Object.fromEntries(Object.keys(doc.security).map((k) => [k, []]))],
    paths,
    components: {
      securitySchemes: doc.security,
      responses: { Error: { description: "An error, in the platform's envelope", content: { "application/json": { schema: ERROR_SCHEMA } } } },
    },
  });
  if (built.size < 64) built.set(key, text);
  return text;
}
