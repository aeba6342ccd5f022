import type { Ctx } from "../../http/context.js";
import { apiError, badRequest, maskKey } from "../../http/errors.js";
import { ok } from "../../http/reply.js";
import { asBool, type Body } from "../../http/validate.js";
import type { Schema } from "../../http/schema.js";
import { operation, routes } from "../../http/operation.js";
import type { AppState } from "../../store/app-state.js";
import type { ChannelProviderName, ProviderKind, PushProviderRecord } from "../../store/notification-state.js";
import type { JsonObject } from "../../store/types.js";
import { randomHex } from "../../util/random.js";

/**
 * Push providers (FCM, APNs, custom; §18.2) and SMS/email providers (Twilio, SendGrid, custom; §18.6).
 * Credentials are stored as sent and masked in every reply (first and last five characters kept, as the
 * platform masks keys). FCM and APNs are never contacted: the outbox records what would have been sent.
 */

const SUCCESS = { success: true };
const SECRETS = new Set(["private_key", "private_key_id", "p8Key", "basicAuthPassword", "twilioAuthToken", "sendGridApiKey"]);
const PROVIDER_ID = { type: "string", max: 100, pattern: /^[A-Za-z0-9_-]+$/, patternMessage: "The providerId may only contain letters, numbers, dashes and underscores." } as const;

/** A copy of `o` with every secret masked, at any depth. */
export function masked(o: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(o))
    out[k] = SECRETS.has(k) && typeof v === "string" ? maskKey(v) : typeof v === "object" && v !== null && !Array.isArray(v) ? masked(v) : v;
  return out;
}

function pick(body: Body, schema: Schema): JsonObject {
  const out: JsonObject = {};
  for (const [k, spec] of Object.entries(schema)) {
    const v = body[k];
    if (v === undefined || v === null) continue;
    out[k] = spec.type === "boolean" ? asBool(v) : (v as JsonObject[string]);
  }
  return out;
}

/** Every field required (POST) or none (PUT). */
function required(schema: Schema, on: boolean, except: string[] = []): Schema {
  return Object.fromEntries(Object.entries(schema).map(([k, spec]) => [k, { ...spec, required: on && !except.includes(k) }]));
}

// ---- FCM and APNs ----

const FCM: Schema = {
  serviceAccountFilename: { type: "string", max: 255 },
  serviceAccountCreds: { type: "object", maxKb: 8 },
  notificationInPayload: { type: "object", maxKb: 1 },
};
const APNS: Schema = {
  keyId: { type: "string", max: 100 },
  teamId: { type: "string", max: 100 },
  bundleId: { type: "string", max: 255 },
  p8KeyFilename: { type: "string", max: 255 },
  p8Key: { type: "string", max: 8000 },
  includeContentAvailable: { type: "boolean" },
  includeMutableContent: { type: "boolean" },
  productionMode: { type: "boolean" },
};
const FCM_CREDS = ["project_id", "client_email", "private_key"];

const PAYLOAD_PLATFORMS = ["ios", "android", "web"];
const PAYLOAD_KINDS = ["chat", "call"];

/** The FCM fields inside objects: the service account's credentials and `notificationInPayload {ios, android, web: {chat, call}}`. */
function checkFcm(body: Body, creating: boolean): void {
  const details: Record<string, string[]> = {};
  const creds = body.serviceAccountCreds as Record<string, unknown> | undefined;
  for (const k of creds ? FCM_CREDS : [])
    if (creating || Object.hasOwn(creds!, k))
      if (typeof creds![k] !== "string" || creds![k] === "") details[`serviceAccountCreds.${k}`] = [`The serviceAccountCreds.${k} field is required.`];
  const inPayload = body.notificationInPayload as Record<string, unknown> | undefined;
  for (const [platform, kinds] of Object.entries(inPayload ?? {})) {
    const name = `notificationInPayload.${platform}`;
    if (!PAYLOAD_PLATFORMS.includes(platform)) details[name] = [`The ${name} field is not allowed.`];
    else if (typeof kinds !== "object" || kinds === null || Array.isArray(kinds)) details[name] = [`The ${name} must be an object.`];
    else
      for (const [kind, v] of Object.entries(kinds))
        if (!PAYLOAD_KINDS.includes(kind)) details[`${name}.${kind}`] = [`The ${name}.${kind} field is not allowed.`];
        else if (typeof v !== "boolean") details[`${name}.${kind}`] = [`The ${name}.${kind} field must be true or false.`];
  }
  if (Object.keys(details).length > 0) throw badRequest(details);
}

