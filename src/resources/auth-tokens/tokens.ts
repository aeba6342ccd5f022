import type { AppState } from "../../store/app-state.js";
import type { AuthTokenRecord, JsonObject } from "../../store/types.js";
import { randomHex } from "../../util/random.js";

/** Active tokens kept per user; beyond this the oldest are archived (rolling retention). */
export const MAX_TOKENS_PER_USER = 100;

/** `<uid>_<10-digit Unix seconds><30 hex>`, the platform's format. */
export function mintToken(
  app: AppState,
  uid: string,
  now: number,
  extra: { platform?: string; userAgent?: string; deviceId?: string; appInfo?: JsonObject } = {},
): AuthTokenRecord {
  let authToken: string;
  do authToken = `${uid}_${String(now).padStart(10, "0")}${randomHex(30)}`;
  while (app.tokens.has(authToken));
  const record: AuthTokenRecord = { uid, authToken, createdAt: now };
  for (const k of ["platform", "userAgent", "deviceId", "appInfo"] as const)
    if (extra[k] !== undefined) (record as unknown as Record<string, unknown>)[k] = extra[k];
  app.addToken(record, MAX_TOKENS_PER_USER);
  return record;
}

export function tokenView(t: AuthTokenRecord): Record<string, unknown> {
  const out: Record<string, unknown> = { uid: t.uid, authToken: t.authToken, createdAt: t.createdAt };
  if (t.platform !== undefined) out.platform = t.platform;
  if (t.userAgent !== undefined) out.userAgent = t.userAgent;
  if (t.appInfo !== undefined) out.appInfo = t.appInfo;
  return out;
}
