import { onBehalfOf } from "../../http/auth.js";
import type { Ctx } from "../../http/context.js";
import { badRequest, keyedMap, type Details } from "../../http/errors.js";
import { ok } from "../../http/reply.js";
import type { Body } from "../../http/validate.js";
import type { Schema } from "../../http/schema.js";
import { operation, routes } from "../../http/operation.js";
import { q } from "../../http/query-spec.js";
import type { AppState } from "../../store/app-state.js";
import type { MutedConversation } from "../../store/notification-state.js";
import type { JsonObject, UserRecord } from "../../store/types.js";
import { requireUser } from "../users/lookup.js";
import {
  appSettings,
  at,
  DAYS,
  DEFAULT_SETTINGS,
  effectiveMute,
  effectiveSetting,
  GROUP_KEYS,
  isObject,
  merged,
  ONE_ON_ONE_KEYS,
  usesPrivacy,
} from "../../notifications/settings.js";
import { checkSettingsPatch, isClock } from "../../notifications/validate-settings.js";

/** App settings (§18.1), user preferences, muted conversations, timezone (§18.3) and contact details (§18.4). */

const SUCCESS = { success: true };

/** Problems per dotted field name (any name, `__proto__` included); `done()` throws them as one 400. */
function problems() {
  const details: Details = keyedMap();
  return {
    details,
    fail: (name: string, message: string) => void (details[name] ??= []).push(message),
    done: () => {
      if (Object.keys(details).length > 0) throw badRequest(details);
    },
  };
}

/**
 * Whose preferences: on the client plane the token's owner, else the `uid` query parameter (an active user,
 * required on the REST plane only, so checked here).
 */
function whose(c: Ctx, uid?: string): UserRecord {
  const actor = c.get("actor");
  if (actor) return actor;
  if (uid === undefined) throw badRequest({ uid: ["The uid field is required."] });
  return requireUser(c.get("app"), uid);
}

/** The REST operations on a user's preferences name the user in the query. */
const UID_QUERY = { uid: q.str() };

const USER_TEMPLATES = ["text", "media", "poll", "reminder", "custom"].flatMap((t) => [`${t}MessageTemplateDefault`, `${t}MessageTemplatePrivacy`]);

/** GET shape: the app's preferences with the user's choices where overrides allow them. */
function preferencesView(app: AppState, uid: string): JsonObject {
  const settings = appSettings(app);
  const area = (name: "group" | "oneOnOne", keys: Record<string, string>) => {
    const out: JsonObject = { ...(at(settings, `preferences.${name}`) as JsonObject) };
    delete out.messageEditedSetting;
    delete out.messageDeletedSetting;
    for (const setting of Object.values(keys)) out[`${setting}Setting`] = effectiveSetting(app, uid, name, setting);
    return out;
  };
  const mute = effectiveMute(app, uid);
  const templates: JsonObject = { usePrivacyTemplate: at(settings, "templates.usePrivacyTemplate") ?? 1 };
  for (const t of USER_TEMPLATES) templates[t] = at(settings, `templates.${t}`) ?? null;
  return {
    preferences: {
      group: area("group", GROUP_KEYS),
      oneOnOne: area("oneOnOne", ONE_ON_ONE_KEYS),
      mute: { ...(at(settings, "preferences.mute") as JsonObject), dndPreferenceSetting: mute.dnd, schedulePreferenceSetting: mute.schedule },
    },
    sound: at(settings, "sound") ?? null,
    templates,
  };
}

/** DELETE shape: the user's effective preferences in the update body's shape. */
function updateShapeView(app: AppState, uid: string): JsonObject {
  const pick = (area: "group" | "oneOnOne", keys: Record<string, string>) =>
    Object.fromEntries(Object.entries(keys).map(([k, setting]) => [k, effectiveSetting(app, uid, area, setting)]));
  const mute = effectiveMute(app, uid);
  return {
    groupPreferences: pick("group", GROUP_KEYS),
    oneOnOnePreferences: pick("oneOnOne", ONE_ON_ONE_KEYS),
    mutePreferences: { dnd: mute.dnd, schedule: mute.schedule },
    usePrivacyTemplate: usesPrivacy(app, uid),
  };
}