function providerView(p: PushProviderRecord): JsonObject {
  return { providerId: p.providerId, ...masked(p.fields), isDefault: p.isDefault };
}

function pathProvider(app: AppState, kind: ProviderKind, providerId: string): PushProviderRecord {
  const p = app.notifications.provider(kind, providerId);
  if (!p) throw apiError("ERR_PROVIDER_NOT_FOUND", { provider: `${kind.toUpperCase()} provider ${providerId}` });
  return p;
}

function pushProviderRoutes(kind: ProviderKind, schema: Schema, createdReply: (app: AppState) => JsonObject) {
  const base = `/notifications/push/v1/providers/${kind}`;
  const list = (app: AppState) => ({ pushProviders: app.notifications.providersOf(kind).map(providerView) });
  const checkExtra = (body: Body, creating: boolean) => {
    if (kind === "fcm") checkFcm(body, creating);
  };
  const requiredOnCreate = kind === "fcm" ? ["serviceAccountCreds"] : ["keyId", "teamId", "bundleId", "p8Key"];
  const id = (verb: string) => `notifications-push-${verb}-${kind}-provider${verb === "list" ? "s" : ""}`;
  return [
    operation({ id: id("list"), method: "GET", path: base, plane: "rest", handler: (c) => ok(c, list(c.get("app"))) }),
    operation({
      id: id("add"),
      method: "POST",
      path: base,
      plane: "rest",
      body: { providerId: { ...PROVIDER_ID, required: true }, ...Object.fromEntries(Object.entries(schema).map(([k, s]) => [k, { ...s, required: requiredOnCreate.includes(k) }])) },
      handler: (c, { body }) => {
        checkExtra(body, true);
        const app = c.get("app");
        const providerId = body.providerId as string;
        if (app.notifications.provider(kind, providerId)) throw apiError("ERR_PROVIDER_ALREADY_EXISTS", { provider: `${kind.toUpperCase()} provider ${providerId}` });
        const now = c.get("emulator").clock.now();
        const isDefault = app.notifications.providersOf(kind).length === 0;
        app.notifications.putProvider({ kind, providerId, isDefault, fields: pick(body, schema), createdAt: now, updatedAt: now });
        return ok(c, createdReply(app));
      },
    }),
    operation({
      id: id("update"),
      method: "PUT",
      path: base,
      plane: "rest",
      body: { providerId: { ...PROVIDER_ID, required: true }, ...schema },
      handler: (c, { body }) => {
        checkExtra(body, false);
        const p = pathProvider(c.get("app"), kind, body.providerId as string);
        const fields = pick(body, schema);
        if (kind === "fcm" && fields.serviceAccountCreds && p.fields.serviceAccountCreds)
          fields.serviceAccountCreds = { ...(p.fields.serviceAccountCreds as JsonObject), ...(fields.serviceAccountCreds as JsonObject) };
        p.fields = { ...p.fields, ...fields };
        p.updatedAt = c.get("emulator").clock.now();
        c.get("app").notifications.touch();
        return ok(c, SUCCESS);
      },
    }),
    operation({
      id: id("delete"),
      method: "DELETE",
      path: `${base}/:providerId`,
      plane: "rest",
      handler: (c) => {
        const app = c.get("app");
        const p = pathProvider(app, kind, c.req.param("providerId")!);
        app.notifications.deleteProvider(kind, p.providerId);
        // The default moves to the oldest remaining provider, so tokens without a providerId keep working.
        const next = app.notifications.providersOf(kind)[0];
        if (p.isDefault && next) {
          next.isDefault = true;
          app.notifications.touch();
        }
        return ok(c, SUCCESS);
      },
    }),
    operation({
      id: id("default"),
      method: "PUT",
      path: `${base}/default/:providerId`,
      plane: "rest",
      handler: (c) => {
        const app = c.get("app");
        const p = pathProvider(app, kind, c.req.param("providerId")!);
        for (const other of app.notifications.providersOf(kind)) other.isDefault = other === p;
        app.notifications.touch();
        return ok(c, SUCCESS);
      },
    }),
  ];
}

