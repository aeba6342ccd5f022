import { AI_FEATURES, type AiFeature } from "../store/ai-scripts.js";
import { CALL_MODES, CALL_STATUSES, CALL_TYPES, PARTICIPANT_STATES } from "../store/types.js";
import { METHODS } from "./journal-routes.js";
import { CHANNELS, NOTIFICATION_STATUSES, PROVIDERS } from "./notifications.js";
import { PLANES } from "./request.js";
import { ADVICE_CODES } from "../http/advice.js";
import { SCHEMA_FILES } from "./schema-routes.js";

/**
 * `GET /_emulator/openapi.json`: an OpenAPI 3.1 description of every `/_emulator` route (the inspector's page and
 * files and the event streams included), with JSON Schema 2020-12 schemas for bodies, parameters and answers, and
 * the error envelope as one shared component. A static object, built once; test/control-openapi.test.ts checks
 * that it names exactly the routes the control router serves, that the examples of docs/control-api.md and live
 * answers fit its schemas.
 */

type Json = Record<string, unknown>;

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const str = (description?: string, extra: Json = {}): Json => ({ type: "string", ...(description && { description }), ...extra });
const int = (description?: string, extra: Json = {}): Json => ({ type: "integer", ...(description && { description }), ...extra });
const num = (description?: string, extra: Json = {}): Json => ({ type: "number", ...(description && { description }), ...extra });
const bool = (description?: string): Json => ({ type: "boolean", ...(description && { description }) });
const arr = (items: Json, extra: Json = {}): Json => ({ type: "array", items, ...extra });
const nullable = (schema: Json): Json => (schema.$ref ? { anyOf: [schema, { type: "null" }] } : { ...schema, type: [schema.type as string, "null"] });
const oneOf = (values: readonly string[], description?: string): Json => ({ type: "string", enum: [...values], ...(description && { description }) });
/** An object; every property is required unless listed in `optional`. */
function obj(properties: Record<string, Json>, optional: string[] = [], extra: Json = {}): Json {
  const required = Object.keys(properties).filter((k) => !optional.includes(k));
  return { type: "object", properties, ...(required.length > 0 && { required }), ...extra };
}
/** A request body's object: unknown fields are refused (400 ERR_BAD_REQUEST). */
const closed = (properties: Record<string, Json>, optional: string[] = Object.keys(properties)): Json =>
  obj(properties, optional, { additionalProperties: false });

const UNIX_SECONDS = "Unix seconds (emulator clock)";
const UNIX_MS = "Unix milliseconds (emulator clock)";
const LIMIT = int(undefined, { minimum: 0, maximum: 1_000_000_000 });

/** What a test may script for each AI feature (the record's type keeps it in step with AI_FEATURES). */
const AI_ANSWERS: Record<AiFeature, Json> = {
  "conversation-starter": arr(str(undefined, { maxLength: 1000 }), { maxItems: 20 }),
  "smart-replies": { type: "object", additionalProperties: str() },
  "conversation-summary": str(undefined, { maxLength: 10_000 }),
  bots: str(undefined, { maxLength: 10_000 }),
};

/** The error envelope of every plane (the served platform descriptions use it too: control/served-openapi.ts). */
export const ERROR_SCHEMA: Json = obj(
    {
      error: obj(
        {
          message: str(),
          devMessage: str(),
          source: str('"emulator" for the control plane\'s own errors'),
          code: str("e.g. ERR_BAD_REQUEST, ERR_RULE_NOT_FOUND, AUTH_ERR_EMPTY_EMULATOR_TOKEN", { examples: ["ERR_BAD_REQUEST"] }),
          details: {
            type: "object",
            description: "ERR_BAD_REQUEST: the sentences per field (or path: `participants[1].uid`)",
            additionalProperties: arr(str()),
          },
        },
        ["details"],
      ),
    },
    [],
    { description: "The error envelope of every plane; the control plane's carry `source: \"emulator\"`." },
);