/** Checks a preferences update and keeps what users may override (the rest is ignored, as the platform does). */
function preferencesUpdate(app: AppState, body: JsonObject): JsonObject {
  const { fail, done } = problems();
  const settings = appSettings(app);
  const kept: JsonObject = {};
  for (const key of Object.keys(body)) if (!["groupPreferences", "oneOnOnePreferences", "mutePreferences", "usePrivacyTemplate"].includes(key)) fail(key, `The ${key} field is not allowed.`);
  for (const [field, area, keys] of [["groupPreferences", "group", GROUP_KEYS], ["oneOnOnePreferences", "oneOnOne", ONE_ON_ONE_KEYS]] as const) {
    const v = body[field];
    if (v === undefined) continue;
    if (!isObject(v)) {
      fail(field, `The ${field} must be an object.`);
      continue;
    }
    const out: JsonObject = {};
    for (const [k, value] of Object.entries(v)) {
      const name = `${field}.${k}`;
      const setting = Object.hasOwn(keys, k) ? keys[k] : undefined;
      if (!setting) fail(name, `The ${name} field is not allowed.`);
      else if (![1, 2, 3].includes(value as number) || (/Member/.test(k) && value === 3)) fail(name, `The selected ${name} is invalid.`);
      else if (at(settings, `preferences.${area}.${setting}Override`) === true) out[k] = value;
    }
    kept[field] = out;
  }
  const mute = body.mutePreferences;
  if (mute !== undefined) {
    if (!isObject(mute)) fail("mutePreferences", "The mutePreferences must be an object.");
    else {
      const out: JsonObject = {};
      for (const k of Object.keys(mute)) if (k !== "dnd" && k !== "schedule") fail(`mutePreferences.${k}`, `The mutePreferences.${k} field is not allowed.`);
      if (mute.dnd !== undefined) {
        if (mute.dnd !== 1 && mute.dnd !== 2) fail("mutePreferences.dnd", "The selected mutePreferences.dnd is invalid.");
        else if (at(settings, "preferences.mute.dndPreferenceOverride") === true) out.dnd = mute.dnd;
      }
      if (mute.schedule !== undefined) {
        const schedule = checkSchedule(mute.schedule, fail);
        if (schedule && at(settings, "preferences.mute.schedulePreferenceOverride") === true) out.schedule = schedule;
      }
      kept.mutePreferences = out;
    }
  }
  if (body.usePrivacyTemplate !== undefined) {
    if (typeof body.usePrivacyTemplate !== "boolean") fail("usePrivacyTemplate", "The usePrivacyTemplate field must be true or false.");
    else if (at(settings, "templates.usePrivacyTemplate") === 3) kept.usePrivacyTemplate = body.usePrivacyTemplate;
  }
  done();
  return kept;
}

function checkSchedule(v: unknown, fail: (name: string, message: string) => void): JsonObject | undefined {
  if (!isObject(v)) return fail("mutePreferences.schedule", "The mutePreferences.schedule must be an object."), undefined;
  const out: JsonObject = {};
  for (const [day, entry] of Object.entries(v)) {
    const name = `mutePreferences.schedule.${day}`;
    if (!(DAYS as readonly string[]).includes(day)) {
      fail(name, `The ${name} field is not allowed.`);
      continue;
    }
    if (!isObject(entry)) {
      fail(name, `The ${name} must be an object.`);
      continue;
    }
    for (const k of ["from", "to"] as const)
      if (entry[k] !== undefined && !isClock(entry[k])) fail(`${name}.${k}`, `The ${name}.${k} must be a time between 0 and 2359 (HHMM).`);
    if (entry.dnd !== undefined && typeof entry.dnd !== "boolean") fail(`${name}.dnd`, `The ${name}.dnd field must be true or false.`);
    out[day] = entry;
  }
  return out;
}

export const CONVERSATIONS: Schema = { conversations: { required: true, type: "array", max: 1000, items: { required: true, type: "object" } } };
export const TIMEZONE: Schema = { timezone: { required: true, type: "string", max: 100 } };
/** A preferences update's fields, each checked by preferencesUpdate (which refuses any other). */
export const PREFERENCES: Schema = Object.fromEntries(
  ["groupPreferences", "oneOnOnePreferences", "mutePreferences", "usePrivacyTemplate"].map((k) => [k, { description: "Checked against what users may override." }]),
);
/** A settings patch's fields: the defaults' top-level keys, each checked by checkSettingsPatch (which refuses any other). */
const SETTINGS: Schema = Object.fromEntries(Object.keys(DEFAULT_SETTINGS).map((k) => [k, { description: "Checked against the defaults' shape." }]));