// ---- custom push, Twilio, SendGrid, custom SMS and email ----

const WEBHOOK_URL = { type: "string", max: 255, url: "called" } as const;
const BASIC_AUTH: Schema = {
  isEnabled: { type: "boolean" },
  webhookURL: WEBHOOK_URL,
  useBasicAuth: { type: "boolean" },
  basicAuthUsername: { type: "string", max: 50 },
  basicAuthPassword: { type: "string", max: 100 },
};

interface ChannelSpec {
  name: ChannelProviderName;
  /** The platform's operation ids, with `{verb}` for list, save, update and delete. */
  ids: string;
  path: string;
  label: string;
  schema: Schema;
  optionalOnCreate?: string[];
  defaults?: JsonObject;
  /** The reply of GET/POST/PUT from the stored (masked) fields. */
  view: (fields: JsonObject, app: AppState) => JsonObject;
}

const flat = (fields: JsonObject) => masked(fields);

const CHANNELS: ChannelSpec[] = [
  {
    name: "customPush",
    ids: "notifications-{verb}-push-custom-provider",
    path: "/notifications/push/v1/providers/custom",
    label: "custom push provider",
    schema: BASIC_AUTH,
    view: (f) => ({ pushProviders: [masked(f)] }),
  },
  {
    name: "twilio",
    ids: "notifications-sms-{verb}-twilio-details",
    path: "/notifications/sms/v1/providers/twilio",
    label: "Twilio provider",
    schema: {
      twilioAccountSID: { type: "string", max: 100 },
      twilioAuthToken: { type: "string", max: 100 },
      twilioSenderPhoneNumber: { type: "string", max: 20 },
      isEnabled: { type: "boolean" },
    },
    optionalOnCreate: ["isEnabled"],
    defaults: { isEnabled: true },
    view: (f) => {
      const m = masked(f);
      return { twilioAccountSID: m.twilioAccountSID, twilioAuthToken: m.twilioAuthToken, twilioSenderPhoneNumber: m.twilioSenderPhoneNumber };
    },
  },
  {
    name: "sendgrid",
    ids: "notifications-email-{verb}-sendgrid-details",
    path: "/notifications/email/v1/providers/sendgrid",
    label: "SendGrid provider",
    schema: {
      sendGridApiKey: { type: "string", max: 255 },
      sendGridTemplateID: { type: "string", max: 100 },
      sendGridUnsubscribeGroupID: { type: "string", max: 100 },
      senderName: { type: "string", max: 100 },
      senderEmail: { type: "string", max: 255, pattern: /^[^\s@]+@[^\s@]+\.[^\s@]+$/, patternMessage: "The senderEmail must be a valid email address." },
      allowEmailReplies: { type: "boolean" },
      senderEmailForReplies: { type: "string", max: 255 },
      isEnabled: { type: "boolean" },
    },
    optionalOnCreate: ["allowEmailReplies", "senderEmailForReplies", "isEnabled"],
    defaults: { isEnabled: true, allowEmailReplies: false, senderEmailForReplies: null },
    view: (f) => {
      const m = masked(f);
      return {
        sendGridApiKey: m.sendGridApiKey,
        sendGridTemplateID: m.sendGridTemplateID,
        sendGridUnsubscribeGroupID: m.sendGridUnsubscribeGroupID,
        senderEmail: m.senderEmail,
        senderName: m.senderName,
      };
    },
  },
  {
    name: "customSms",
    ids: "notifications-{verb}-sms-custom-provider",
    path: "/notifications/sms/v1/providers/custom",
    label: "custom SMS provider",
    schema: { ...BASIC_AUTH, useStoredPhNo: { type: "boolean" } },
    view: flat,
  },
  {
    name: "customEmail",
    ids: "notifications-{verb}-email-custom-provider",
    path: "/notifications/email/v1/providers/custom",
    label: "custom email provider",
    schema: { ...BASIC_AUTH, useStoredEmailID: { type: "boolean" } },
    view: flat,
  },
];

