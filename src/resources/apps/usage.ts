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

/**
 * What the platform e-mails after `POST /apps/{appId}/usage`, computed from the store: the cycle's chat messages,
 * monthly active users, call minutes and peak concurrency (the metrics' figures), and the users the app holds.
 */
export function usageReport(app: AppState, now: number, previous: boolean) {
  const cycle = billingCycle(now, previous);
  const to = Math.min(cycle.to, now + 1);
  const calls = usage(app, cycle.from, to - 1, now);
  return {
    cycle,
    messages: app.activity.sentBetween(cycle.from, to),
    monthly_active_users: calls.active_users,
    total_users: app.activeUserCount,
    audio_minutes: calls.audio_minutes,
    video_minutes: calls.video_minutes,
    recorded_minutes: calls.recorded_minutes,
    concurrent_users: calls.concurrent_users,
  };
}
