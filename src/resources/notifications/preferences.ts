import { Hono } from "hono";
import { onBehalfOf } from "../../http/auth.js";
import type { Ctx, Env } from "../../http/context.js";
import { badRequest, keyedMap, type Details } from "../../http/errors.js";
import { ok } from "../../http/reply.js";
import { Query, readBody, validate } from "../../http/validate.js";
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
import { reads } from "../../http/advice.js";

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
 * Whose preferences: the `uid` query parameter (required, an active user), or on the client plane the token's
 * owner.
 */
function queryUser(c: Ctx): UserRecord {
  const actor = c.get("actor");
  if (actor) return actor;
  const q = new Query(c);
  const uid = q.str("uid");
  if (uid === undefined) q.fail("uid", "The uid field is required.");
  q.done();
  return requireUser(c.get("app"), uid!);
}

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

const CONVERSATIONS = { conversations: { required: true, type: "array", max: 1000, items: { required: true, type: "object" } } } as const;

/** The `conversations` of a mute or unmute body, checked item by item. */
function conversationsOf(body: JsonObject, withUntil: boolean): MutedConversation[] {
  validate(body, CONVERSATIONS);
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

/** The operations on one user's preferences, shared by the REST routes and the SDK's paths (client/push.ts). */
export const userPreferences = {
  /** The user's effective preferences in the update body's shape (what the SDK reads). */
  effective: (c: Ctx) => updateShapeView(c.get("app"), queryUser(c).uid),
  async update(c: Ctx): Promise<UserRecord> {
    const user = queryUser(c);
    const body = (await readBody(c)) as JsonObject;
    reads(body, Object.keys(body)); // merged whole: preferencesUpdate refuses what it does not know
    const app = c.get("app");
    const update = preferencesUpdate(app, body);
    const record = app.notifications.ensureUser(user.uid);
    record.preferences = merged(record.preferences ?? {}, update);
    return user;
  },
  reset(c: Ctx): JsonObject {
    const user = queryUser(c);
    const app = c.get("app");
    const record = app.notifications.user(user.uid);
    if (record?.preferences) {
      delete record.preferences;
      app.notifications.touch();
    }
    return updateShapeView(app, user.uid);
  },
  muted(c: Ctx): { mutedConversations: MutedConversation[] } {
    const user = queryUser(c);
    const now = c.get("emulator").clock.nowMs();
    const muted = (c.get("app").notifications.user(user.uid)?.muted ?? []).filter((m) => m.until === undefined || m.until > now);
    return { mutedConversations: muted };
  },
  async mute(c: Ctx): Promise<void> {
    const user = queryUser(c);
    const list = conversationsOf((await readBody(c)) as JsonObject, true);
    const record = c.get("app").notifications.ensureUser(user.uid);
    const key = (m: MutedConversation) => `${m.type}/${m.id}`;
    const byKey = new Map((record.muted ?? []).map((m) => [key(m), m]));
    for (const m of list) byKey.set(key(m), m);
    record.muted = [...byKey.values()];
  },
  async unmute(c: Ctx): Promise<void> {
    const user = queryUser(c);
    const list = conversationsOf((await readBody(c)) as JsonObject, false);
    const notifications = c.get("app").notifications;
    const record = notifications.user(user.uid);
    if (record?.muted) {
      const gone = new Set(list.map((m) => `${m.type}/${m.id}`));
      record.muted = record.muted.filter((m) => !gone.has(`${m.type}/${m.id}`));
      notifications.touch();
    }
  },
  timezone: (c: Ctx): JsonObject => ({ timezone: c.get("app").notifications.user(queryUser(c).uid)?.timezone ?? "UTC" }),
  async setTimezone(c: Ctx): Promise<JsonObject> {
    const user = queryUser(c);
    const body = await readBody(c);
    validate(body, { timezone: { required: true, type: "string", max: 100 } });
    if (!isTimezone(body.timezone)) throw badRequest({ timezone: ["The timezone must be a valid IANA time zone."] });
    c.get("app").notifications.ensureUser(user.uid).timezone = body.timezone;
    return { timezone: body.timezone };
  },
};

export const preferences = new Hono<Env>()
  // ---- app settings ----
  .get("/notifications/v1/settings", (c) => ok(c, appSettings(c.get("app"))))
  .patch("/notifications/v1/settings", async (c) => {
    const body = (await readBody(c)) as JsonObject;
    reads(body, Object.keys(body)); // merged whole, after checkSettingsPatch
    const { details, done } = problems();
    checkSettingsPatch(body, DEFAULT_SETTINGS, details);
    done();
    const app = c.get("app");
    app.notifications.settings = merged(appSettings(app), body);
    return ok(c, SUCCESS);
  })
  .delete("/notifications/v1/settings", (c) => {
    c.get("app").notifications.settings = undefined;
    return ok(c, SUCCESS);
  })

  // ---- user preferences ----
  .get("/notifications/v1/preferences", (c) => ok(c, preferencesView(c.get("app"), queryUser(c).uid)))
  .patch("/notifications/v1/preferences", async (c) => ok(c, preferencesView(c.get("app"), (await userPreferences.update(c)).uid)))
  .delete("/notifications/v1/preferences", (c) => ok(c, userPreferences.reset(c)))

  // ---- muted conversations ----
  .get("/notifications/v1/preferences/mute", (c) => ok(c, userPreferences.muted(c)))
  .put("/notifications/v1/preferences/mute", async (c) => (await userPreferences.mute(c), ok(c, SUCCESS)))
  .delete("/notifications/v1/preferences/mute", async (c) => (await userPreferences.unmute(c), ok(c, SUCCESS)))

  // ---- timezone ----
  .get("/notifications/v1/preferences/timezone", (c) => ok(c, userPreferences.timezone(c)))
  .patch("/notifications/v1/preferences/timezone", async (c) => ok(c, await userPreferences.setTimezone(c)))

  // ---- contact details (on behalf of the user) ----
  .get("/notifications/v1/contact-details", (c) => {
    const user = onBehalfOf(c, "required");
    const record = c.get("app").notifications.user(user.uid);
    return ok(c, { email: record?.email ?? null, phno: record?.phno ?? null });
  })
  .patch("/notifications/v1/contact-details", async (c) => {
    const user = onBehalfOf(c, "required");
    const body = await readBody(c);
    validate(body, {
      email: { type: "string", max: 255, pattern: EMAIL, patternMessage: "The email must be a valid email address." },
      phno: { type: "string", max: 16, pattern: PHONE, patternMessage: "The phno must be a phone number with its country code, e.g. +14155550123." },
    });
    if (body.email === undefined && body.phno === undefined) throw badRequest({ email: ["The email field is required when phno is not present."] });
    const record = c.get("app").notifications.ensureUser(user.uid);
    if (typeof body.email === "string") record.email = body.email;
    if (typeof body.phno === "string") record.phno = body.phno;
    return ok(c, { email: record.email ?? null, phno: record.phno ?? null });
  })
  .delete("/notifications/v1/contact-details", (c) => {
    const user = onBehalfOf(c, "required");
    const notifications = c.get("app").notifications;
    const record = notifications.user(user.uid);
    if (record) {
      delete record.email;
      delete record.phno;
      notifications.touch();
    }
    return ok(c, SUCCESS);
  });