const schemas: Record<string, Json> = {
  Error: ERROR_SCHEMA,
  Index: obj({
    version: str(),
    docs: str(undefined, { const: "docs/control-api.md" }),
    openapi: str("this description", { const: "/_emulator/openapi.json" }),
    served: obj(
      Object.fromEntries(["rest", "management", "calls", "data-import", "campaigns", "client"].map((p) => [p, str(undefined, { const: `/_emulator/openapi/${p}.json` })])),
      [],
      { description: "What each platform plane serves, described in OpenAPI 3.1 (generated from the declared operations)" },
    ),
    endpoints: arr(obj({ method: str(), path: str("parameters named as `{name}`") })),
  }),
  Health: obj(
    {
      status: oneOf(["ok", "degraded"]),
      version: str(),
      uptimeMs: num(),
      apps: arr(obj({ appId: str(), region: str(), name: str() })),
      defaultAppId: nullable(str()),
      reason: str("degraded: why the data file cannot be saved"),
      error: { $ref: "#/components/schemas/Error/properties/error" },
    },
    ["reason", "error"],
  ),
  Apps: obj({
    defaultAppId: nullable(str()),
    management: obj({ path: str(), key: str(), secret: str() }),
    apps: arr(
      obj({
        appId: str(),
        name: str(),
        region: str(),
        default: bool(),
        restPath: str(undefined, { examples: ["/62c95aeb231ec058.api-us/v3"] }),
        callsPath: str(),
        apiKeys: arr(obj({ apiKey: str(), name: str(), scope: str() })),
      }),
    ),
  }),
  StateDocument: {
    type: "object",
    description: "The whole state in the data-file format (docs/data-files.md)",
  },
  Attempt: obj({ at: int(UNIX_MS), status: int("the HTTP status answered"), error: str(), durationMs: num() }, ["status", "error"]),
  Delivery: obj(
    {
      id: int(),
      appId: str(),
      kind: oneOf(["webhook", "bot"]),
      webhook: str("kind webhook: the webhook's id"),
      bot: str("kind bot: the bot's uid"),
      event: str("the trigger"),
      payload: { type: "object" },
      status: oneOf(["pending", "retrying", "delivered", "failed"]),
      attempts: arr(ref("Attempt")),
      createdAt: int(UNIX_MS),
    },
    ["webhook", "bot"],
  ),
  Notification: obj(
    {
      id: int(),
      _id: str(),
      appId: str(),
      uid: str("the user notified"),
      channel: oneOf(CHANNELS),
      provider: oneOf(PROVIDERS),
      event: str(),
      trigger: str(),
      conversationId: str(),
      messageId: int(),
      messageSentAtMS: num(),
      sender: str(),
      receiver: str(),
      receiverType: oneOf(["user", "group"]),
      notificationTriggered: bool(),
      status: oneOf(NOTIFICATION_STATUSES),
      attempts: arr(ref("Attempt")),
      createdAt: int(UNIX_MS),
      processingStartedAtMS: num(),
    },
    [],
    { description: "Also, as they apply: providerId, tokenType, pushToken, reactionId, member, title, body, payload, reason, success, dueAt, processingEndedAtMS" },
  ),
  Session: obj({
    id: int(),
    appId: str(),
    uid: str(),
    deviceId: str(),
    platform: str(),
    since: str(undefined, { format: "date-time" }),
    presenceSubscription: oneOf(["ALL_USERS", "FRIENDS", "ROLES", "NONE"]),
  }),
  Frame: obj(
    {
      id: int(),
      time: str(undefined, { format: "date-time" }),
      appId: str(),
      direction: oneOf(["in", "out"]),
      to: int("out: how many sockets it went to"),
      from: str("in: the sender"),
      type: str(),
      frame: { description: "the frame as sent or received" },
    },
    ["to", "from"],
  ),
  ExtensionCall: obj({
    seq: int(),
    at: num(),
    appId: str(),
    extension: str(),
    messageId: str(),
    service: str("who the platform would have called"),
    action: str("what it would have asked, in words"),
    input: str("the text, URL or file it would have sent"),
  }),
  CallInput: obj(
    {
      initiator: str("an active user of the app"),
      receiver: str("a uid, or a guid when receiverType is group"),
      receiverType: oneOf(["user", "group"]),
      type: oneOf(CALL_TYPES),
      mode: oneOf(CALL_MODES),
      status: oneOf(CALL_STATUSES),
      initiatedAt: int(UNIX_SECONDS),
      startedAt: int(UNIX_SECONDS),
      endedAt: int(UNIX_SECONDS),
      participants: arr(
        {
          anyOf: [
            str("a uid"),
            obj({ uid: str(), state: oneOf(PARTICIPANT_STATES), joinedAt: int(), leftAt: int(), deviceId: str() }, ["state", "joinedAt", "leftAt", "deviceId"]),
          ],
        },
        { maxItems: 50 },
      ),
      hasRecording: bool(),
      recordings: arr(obj({ startTime: int(), endTime: int() }, [])),
      hasTranscription: bool(),
      transcriptions: arr(obj({ startTime: int(), endTime: int() }, [])),
      tags: arr(str()),
      metadata: { description: "any JSON" },
      sessionId: str("v1.<region>.<appId>.<unix seconds><hex>"),
      mid: str(),
    },
    [
      "receiverType",
      "type",
      "mode",
      "status",
      "initiatedAt",
      "startedAt",
      "endedAt",
      "participants",
      "hasRecording",
      "recordings",
      "hasTranscription",
      "transcriptions",
      "tags",
      "metadata",
      "sessionId",
      "mid",
    ],
  ),
  Call: obj(
    {
      sessionId: str(),
      initiator: str(),
      receiver: str(),
      receiverType: oneOf(["user", "group"]),
      type: oneOf(CALL_TYPES),
      mode: oneOf(CALL_MODES),
      status: oneOf(CALL_STATUSES),
      initiatedAt: int(),
      hasRecording: bool(),
      hasTranscription: bool(),
      totalParticipants: int(),
      participants: arr({ type: "object" }),
    },
    [],
    { description: "The call as the calls API shows it (durations, recordings and transcriptions as they apply)" },
  ),
  RuleMatch: closed({
    method: str("an HTTP method or WS (case-insensitive)", { examples: METHODS }),
    path: str("a glob over the API path (`*` anything, `?` one character)", { pattern: "^[/*?]", maxLength: 1000 }),
    appId: str(undefined, { maxLength: 100 }),
    plane: oneOf(PLANES),
    frame: str("realtime latency: a WebSocket frame type the emulator sends (`message`, `receipts`, ...) or `*`; delays those frames instead of matching requests", {
      pattern: "^(\\*|[a-z][a-z_]*)$",
      maxLength: 100,
    }),
  }),
  RuleEffect: closed({
    status: int(undefined, { minimum: 400, maximum: 599 }),
    code: str(undefined, { pattern: "^[A-Z][A-Z0-9_]*$", maxLength: 100 }),
    message: str(undefined, { maxLength: 1000 }),
    latencyMs: int(undefined, { minimum: 0, maximum: 600_000 }),
    jitterMs: int(undefined, { minimum: 0, maximum: 600_000 }),
    reset: bool("close the connection without an answer"),
    retryAfter: int("seconds", { minimum: 0, maximum: 86_400 }),
  }),
  RuleInput: closed(
    {
      match: nullable(ref("RuleMatch")),
      effect: ref("RuleEffect"),
      probability: nullable(num(undefined, { minimum: 0, maximum: 1 })),
      times: nullable(int("apply N times, then expire", { minimum: 1 })),
    },
    ["match", "probability", "times"],
  ),
  Rule: obj({
    id: str(undefined, { examples: ["r1"] }),
    match: ref("RuleMatch"),
    effect: ref("RuleEffect"),
    probability: num(undefined, { minimum: 0, maximum: 1 }),
    times: nullable(int("applications left; null is unlimited", { minimum: 0 })),
    hits: int(),
    expired: bool(),
  }),
  JournalEntry: obj({
    id: int(),
    time: str("ISO 8601, emulator clock", { format: "date-time" }),
    timeMs: int(UNIX_MS),
    appId: nullable(str()),
    plane: { enum: [...PLANES, null] },
    method: str(),
    path: str(),
    query: { type: "object", additionalProperties: { anyOf: [str(), arr(str())] } },
    requestHeaders: { type: "object", additionalProperties: str(), description: "credentials masked" },
    requestBody: { description: "JSON, text, or a note of its size" },
    status: nullable(int("null when a rule reset the connection")),
    responseBody: { description: "JSON, text, or a note of its size" },
    durationMs: num(),
    rules: arr(str(), { description: "the ids of the rules that applied" }),
    advice: arr(ref("Advice"), { description: "what the platform would have ignored (docs/insight.md)" }),
  }),
  Advice: obj(
    {
      code: oneOf(ADVICE_CODES),
      in: oneOf(["body", "query", "header"]),
      name: str("the name as sent"),
      suggestion: str("the nearest name the operation knows"),
      message: str(),
    },
    ["suggestion"],
  ),
  Coverage: obj({
    appId: nullable(str("the app reported on; null for all apps together")),
    documented: int(),
    covered: int(),
    calls: int(),
    areas: arr(obj({ area: str(), documented: int(), covered: int() })),
    operations: arr(
      obj({
        slug: str("the platform's operation slug"),
        method: str(),
        path: str(),
        area: str(),
        calls: int(),
        plane: obj({ rest: int(), client: int("calls the SDK made on the client plane") }),
        statuses: { type: "object", additionalProperties: int(), description: "answers by HTTP status (\"reset\": a connection a rule closed)" },
        codes: { type: "object", additionalProperties: int(), description: "error codes answered" },
      }),
    ),
  }),
  AdviceSettings: obj({ header: bool("send advice in x-chat-emulator-advice"), strict: bool("refuse requests with advice (ERR_EMULATOR_STRICT)") }),
  Clock: obj({
    mode: oneOf(["real", "frozen"]),
    now: int(UNIX_SECONDS),
    nowMs: int(UNIX_MS),
    time: str(undefined, { format: "date-time" }),
  }),
  SnapshotInfo: obj({ name: str(), takenAtMs: int(UNIX_MS), apps: arr(str()), records: int() }),
  Limits: obj({ core: int(), standard: int() }),
  AppRateLimits: obj({
    appId: str(),
    limits: ref("Limits"),
    overridden: bool(),
    used: ref("Limits"),
    remaining: ref("Limits"),
    resetAt: int(UNIX_SECONDS),
  }),
  RateLimits: obj({ enabled: bool(), limits: ref("Limits"), apps: arr(ref("AppRateLimits")) }),
  AiAnswers: closed(Object.fromEntries(AI_FEATURES.map((f) => [f, AI_ANSWERS[f]]))),
  FeedItem: obj(
    {
      id: str(),
      templateCategory: str(),
      content: { type: "object" },
      metadata: { type: "object" },
      tags: arr(str()),
      sender: str(undefined, { const: "server" }),
      receiver: str(),
      receiverType: str(undefined, { const: "user" }),
      sentAt: int(UNIX_SECONDS),
      deliveredAt: nullable(int()),
      readAt: nullable(int()),
      channelId: str(),
      engagements: arr(obj({ topic: str(), at: int() })),
    },
    ["channelId", "engagements"],
  ),
  PushNotification: obj({
    id: str(),
    announcementId: str(),
    campaignId: nullable(str()),
    source: str(undefined, { const: "campaign" }),
    receiver: str(),
    sentAt: int(UNIX_SECONDS),
    deliveredAt: nullable(int()),
    clickedAt: nullable(int()),
  }),
  TemplateCategory: obj({ id: str(), name: str(), label: str(), createdAt: int(), updatedAt: int() }),
};

