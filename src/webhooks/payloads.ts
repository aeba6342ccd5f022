import type { AppState } from "../store/app-state.js";
import type { GroupRecord, UserRecord } from "../store/types.js";
import { groupView } from "../views/groups.js";
import { SYSTEM_UID } from "../views/messages.js";
import { userView } from "../views/users.js";

/** Pieces of webhook payloads (reference §3.4), built from the same views the REST replies use. */

/** Group objects in events carry `onlineMembersCount` (members whose status is `available`). */
export function groupPayload(app: AppState, g: GroupRecord): Record<string, unknown> {
  let online = 0;
  for (const uid of app.groups.membership(g.guid)?.members.keys() ?? []) if (app.users.get(uid)?.status === "available") online++;
  return { ...groupView(app, g, { tags: g.tags.length > 0 }), onlineMembersCount: online };
}

/** The acting user of an event, or the system. */
export function byPayload(actor: UserRecord | undefined): Record<string, unknown> {
  return actor ? userView(actor) : { uid: SYSTEM_UID, name: "System" };
}

export function brief(u: UserRecord): { uid: string; name: string } {
  return { uid: u.uid, name: u.name };
}
