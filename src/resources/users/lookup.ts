import { apiError } from "../../http/errors.js";
import { normalizeUid } from "../../http/auth.js";
import type { Ctx } from "../../http/context.js";
import type { AppState } from "../../store/app-state.js";
import type { UserRecord } from "../../store/types.js";

/** A uid from a path or body: ERR_UID_NOT_FOUND unless the user exists and is active. */
export function requireUser(app: AppState, uid: string): UserRecord {
  const id = normalizeUid(uid);
  const user = app.activeUser(id);
  if (!user) throw apiError("ERR_UID_NOT_FOUND", { uid: id });
  return user;
}

/** The user addressed by the path's `uid`. */
export function pathUser(c: Ctx): UserRecord {
  return requireUser(c.get("app"), c.req.param("uid")!);
}