/**
 * Answers whose every field is listed: nothing else may appear (the test's live answers would show a new one).
 * Calls, notifications and state documents stay open (their fields vary with what happened).
 */
for (const name of ["Advice", "AdviceSettings", "Coverage", "Index", "Apps", "Attempt", "Delivery", "Session", "Frame", "ExtensionCall", "Rule", "JournalEntry", "Clock", "SnapshotInfo", "Limits", "AppRateLimits", "RateLimits", "FeedItem", "PushNotification", "TemplateCategory"])
  schemas[name].additionalProperties = false;

// ---- parameters ----

const q = (name: string, schema: Json, description?: string): Json => ({ name, in: "query", schema, ...(description && { description }) });
const pathParam = (name: string, description: string): Json => ({ name, in: "path", required: true, schema: str(), description });

const APP_ID = pathParam("appId", "an app's id (case-insensitive)");
const APP_FILTER = q("appId", str(), "only this app's");
const WAIT = q("wait", int(undefined, { minimum: 0, maximum: 60_000 }), "milliseconds to hold the request until a match exists");
const JOURNAL_FILTERS = [
  APP_FILTER,
  q("method", str(undefined, { examples: METHODS }), "an HTTP method or WS (case-insensitive)"),
  q("path", str(undefined, { maxLength: 1000 }), "a glob over the API path"),
  q("status", str(undefined, { pattern: "^[1-5](\\d\\d|xx|XX)$" }), "an HTTP status (404) or a class (4xx)"),
  q("since", str(), "Unix ms or ISO 8601 (emulator clock)"),
  q("afterId", int(undefined, { minimum: 0 }), "entries after this id"),
];
const DELIVERY_FILTERS = [
  APP_FILTER,
  q("kind", oneOf(["webhook", "bot"])),
  q("webhook", str(), "a webhook's id"),
  q("bot", str(), "a bot's uid"),
  q("trigger", str()),
  q("status", oneOf(["pending", "retrying", "delivered", "failed"])),
];
const NOTIFICATION_FILTERS = [
  APP_FILTER,
  q("uid", str()),
  q("channel", oneOf(CHANNELS)),
  q("provider", oneOf(PROVIDERS)),
  q("conversationId", str()),
  q("status", oneOf(NOTIFICATION_STATUSES)),
  q("event", str()),
];
const SESSION_FILTERS = [APP_FILTER, q("uid", str())];

