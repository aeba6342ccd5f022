import { apiError } from "../../http/errors.js";
import type { AppState } from "../../store/app-state.js";
import type { GroupRecord, Json, RoleRecord, Scope, UserRecord } from "../../store/types.js";
import { ROLE_PERMISSIONS, SCOPE_PERMISSIONS, type PermissionSpec, type Value } from "./catalogue.js";

/**
 * What a role or a group scope lets its holders do, applied to calls made `onBehalfOf` a user: restricted
 * features, RBAC permissions and the role's `settings`. The app acting without `onBehalfOf` is never limited.
 */

const ROLE_SPECS = new Map(ROLE_PERMISSIONS.map((p) => [p.id, p]));
const SCOPE_SPECS = new Map(SCOPE_PERMISSIONS.map((p) => [p.id, p]));

function roleOf(app: AppState, user: UserRecord): RoleRecord | undefined {
  return app.roles.get(user.role);
}

function noAccess(user: UserRecord, why: string): never {
  throw apiError("AUTH_ERR_NO_ACCESS", { subject: `The user with UID ${user.uid}`, remedy: why });
}

function valueOf(specs: Map<string, PermissionSpec>, set: Record<string, Json> | undefined, id: string): Value {
  return (set?.[id] as Value | undefined) ?? specs.get(id)!.defaultValue;
}

/** A role permission's value for `user` (its default when the role does not set it). */
export function rolePermission(app: AppState, user: UserRecord, id: string): Value {
  return valueOf(ROLE_SPECS, roleOf(app, user)?.permissions, id);
}

/** An allow-list permission: undefined when it allows everything (empty). */
export function allowList(app: AppState, user: UserRecord | undefined, id: string): string[] | undefined {
  if (!user) return undefined;
  const v = rolePermission(app, user, id);
  return Array.isArray(v) && v.length > 0 ? v : undefined;
}

/** Refuses when the user's role restricts the feature `key` or denies the permission `permission`. */
export function requireAllowed(app: AppState, user: UserRecord | undefined, key: string, permission?: string): void {
  if (!user) return;
  const role = roleOf(app, user);
  if (role?.restrictedFeatures?.some((f) => f.key === key))
    noAccess(user, `The feature ${key} is restricted for the role ${user.role}.`);
  if (permission && rolePermission(app, user, permission) === "deny")
    noAccess(user, `The permission ${permission} is denied for the role ${user.role}.`);
}

/** Refuses a value that an allow-list permission of the user's role leaves out. */
export function requireListed(app: AppState, user: UserRecord | undefined, id: string, value: string): void {
  const allowed = allowList(app, user, id);
  if (allowed && !allowed.includes(value)) noAccess(user!, `The role ${user!.role} allows ${id} ${allowed.join(", ")} only, not ${value}.`);
}

/** Refuses a value that a deny-list permission of the user's role names (e.g. `editMessage.denyForScopes`). */
export function requireNotDenied(app: AppState, user: UserRecord | undefined, id: string, value: string): void {
  if (allowList(app, user, id)?.includes(value)) noAccess(user!, `The role ${user!.role} denies this for ${value} (${id}).`);
}

/** Whether the role limits `what` to friends (its `settings` or the RBAC mode). */
export function friendsOnly(app: AppState, user: UserRecord | undefined, what: "listUsers" | "sendMessage" | "getUserDetails"): boolean {
  if (!user) return false;
  const settings = roleOf(app, user)?.settings;
  if (what === "listUsers" && settings?.listUsers === "friendsOnly") return true;
  if (what === "sendMessage" && settings?.sendMessagesTo === "friendsOnly") return true;
  return rolePermission(app, user, `${what}.mode`) === "friends";
}

/** A group scope permission's value for members of `scope`. */
export function scopePermission(group: GroupRecord, scope: Scope, id: string): Value {
  return valueOf(SCOPE_SPECS, group.scopePermissions?.[scope], id);
}

/** Refuses a member whose scope in `group` is denied `id`. */
export function requireScopeAllowed(app: AppState, group: GroupRecord, user: UserRecord | undefined, id: string): void {
  if (!user) return;
  const scope = app.groups.member(group.guid, user.uid)?.scope;
  if (scope && scopePermission(group, scope, id) === "deny")
    noAccess(user, `The permission ${id} is denied for the scope ${scope} in the group ${group.guid}.`);
}

/** The scopes an allow-list scope permission lets `user` see, or undefined for all. */
export function scopeAllowList(app: AppState, group: GroupRecord, user: UserRecord | undefined, id: string): string[] | undefined {
  if (!user) return undefined;
  const scope = app.groups.member(group.guid, user.uid)?.scope;
  const v = scope ? scopePermission(group, scope, id) : undefined;
  return Array.isArray(v) && v.length > 0 ? v : undefined;
}
