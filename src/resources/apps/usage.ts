import type { AppState } from "../../store/app-state.js";
import { usage } from "../metrics/routes.js";

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** The billing cycle containing `now` (a calendar month, UTC), or the one before it; Unix seconds [from, to). */
export function billingCycle(now: number, previous: boolean) {
  const d = new Date(now * 1000);
  const month = d.getUTCMonth() - (previous ? 1 : 0);
  const from = Date.UTC(d.getUTCFullYear(), month, 1) / 1000;
  const to = Date.UTC(d.getUTCFullYear(), month + 1, 1) / 1000;
  const start = new Date(from * 1000);
  return { from, to, name: `${MONTHS[start.getUTCMonth()]} ${start.getUTCFullYear()}` };
}

/** Whose app it is: the tenant account that created it, or (undefined) the management key's own account. */
const accountOf = (app: AppState) => app.management.tenant?.email;

/**
 * The apps a usage request covers. Multi-tenant usage is pooled in the account's base app (its first app): asked
 * for the base app, the report covers every app of the account; asked for another app, that app alone. A walk
 * over the apps, which are few, never over their records.
 */
export function reportedApps(apps: Iterable<AppState>, app: AppState): AppState[] {
  const account = [...apps].filter((a) => accountOf(a) === accountOf(app));
  return account[0] === app ? account : [app];
}

const sum = (apps: readonly AppState[], figure: (app: AppState) => number) => apps.reduce((n, a) => n + figure(a), 0);

/**
 * What the platform e-mails after `POST /apps/{appId}/usage`, computed from the store for `apps` (see
 * reportedApps): the cycle's chat messages, monthly active users, call minutes and peak concurrency (the
 * metrics' figures), and the users the apps hold.
 */
export function usageReport(apps: readonly AppState[], now: number, previous: boolean) {
  const cycle = billingCycle(now, previous);
  const to = Math.min(cycle.to, now + 1);
  const calls = usage(apps, cycle.from, to - 1, now);
  return {
    cycle,
    apps: apps.map((a) => a.meta.appId),
    messages: sum(apps, (a) => a.activity.sentBetween(cycle.from, to)),
    monthly_active_users: calls.active_users,
    total_users: sum(apps, (a) => a.activeUserCount),
    audio_minutes: calls.audio_minutes,
    video_minutes: calls.video_minutes,
    recorded_minutes: calls.recorded_minutes,
    concurrent_users: calls.concurrent_users,
  };
}
