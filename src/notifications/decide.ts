import type { AppState } from "../store/app-state.js";
import type { JsonObject } from "../store/types.js";
import type { Plan } from "./plan.js";
import { appSettings, at, effectiveMute, effectiveSetting } from "./settings.js";

/**
 * Why a receiver gets nothing for a plan, or undefined when they are notified. In order: a block between them
 * and the actor; the setting in force (app setting, or the user's where overridable; mentions-only settings);
 * a muted conversation whose `until` has not passed; do-not-disturb; the day's schedule in their timezone.
 * With `bypassPreferencesForMentions`, a mentioned receiver skips the preference and mute checks.
 */
export function suppression(app: AppState, plan: Plan, uid: string, nowMs: number): string | undefined {
  if (app.relations.blockOf(uid, plan.actor) || app.relations.blockOf(plan.actor, uid)) return "BLOCKED";
  const settings = appSettings(app);
  const mentioned = plan.mentions.has(uid);
  if (!(mentioned && at(settings, "preferences.bypassPreferencesForMentions") === true)) {
    const setting = effectiveSetting(app, uid, plan.area, plan.setting);
    if (setting === 1) return plan.reason;
    if (setting === 3 && plan.setting in { messages: 1, replies: 1, quotedReplies: 1 } && !mentioned) return plan.reason;
    if (isMuted(app, plan, uid, nowMs)) return "MUTE_PREFERENCE";
  }
  const mute = effectiveMute(app, uid);
  if (mute.dnd === 2) return "DND_PREFERENCE";
  if (!inSchedule(mute.schedule, timezoneOf(app, uid), nowMs)) return "SCHEDULE_PREFERENCE";
  return undefined;
}

function isMuted(app: AppState, plan: Plan, uid: string, nowMs: number): boolean {
  const group = plan.message.receiverType === "group";
  if (at(appSettings(app), `preferences.mute.${group ? "mutedGroupsOverride" : "mutedOneOnOnesOverride"}`) === false) return false;
  const id = group ? plan.message.receiver : plan.actor;
  const type = group ? "group" : "oneOnOne";
  return (app.notifications.user(uid)?.muted ?? []).some((m) => m.type === type && m.id === id && (m.until === undefined || m.until > nowMs));
}

export function timezoneOf(app: AppState, uid: string): string {
  return app.notifications.user(uid)?.timezone ?? "UTC";
}

const formats = new Map<string, Intl.DateTimeFormat>();

/** The weekday and HHMM clock time at `nowMs` in `timezone`. */
export function localTime(timezone: string, nowMs: number): { day: string; hhmm: number } {
  let f = formats.get(timezone);
  if (!f) formats.set(timezone, (f = new Intl.DateTimeFormat("en-US", { timeZone: timezone, weekday: "long", hour: "2-digit", minute: "2-digit", hourCycle: "h23" })));
  const parts = Object.fromEntries(f.formatToParts(new Date(nowMs)).map((p) => [p.type, p.value]));
  return { day: parts.weekday.toLowerCase(), hhmm: Number(parts.hour) * 100 + Number(parts.minute) };
}

/** Notifications go out on each day between `from` and `to` (local HHMM); a day with `dnd` gets none. */
export function inSchedule(schedule: JsonObject, timezone: string, nowMs: number): boolean {
  const { day, hhmm } = localTime(timezone, nowMs);
  const entry = schedule[day] as { from?: number; to?: number; dnd?: boolean } | undefined;
  if (!entry) return true;
  if (entry.dnd === true) return false;
  return hhmm >= (entry.from ?? 0) && hhmm <= (entry.to ?? 2359);
}