/** SendGrid's POST/PUT reply adds the reply settings and the inbound-parse address of the app's region. */
function writeReply(spec: ChannelSpec, fields: JsonObject, app: AppState): JsonObject {
  if (spec.name !== "sendgrid") return spec.view(fields, app);
  return {
    ...spec.view(fields, app),
    allowEmailReplies: fields.allowEmailReplies ?? false,
    senderEmailForReplies: fields.senderEmailForReplies ?? null,
    repliesWebhook: `https://notifications-${app.meta.region}.cometchat.io/email/v1/sendgrid/replies?token=${fields.repliesToken}`,
  };
}

function channelRoutes(spec: ChannelSpec) {
  const stored = (c: Ctx) => {
    const fields = c.get("app").notifications.channels[spec.name];
    if (!fields) throw apiError("ERR_PROVIDER_NOT_FOUND", { provider: `The ${spec.label}` });
    return fields;
  };
  const id = (verb: string) => spec.ids.replace("{verb}", verb);
  return [
    operation({
      id: id("list"),
      method: "GET",
      path: spec.path,
      plane: "rest",
      handler: (c) => {
        const fields = c.get("app").notifications.channels[spec.name];
        if (!fields && spec.name === "customPush") return ok(c, { pushProviders: [] });
        return ok(c, spec.view(stored(c), c.get("app")));
      },
    }),
    operation({
      id: id("save"),
      method: "POST",
      path: spec.path,
      plane: "rest",
      body: required(spec.schema, true, spec.optionalOnCreate),
      handler: (c, { body }) => {
        const app = c.get("app");
        if (app.notifications.channels[spec.name]) throw apiError("ERR_PROVIDER_ALREADY_EXISTS", { provider: `The ${spec.label}` });
        const fields: JsonObject = { ...spec.defaults, ...pick(body, spec.schema) };
        if (spec.name === "sendgrid") fields.repliesToken = randomHex(32);
        app.notifications.channels = { ...app.notifications.channels, [spec.name]: fields };
        return ok(c, writeReply(spec, fields, app));
      },
    }),
    operation({
      id: id("update"),
      method: "PUT",
      path: spec.path,
      plane: "rest",
      body: spec.schema,
      handler: (c, { body }) => {
        const fields = { ...stored(c), ...pick(body, spec.schema) };
        const app = c.get("app");
        app.notifications.channels = { ...app.notifications.channels, [spec.name]: fields };
        return ok(c, writeReply(spec, fields, app));
      },
    }),
    operation({
      id: id("delete"),
      method: "DELETE",
      path: spec.path,
      plane: "rest",
      handler: (c) => {
        stored(c);
        const app = c.get("app");
        const { [spec.name]: _gone, ...rest } = app.notifications.channels;
        app.notifications.channels = rest;
        return ok(c, SUCCESS);
      },
    }),
  ];
}

export const providers = routes(
  ...pushProviderRoutes("fcm", FCM, () => SUCCESS),
  ...pushProviderRoutes("apns", APNS, (app) => ({ pushProviders: app.notifications.providersOf("apns").map(providerView) })),
  ...CHANNELS.flatMap(channelRoutes),
);