// ---- operations ----

const err = (description: string): Json => ({ $ref: "#/components/responses/Error", description });
const json = (schema: Json, description = "OK"): Json => ({ description, content: { "application/json": { schema } } });
const events = (event: string, data: string): Json => ({
  description: `Server-sent events: \`event: ${event}\` with a ${data} as \`data:\` (and \`retry:\` and keep-alive comments)`,
  content: { "text/event-stream": { schema: str(), "x-event": { event, data: ref(data) } } },
});

interface Op {
  summary: string;
  tags: string[];
  parameters?: Json[];
  /** A JSON body (an empty body counts as `{}` unless `bodyRequired`). */
  body?: Json;
  bodyRequired?: boolean;
  responses: Record<string, Json>;
  /** Open without the control token (health, the inspector's sign-in). */
  open?: boolean;
  /** False for the inspector's page, which answers every query with HTML and refuses none (no 400). */
  checksInput?: boolean;
  description?: string;
}

function op({ summary, tags, parameters, body, bodyRequired, responses, open, checksInput = true, description }: Op): Json {
  const errors: Record<string, Json> = {};
  if (checksInput && (parameters?.some((p) => p.in === "query") || body)) errors["400"] = err("ERR_BAD_REQUEST: a bad parameter or body field (`details` per field)");
  if (!open) errors["401"] = err("AUTH_ERR_EMPTY_EMULATOR_TOKEN / AUTH_ERR_INVALID_EMULATOR_TOKEN (with --control-token)");
  errors["403"] = err("ERR_HOST_NOT_ALLOWED / ERR_CROSS_ORIGIN_REQUEST: the control plane answers same-origin requests to allowed hosts only");
  if (body) {
    errors["413"] = err("ERR_PAYLOAD_TOO_LARGE: the body is too large");
    errors["415"] = err("ERR_UNSUPPORTED_MEDIA_TYPE: a body must be application/json");
  }
  return {
    summary,
    ...(description && { description }),
    tags,
    ...(parameters && { parameters }),
    ...(body && { requestBody: { required: bodyRequired ?? false, content: { "application/json": { schema: body } } } }),
    responses: { ...responses, ...Object.fromEntries(Object.entries(errors).filter(([s]) => !(s in responses))) },
    ...(open && { security: [{}] }),
  };
}

const NO_APP = err("ERR_APP_NOT_FOUND");
const cleared = json(obj({ cleared: { const: true } }));