/** The `conversations` of a mute or unmute body (an array of objects, as declared), checked item by item. */
function conversationsOf(body: JsonObject, withUntil: boolean): MutedConversation[] {
  const { fail, done } = problems();
  const list = (body.conversations as JsonObject[]).map((item, i) => {
    const name = `conversations.${i}`;
    if (typeof item.id !== "string" || item.id === "" || item.id.length > 100) fail(`${name}.id`, `The ${name}.id field is required.`);
    if (item.type !== "oneOnOne" && item.type !== "group") fail(`${name}.type`, `The selected ${name}.type is invalid.`);
    const m: MutedConversation = { id: String(item.id).toLowerCase(), type: item.type as MutedConversation["type"] };
    if (withUntil && item.until !== undefined && item.until !== null) {
      if (!Number.isInteger(item.until) || (item.until as number) < 0) fail(`${name}.until`, `The ${name}.until must be an integer (Unix milliseconds).`);
      else m.until = item.until as number;
    }
    return m;
  });
  done();
  return list;
}

/** A valid IANA time zone name (what `Intl` knows). */
export function isTimezone(tz: unknown): tz is string {
  if (typeof tz !== "string" || tz === "" || tz.length > 100) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+[1-9]\d{5,14}$/;

/**
 * The operations on one user's preferences, with their (declared and checked) bodies: the handlers of the REST
 * routes, and of the SDK's (client/push.ts, for the token's owner).
 */
export const forUser = {
  effective: (c: Ctx, user: UserRecord) => updateShapeView(c.get("app"), user.uid),
  update(c: Ctx, user: UserRecord, body: Body): void {
    const app = c.get("app");
    const update = preferencesUpdate(app, body as JsonObject);
    const record = app.notifications.ensureUser(user.uid);
    record.preferences = merged(record.preferences ?? {}, update);
  },
  reset(c: Ctx, user: UserRecord): JsonObject {
    const app = c.get("app");
    const record = app.notifications.user(user.uid);
    if (record?.preferences) {
      delete record.preferences;
      app.notifications.touch();
    }
    return updateShapeView(app, user.uid);
  },
  muted(c: Ctx, user: UserRecord): { mutedConversations: MutedConversation[] } {
    const now = c.get("emulator").clock.nowMs();
    const muted = (c.get("app").notifications.user(user.uid)?.muted ?? []).filter((m) => m.until === undefined || m.until > now);
    return { mutedConversations: muted };
  },
  mute(c: Ctx, user: UserRecord, body: Body): void {
    const list = conversationsOf(body as JsonObject, true);
    const record = c.get("app").notifications.ensureUser(user.uid);
    const key = (m: MutedConversation) => `${m.type}/${m.id}`;
    const byKey = new Map((record.muted ?? []).map((m) => [key(m), m]));
    for (const m of list) byKey.set(key(m), m);
    record.muted = [...byKey.values()];
  },
  unmute(c: Ctx, user: UserRecord, body: Body): void {
    const list = conversationsOf(body as JsonObject, false);
    const notifications = c.get("app").notifications;
    const record = notifications.user(user.uid);
    if (record?.muted) {
      const gone = new Set(list.map((m) => `${m.type}/${m.id}`));
      record.muted = record.muted.filter((m) => !gone.has(`${m.type}/${m.id}`));
      notifications.touch();
    }
  },
  timezone: (c: Ctx, user: UserRecord): JsonObject => ({ timezone: c.get("app").notifications.user(user.uid)?.timezone ?? "UTC" }),
  setTimezone(c: Ctx, user: UserRecord, body: Body): JsonObject {
    if (!isTimezone(body.timezone)) throw badRequest({ timezone: ["The timezone must be a valid IANA time zone."] });
    c.get("app").notifications.ensureUser(user.uid).timezone = body.timezone;
    return { timezone: body.timezone };
  },
};

export const preferences = routes(
  // ---- app settings ----
  operation({ id: "notifications-push-list-settings", method: "GET", path: "/notifications/v1/settings", plane: "rest", handler: (c) => ok(c, appSettings(c.get("app"))) }),
  operation({
    id: "notifications-push-update-settings",
    method: "PATCH",
    path: "/notifications/v1/settings",
    plane: "rest",
    body: SETTINGS,
    handler: (c, { body }) => {
      const { details, done } = problems();
      checkSettingsPatch(body as JsonObject, DEFAULT_SETTINGS, details);
      done();
      const app = c.get("app");
      app.notifications.settings = merged(appSettings(app), body as JsonObject);
      return ok(c, SUCCESS);
    },
  }),
  operation({
    id: "notifications-push-reset-settings",
    method: "DELETE",
    path: "/notifications/v1/settings",
    plane: "rest",
    handler: (c) => {
      c.get("app").notifications.settings = undefined;
      return ok(c, SUCCESS);
    },
  }),

  // ---- user preferences ----
  operation({
    id: "notifications-push-list-preferences",
    method: "GET",
    path: "/notifications/v1/preferences",
    plane: "rest",
    query: UID_QUERY,
    handler: (c, { query }) => ok(c, preferencesView(c.get("app"), whose(c, query.uid).uid)),
  }),
  operation({
    id: "notifications-push-update-preferences",
    method: "PATCH",
    path: "/notifications/v1/preferences",
    plane: "rest",
    query: UID_QUERY,
    body: PREFERENCES,
    handler: (c, { body, query }) => {
      const user = whose(c, query.uid);
      forUser.update(c, user, body);
      return ok(c, preferencesView(c.get("app"), user.uid));
    },
  }),
  operation({
    id: "notifications-push-reset-preferences",
    method: "DELETE",
    path: "/notifications/v1/preferences",
    plane: "rest",
    query: UID_QUERY,
    handler: (c, { query }) => ok(c, forUser.reset(c, whose(c, query.uid))),
  }),

  // ---- muted conversations ----
  operation({
    id: "notifications-push-list-muted",
    method: "GET",
    path: "/notifications/v1/preferences/mute",
    plane: "rest",
    query: UID_QUERY,
    handler: (c, { query }) => ok(c, forUser.muted(c, whose(c, query.uid))),
  }),
  operation({
    id: "notifications-push-mute-conversations",
    method: "PUT",
    path: "/notifications/v1/preferences/mute",
    plane: "rest",
    query: UID_QUERY,
    body: CONVERSATIONS,
    handler: (c, { body, query }) => (forUser.mute(c, whose(c, query.uid), body), ok(c, SUCCESS)),
  }),
  operation({
    id: "notifications-push-unmute-conversations",
    method: "DELETE",
    path: "/notifications/v1/preferences/mute",
    plane: "rest",
    query: UID_QUERY,
    body: CONVERSATIONS,
    handler: (c, { body, query }) => (forUser.unmute(c, whose(c, query.uid), body), ok(c, SUCCESS)),
  }),

  // ---- timezone ----
  operation({
    id: "notifications-get-timezone",
    method: "GET",
    path: "/notifications/v1/preferences/timezone",
    plane: "rest",
    query: UID_QUERY,
    handler: (c, { query }) => ok(c, forUser.timezone(c, whose(c, query.uid))),
  }),
  operation({
    id: "notifications-update-timezone",
    method: "PATCH",
    path: "/notifications/v1/preferences/timezone",
    plane: "rest",
    query: UID_QUERY,
    body: TIMEZONE,
    handler: (c, { body, query }) => ok(c, forUser.setTimezone(c, whose(c, query.uid), body)),
  }),

  // ---- contact details (on behalf of the user) ----
  operation({
    id: "notifications-get-contact-details",
    method: "GET",
    path: "/notifications/v1/contact-details",
    plane: "rest",
    headers: ["onBehalfOf"],
    handler: (c) => {
      const user = onBehalfOf(c, "required");
      const record = c.get("app").notifications.user(user.uid);
      return ok(c, { email: record?.email ?? null, phno: record?.phno ?? null });
    },
  }),
  operation({
    id: "notifications-update-contact-details",
    method: "PATCH",
    path: "/notifications/v1/contact-details",
    plane: "rest",
    body: {
      email: { type: "string", max: 255, pattern: EMAIL, patternMessage: "The email must be a valid email address." },
      phno: { type: "string", max: 16, pattern: PHONE, patternMessage: "The phno must be a phone number with its country code, e.g. +14155550123." },
    },
    headers: ["onBehalfOf"],
    handler: (c, { body }) => {
      const user = onBehalfOf(c, "required");
      if (body.email === undefined && body.phno === undefined) throw badRequest({ email: ["The email field is required when phno is not present."] });
      const record = c.get("app").notifications.ensureUser(user.uid);
      if (typeof body.email === "string") record.email = body.email;
      if (typeof body.phno === "string") record.phno = body.phno;
      return ok(c, { email: record.email ?? null, phno: record.phno ?? null });
    },
  }),
  operation({
    id: "notifications-delete-contact-details",
    method: "DELETE",
    path: "/notifications/v1/contact-details",
    plane: "rest",
    headers: ["onBehalfOf"],
    handler: (c) => {
      const user = onBehalfOf(c, "required");
      const notifications = c.get("app").notifications;
      const record = notifications.user(user.uid);
      if (record) {
        delete record.email;
        delete record.phno;
        notifications.touch();
      }
      return ok(c, SUCCESS);
    },
  }),
);