const paths: Record<string, Record<string, Json>> = {
  "/_emulator": {
    get: op({
      summary: "The index of the control API: every endpoint",
      description: "A browser asking for a page (Accept: text/html) is redirected to the inspector instead.",
      tags: ["control"],
      responses: { "200": json(ref("Index")), "302": { description: "to /_emulator/ui, for a browser" } },
    }),
  },
  "/_emulator/openapi.json": {
    get: op({ summary: "This OpenAPI 3.1 description", tags: ["control"], responses: { "200": json({ type: "object" }) } }),
  },
  "/_emulator/openapi/{file}": {
    get: op({
      summary: "What a platform plane serves, in OpenAPI 3.1",
      description:
        "Generated from the emulator's declared operations: every served operation of the plane with its body fields, query parameters and limits. The servers entry names the address the request came to.",
      tags: ["control"],
      parameters: [{ ...pathParam("file", "the plane's document"), schema: oneOf(["rest.json", "management.json", "calls.json", "data-import.json", "campaigns.json", "client.json"]) }],
      responses: { "200": json({ type: "object" }), "404": err("ERR_API_NOT_FOUND: no plane of that name") },
    }),
  },
  "/_emulator/health": {
    get: op({
      summary: "Readiness: the store is loaded",
      tags: ["control"],
      open: true,
      responses: {
        "200": json(ref("Health")),
        "503": json(ref("Health"), "degraded: the data file cannot be saved (the body carries the error envelope, ERR_EMULATOR_DEGRADED)"),
      },
    }),
  },
  "/_emulator/apps": {
    get: op({ summary: "The apps, their planes' base paths and API keys; the management key and secret", tags: ["control"], responses: { "200": json(ref("Apps")) } }),
  },
  "/_emulator/ui": {
    get: op({
      summary: "The web inspector's page",
      tags: ["inspector"],
      open: true,
      checksInput: false,
      parameters: [q("token", str(), "the control token: signs the browser in (a cookie) and redirects without it")],
      responses: {
        "200": { description: "The page", content: { "text/html": { schema: str() } } },
        "303": { description: "signed in: back to the page without the token in its address" },
        "401": { description: "The sign-in page (with --control-token)", content: { "text/html": { schema: str() } } },
        "503": { description: "The inspector is not built (npm run build)", content: { "text/html": { schema: str() } } },
      },
    }),
    post: {
      ...(op({
        summary: "Signs a browser in to the inspector with the control token (a form)",
        tags: ["inspector"],
        open: true,
        responses: {
          "303": { description: "signed in: to the page" },
          "401": { description: "The sign-in page, with the error", content: { "text/html": { schema: str() } } },
        },
      }) as Json),
      requestBody: {
        required: true,
        content: { "application/x-www-form-urlencoded": { schema: obj({ token: str() }) } },
      },
    },
  },
  "/_emulator/ui/{file}": {
    get: op({
      summary: "The inspector's built files (scripts, styles, images)",
      tags: ["inspector"],
      parameters: [pathParam("file", "a path under dist/ui, e.g. assets/index-1a2b3c.js (may contain slashes)")],
      responses: {
        "200": { description: "The file", content: { "*/*": { schema: str() } } },
        "404": err("ERR_API_NOT_FOUND: no such file"),
      },
    }),
  },
  "/_emulator/reset": {
    post: op({
      summary: "Back to each app's birth content (or empty)",
      tags: ["control"],
      body: closed({ appId: str("only this app"), to: oneOf(["seed", "empty"]) }),
      responses: { "200": json(obj({ reset: arr(str()), to: oneOf(["seed", "empty"]) })), "404": NO_APP },
    }),
  },
  "/_emulator/state": {
    get: op({ summary: "The whole state, in the data-file format", tags: ["control"], responses: { "200": json(ref("StateDocument")) } }),
    put: op({
      summary: "Replaces the whole state; an invalid document changes nothing",
      tags: ["control"],
      body: ref("StateDocument"),
      bodyRequired: true,
      responses: { "200": json(obj({ apps: arr(str()) })) },
    }),
  },
  "/_emulator/webhooks/deliveries": {
    get: op({
      summary: "The delivery log (webhook deliveries and bot relays), oldest first",
      tags: ["deliveries"],
      parameters: [...DELIVERY_FILTERS, WAIT],
      responses: { "200": json(obj({ deliveries: arr(ref("Delivery")) })) },
    }),
    delete: op({ summary: "Clears the delivery log", tags: ["deliveries"], responses: { "200": cleared } }),
  },
  "/_emulator/webhooks/deliveries/stream": {
    get: op({
      summary: "The matching deliveries, then each one as it is added or changes",
      tags: ["deliveries", "streams"],
      parameters: DELIVERY_FILTERS,
      responses: { "200": events("delivery", "Delivery") },
    }),
  },
  "/_emulator/bots/deliveries": {
    get: op({
      summary: "The delivery log narrowed to bot relays",
      tags: ["deliveries"],
      parameters: [...DELIVERY_FILTERS, WAIT],
      responses: { "200": json(obj({ deliveries: arr(ref("Delivery")) })) },
    }),
    delete: op({ summary: "Clears the bot relays", tags: ["deliveries"], responses: { "200": cleared } }),
  },
  "/_emulator/notifications": {
    get: op({
      summary: "The notification outbox",
      tags: ["notifications"],
      parameters: [...NOTIFICATION_FILTERS, WAIT],
      responses: { "200": json(obj({ notifications: arr(ref("Notification")) })) },
    }),
    delete: op({ summary: "Clears the outbox", tags: ["notifications"], responses: { "200": cleared } }),
  },
  "/_emulator/notifications/stream": {
    get: op({
      summary: "The matching notifications, then each one as it is computed or changes",
      tags: ["notifications", "streams"],
      parameters: NOTIFICATION_FILTERS,
      responses: { "200": events("notification", "Notification") },
    }),
  },
  "/_emulator/sessions": {
    get: op({ summary: "The live WebSocket sessions", tags: ["realtime"], parameters: SESSION_FILTERS, responses: { "200": json(obj({ sessions: arr(ref("Session")) })) } }),
    delete: op({
      summary: "Closes those sockets (code 1001)",
      tags: ["realtime"],
      parameters: SESSION_FILTERS,
      responses: { "200": json(obj({ closed: int("how many") })) },
    }),
  },
  "/_emulator/realtime/frames": {
    get: op({
      summary: "The last 200 realtime frames sent and received",
      tags: ["realtime"],
      parameters: [q("afterId", int(undefined, { minimum: 0 }), "frames after this id")],
      responses: { "200": json(obj({ frames: arr(ref("Frame")) })) },
    }),
  },
  "/_emulator/extensions/calls": {
    get: op({
      summary: "What enabled extensions would have asked outside services (the last 1000, newest last)",
      tags: ["extensions"],
      parameters: [APP_FILTER, q("extension", str()), q("messageId", str())],
      responses: { "200": json(obj({ calls: arr(ref("ExtensionCall")) })) },
    }),
    delete: op({ summary: "Clears them", tags: ["extensions"], responses: { "200": cleared } }),
  },
  "/_emulator/apps/{appId}/calls": {
    post: op({
      summary: "Records a call as the platform would have logged it, with its call messages",
      tags: ["calls"],
      parameters: [APP_ID],
      body: ref("CallInput"),
      bodyRequired: true,
      responses: { "201": json(obj({ call: ref("Call"), messageIds: arr(str()) }), "Created"), "404": NO_APP },
    }),
  },
  "/_emulator/apps/{appId}/ai": {
    put: op({
      summary: "Scripted answers of the AI features, app-wide or for one conversation",
      tags: ["ai-and-campaigns"],
      parameters: [APP_ID],
      body: obj(
        {
          guid: str("the conversation of this group", { maxLength: 100 }),
          between: arr(str(undefined, { maxLength: 100 }), { minItems: 2, maxItems: 2, description: "the conversation of these two users" }),
          answers: ref("AiAnswers"),
        },
        ["guid", "between"],
      ),
      bodyRequired: true,
      responses: { "200": json(obj({ scope: str('"*" or a conversation id'), answers: ref("AiAnswers") })), "404": NO_APP },
    }),
    get: op({
      summary: "The scripted answers by scope",
      tags: ["ai-and-campaigns"],
      parameters: [APP_ID],
      responses: { "200": json(obj({ scripts: { type: "object", additionalProperties: ref("AiAnswers") } })), "404": NO_APP },
    }),
    delete: op({ summary: "Forgets the app's scripted answers", tags: ["ai-and-campaigns"], parameters: [APP_ID], responses: { "200": cleared, "404": NO_APP } }),
  },
  "/_emulator/apps/{appId}/notification-feed": {
    post: op({
      summary: "A notification feed item for each receiver (and its realtime frame)",
      tags: ["ai-and-campaigns"],
      parameters: [APP_ID],
      body: obj(
        {
          receivers: arr(str(undefined, { maxLength: 100 }), { minItems: 1, maxItems: 100 }),
          templateCategory: str(undefined, { maxLength: 100 }),
          content: { type: "object" },
          metadata: { type: "object" },
          tags: arr(str(undefined, { maxLength: 100 }), { maxItems: 25 }),
          channelId: str(undefined, { maxLength: 100 }),
          sentAt: int(UNIX_SECONDS),
        },
        ["templateCategory", "metadata", "tags", "channelId", "sentAt"],
      ),
      bodyRequired: true,
      responses: { "201": json(obj({ items: arr(ref("FeedItem")) }), "Created"), "404": NO_APP },
    }),
    get: op({
      summary: "One user's feed items with their engagements",
      tags: ["ai-and-campaigns"],
      parameters: [APP_ID, { ...q("uid", str()), required: true }],
      responses: { "200": json(obj({ items: arr(ref("FeedItem")) })), "404": NO_APP },
    }),
  },
  "/_emulator/apps/{appId}/push-notifications": {
    post: op({
      summary: "A campaign push notification to a user",
      tags: ["ai-and-campaigns"],
      parameters: [APP_ID],
      body: obj(
        { receiver: str(undefined, { maxLength: 100 }), announcementId: str(undefined, { maxLength: 100 }), campaignId: str(undefined, { maxLength: 100 }) },
        ["announcementId", "campaignId"],
      ),
      bodyRequired: true,
      responses: { "201": json(obj({ pushNotification: ref("PushNotification") }), "Created"), "404": NO_APP },
    }),
  },
  "/_emulator/apps/{appId}/push-notifications/{id}": {
    get: op({
      summary: "One campaign push notification",
      tags: ["ai-and-campaigns"],
      parameters: [APP_ID, pathParam("id", "the push notification's id")],
      responses: { "200": json(obj({ pushNotification: ref("PushNotification") })), "404": err("ERR_APP_NOT_FOUND / PUSH_NOTIFICATION_NOT_FOUND") },
    }),
  },
  "/_emulator/apps/{appId}/template-categories": {
    post: op({
      summary: "A template category",
      tags: ["ai-and-campaigns"],
      parameters: [APP_ID],
      body: obj({ name: str(undefined, { pattern: "^[A-Za-z0-9_-]+$", maxLength: 100 }), label: str(undefined, { maxLength: 100 }) }, ["label"]),
      bodyRequired: true,
      responses: { "201": json(obj({ category: ref("TemplateCategory") }), "Created"), "404": NO_APP },
    }),
  },
  "/_emulator/rules": {
    get: op({ summary: "The fault and latency rules, in order", tags: ["rules"], responses: { "200": json(obj({ rules: arr(ref("Rule")) })) } }),
    post: op({ summary: "Adds a rule at the end", tags: ["rules"], body: ref("RuleInput"), bodyRequired: true, responses: { "201": json(ref("Rule"), "Created") } }),
    delete: op({ summary: "Removes every rule", tags: ["rules"], responses: { "200": json(obj({ deleted: arr(str()) })) } }),
  },
  "/_emulator/rules/{id}": {
    get: op({ summary: "One rule", tags: ["rules"], parameters: [pathParam("id", "r1, r2, ...")], responses: { "200": json(ref("Rule")), "404": err("ERR_RULE_NOT_FOUND") } }),
    delete: op({
      summary: "Removes one rule",
      tags: ["rules"],
      parameters: [pathParam("id", "r1, r2, ...")],
      responses: { "200": json(obj({ deleted: arr(str(), { minItems: 1, maxItems: 1 }) })), "404": err("ERR_RULE_NOT_FOUND") },
    }),
  },
  "/_emulator/requests": {
    get: op({
      summary: "The request journal, oldest first",
      tags: ["journal"],
      parameters: [...JOURNAL_FILTERS, q("limit", int(undefined, { minimum: 1 }), "the newest N")],
      responses: { "200": json(obj({ requests: arr(ref("JournalEntry")), capacity: int() })) },
    }),
    delete: op({ summary: "Clears the journal (ids keep counting)", tags: ["journal"], responses: { "200": json(obj({ cleared: int("how many entries") })) } }),
  },
  "/_emulator/requests/wait": {
    get: op({
      summary: "The first matching request, already journaled or the next one answered",
      tags: ["journal"],
      parameters: [...JOURNAL_FILTERS, q("timeoutMs", int(undefined, { minimum: 0, maximum: 600_000, default: 5000 }))],
      responses: { "200": json(obj({ request: ref("JournalEntry") })), "408": err("ERR_WAIT_TIMEOUT"), "400": err("ERR_BAD_REQUEST: a bad filter, or the journal is off") },
    }),
  },
  "/_emulator/requests/stream": {
    get: op({
      summary: "The matching journal entries, then each request as it is answered",
      description: "`id:` is the journal id; a reconnecting EventSource sends Last-Event-ID and resumes after it.",
      tags: ["journal", "streams"],
      parameters: [
        ...JOURNAL_FILTERS,
        q("limit", int(undefined, { minimum: 1 }), "first the newest N"),
        { name: "Last-Event-ID", in: "header", schema: str(), description: "resume after this journal id" },
      ],
      responses: { "200": events("request", "JournalEntry"), "400": err("ERR_BAD_REQUEST: a bad filter, or the journal is off") },
    }),
  },
  "/_emulator/clock": {
    get: op({ summary: "The emulator clock", tags: ["clock"], responses: { "200": json(ref("Clock")) } }),
    put: op({
      summary: "Freezes the clock or lets it run (from `now`)",
      tags: ["clock"],
      body: closed({ mode: oneOf(["real", "frozen"]), now: { type: ["number", "string", "null"], description: "Unix seconds or ISO 8601; absent or null: now" } }, ["now"]),
      bodyRequired: true,
      responses: { "200": json(ref("Clock")) },
    }),
  },
  "/_emulator/clock/advance": {
    post: op({
      summary: "Moves the clock forward",
      tags: ["clock"],
      body: closed({ seconds: num("fractions allowed", { minimum: 0, maximum: 10 * 366 * 86_400 }) }, []),
      bodyRequired: true,
      responses: { "200": json(ref("Clock")) },
    }),
  },
  "/_emulator/snapshots": {
    get: op({ summary: "The named in-memory snapshots", tags: ["snapshots"], responses: { "200": json(obj({ snapshots: arr(ref("SnapshotInfo")) })) } }),
  },
  "/_emulator/snapshots/{name}": {
    post: op({
      summary: "Takes (or retakes) a snapshot of every app",
      tags: ["snapshots"],
      parameters: [snapshotName()],
      responses: { "201": json(ref("SnapshotInfo"), "Created"), "400": err("ERR_BAD_REQUEST: a bad name") },
    }),
    delete: op({
      summary: "Forgets a snapshot",
      tags: ["snapshots"],
      parameters: [snapshotName()],
      responses: { "200": json(obj({ deleted: str() })), "400": err("ERR_BAD_REQUEST: a bad name"), "404": err("ERR_SNAPSHOT_NOT_FOUND") },
    }),
  },
  "/_emulator/snapshots/{name}/restore": {
    post: op({
      summary: "Back to the snapshot",
      tags: ["snapshots"],
      parameters: [snapshotName()],
      responses: { "200": json(ref("SnapshotInfo")), "400": err("ERR_BAD_REQUEST: a bad name"), "404": err("ERR_SNAPSHOT_NOT_FOUND") },
    }),
  },
  "/_emulator/rate-limits": {
    get: op({ summary: "Limits, on/off and the current minute's use per app", tags: ["rate-limits"], responses: { "200": json(ref("RateLimits")) } }),
    put: op({
      summary: "Turns the limits on or off, sets the default limits",
      tags: ["rate-limits"],
      body: closed({ enabled: nullable(bool()), core: nullable(LIMIT), standard: nullable(LIMIT) }),
      responses: { "200": json(ref("RateLimits")) },
    }),
    delete: op({ summary: "Forgets every app's overrides and counts", tags: ["rate-limits"], responses: { "200": json(ref("RateLimits")) } }),
  },
  "/_emulator/coverage": {
    get: op({
      summary: "The documented operations a run called, with their statuses and error codes (docs/insight.md#coverage)",
      tags: ["coverage"],
      parameters: [q("app", str(), "one app's (also `appId`)"), q("appId", str())],
      responses: { "200": json(ref("Coverage")), "400": err("ERR_BAD_REQUEST: an unknown parameter"), "404": NO_APP },
    }),
    delete: op({ summary: "Clears the counts (a reset leaves them)", tags: ["coverage"], responses: { "200": cleared } }),
  },
  "/_emulator/schemas/{name}": {
    get: op({
      summary: "A JSON Schema of seed or state files, as the package ships it (schemas/), for editors and validators",
      tags: ["control"],
      open: true,
      parameters: [{ ...pathParam("name", "the schema's file name"), schema: oneOf(SCHEMA_FILES) }],
      responses: { "200": { description: "The schema (JSON Schema 2020-12)", content: { "application/schema+json": { schema: { type: "object" } } } }, "404": err("ERR_SCHEMA_NOT_FOUND") },
    }),
  },
  "/_emulator/advice": {
    get: op({ summary: "Request advice settings", tags: ["advice"], responses: { "200": json(ref("AdviceSettings")) } }),
    put: op({
      summary: "Sends advice in a response header, or refuses requests with advice (strict mode)",
      tags: ["advice"],
      body: closed({ header: bool(), strict: bool() }),
      responses: { "200": json(ref("AdviceSettings")) },
    }),
  },
  "/_emulator/rate-limits/{appId}": {
    put: op({
      summary: "One app's limits (null: back to the default)",
      tags: ["rate-limits"],
      parameters: [APP_ID],
      body: closed({ core: nullable(LIMIT), standard: nullable(LIMIT) }),
      responses: { "200": json(ref("AppRateLimits")), "404": NO_APP },
    }),
    delete: op({ summary: "Forgets one app's overrides and counts", tags: ["rate-limits"], parameters: [APP_ID], responses: { "200": json(ref("AppRateLimits")), "404": NO_APP } }),
  },
};

/** Each operation's id, for client generators: the method and the path's words (`postSnapshotsNameRestore`; the index `getIndex`). */
for (const [path, ops] of Object.entries(paths))
  for (const [method, o] of Object.entries(ops)) {
    const words = path
      .slice("/_emulator".length)
      .split(/[^A-Za-z0-9]+/)
      .filter(Boolean);
    o.operationId = method + (words.length === 0 ? ["index"] : words).map((w) => w[0].toUpperCase() + w.slice(1)).join("");
  }

function snapshotName(): Json {
  return { ...pathParam("name", "letters, digits, dots, dashes and underscores"), schema: str(undefined, { pattern: "^[A-Za-z0-9._-]{1,100}$" }) };
}

export const OPENAPI = {
  openapi: "3.1.0",
  jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
  info: {
    title: "chat-emulator control API",
    summary: "The emulator's own plane under /_emulator: state, rules, the request journal, the clock, snapshots, rate limits, logs and streams",
    description:
      "Plain JSON on the emulator's port (docs/control-api.md). Same-origin only: a request from another site or origin, or to a host name the emulator was not told it is reached under, is refused (403). With --control-token every route but GET /_emulator/health, GET /_emulator/schemas/{name} (and the inspector's sign-in) needs the x-emulator-token header or the inspector's cookie.",
    version: "1",
  },
  // GET /_emulator/openapi.json names the address it was fetched from instead (routes.ts).
  servers: [{ url: "http://127.0.0.1:4780", description: "the default address" }],
  tags: ["control", "inspector", "streams", "deliveries", "notifications", "realtime", "extensions", "calls", "ai-and-campaigns", "rules", "journal", "clock", "snapshots", "rate-limits", "advice", "coverage"].map(
    (name) => ({ name }),
  ),
  security: [{}, { controlToken: [] }],
  paths,
  components: {
    schemas,
    responses: {
      Error: json(ref("Error"), "An error, in the platform's envelope"),
    },
    securitySchemes: {
      controlToken: { type: "apiKey", in: "header", name: "x-emulator-token", description: "--control-token; needed only when the emulator was started with one" },
    },
  },
} as const;
