import type { Ctx } from "../../http/context.js";
import { apiError, badRequest, keyedMap } from "../../http/errors.js";
import { PAGE_QUERY, pageOf } from "../../http/pagination.js";
import { ok, page, success } from "../../http/reply.js";
import { asBool, type Body } from "../../http/validate.js";
import { fieldSchema, type JsonSchema, type Schema } from "../../http/schema.js";
import { operation, routes, type Operation } from "../../http/operation.js";
import type { AppState } from "../../store/app-state.js";
import { DEFAULT_ROLE } from "../../store/app-state.js";
import { SCOPES, type GroupRecord, type Json, type JsonObject, type RoleRecord, type Scope } from "../../store/types.js";
import { pathGroup } from "../groups/membership.js";
import { FEATURES, FEATURE_KEYS, invalidValue, normalizeValue, ROLE_PERMISSIONS, SCOPE_PERMISSIONS, type PermissionSpec } from "./catalogue.js";

const MODE = { type: "string", in: ["all", "friendsOnly"] } as const;
const ATTRIBUTES: Schema = {
  description: { type: "string", max: 255 },
  metadata: { type: "object", maxKb: 5 },
  settings: { type: "object" },
};

/**
 * A role's create or update: its body's `settings` object has fields of its own (`settings.listUsers`), checked
 * with the rest of the body. The body notation (http/schema.ts) names no nested fields, so they are added to the
 * declaration's JSON Schema here, before its first use compiles it.
 */
function withSettings<O extends Operation<any>>(op: O): O {
  const settings = (op.bodyJson!.properties as Record<string, JsonSchema>).settings;
  settings.properties = { listUsers: fieldSchema(MODE), sendMessagesTo: fieldSchema(MODE) };
  return op;
}

export function roleView(r: RoleRecord): Record<string, unknown> {
  const out: Record<string, unknown> = { role: r.role, name: r.name };
  if (r.description !== undefined) out.description = r.description;
  if (r.metadata !== undefined) out.metadata = r.metadata;
  if (r.settings !== undefined) out.settings = r.settings;
  out.createdAt = r.createdAt;
  if (r.updatedAt !== undefined) out.updatedAt = r.updatedAt;
  return out;
}

function pathRole(c: Ctx): RoleRecord {
  const role = c.get("app").roles.get(c.req.param("role")!.toLowerCase());
  if (!role) throw apiError("ERR_ROLE_NOT_FOUND", { role: c.req.param("role") });
  return role;
}

function applyAttributes(r: RoleRecord, body: Body): void {
  if (typeof body.name === "string") r.name = body.name;
  if (typeof body.description === "string") r.description = body.description;
  if (body.metadata) r.metadata = body.metadata as JsonObject;
  if (body.settings) r.settings = { ...r.settings, ...(body.settings as RoleRecord["settings"]) };
}

/** Descriptors with the holder's current values (`value`: what is set, else the default). */
function describe(specs: readonly PermissionSpec[], type: "role" | "scope", set: Record<string, Json> | undefined, at: number) {
  return specs.map((p) => ({ id: p.id, type, title: p.title, description: p.description, dataType: p.dataType, availableValues: p.availableValues, defaultValue: p.defaultValue, value: set?.[p.id] ?? p.defaultValue, createdAt: at, updatedAt: at }));
}

/**
 * Sets permissions from a free map: each known id with a valid value is merged in; others get a failed entry.
 * Answers per id plus the full resulting map.
 */
function setPermissions(specs: readonly PermissionSpec[], current: Record<string, Json> | undefined, body: Body, mapped: string) {
  const byId = new Map(specs.map((p) => [p.id, p]));
  const next: Record<string, Json> = { ...current };
  const data: Record<string, unknown> = keyedMap();
  for (const [id, value] of Object.entries(body.permissions as Body)) {
    const spec = byId.get(id);
    const problem = spec ? invalidValue(spec, value) : `The permission ${id} does not exist.`;
    if (problem) data[id] = { success: false, message: problem };
    else {
      next[id] = normalizeValue(spec!, value);
      data[id] = { success: true, message: `Permission with id ${id} have been mapped successfully to ${mapped}.` };
    }
  }
  return { next, data: { ...data, permissions: next } };
}

function unsetPermission(current: Record<string, Json> | undefined, id: string): Record<string, Json> {
  const next = { ...current };
  delete next[id];
  return next;
}

/** The group and the member scope the path names. */
function pathScope(c: Ctx): { group: GroupRecord; scope: Scope } {
  const group = pathGroup(c.get("app"), c.req.param("guid")!);
  const scope = c.req.param("scope") as Scope;
  if (!SCOPES.includes(scope)) throw badRequest({ scope: ["The selected scope is invalid."] });
  return { group, scope };
}

const PERMISSIONS: Schema = { permissions: { required: true, type: "object" } };

/** Users holding a deleted role fall back to the default role, so every user's role keeps existing. */
function releaseRole(app: AppState, role: string): void {
  for (const user of [...(app.usersByRole.get(role) ?? [])]) app.updateUser(user, (u) => (u.role = DEFAULT_ROLE.role));
}

export const ROLES_PER_APP = 25;

export const roles = routes(
  withSettings(
    operation({
      id: "create-role",
      method: "POST",
      path: "/roles",
      plane: "rest",
      body: {
        role: { required: true, type: "string", max: 100, pattern: /^[A-Za-z0-9-]+$/, patternMessage: "The role may only contain letters, numbers, and dashes." },
        name: { required: true, type: "string", max: 100 },
        ...ATTRIBUTES,
      },
      handler: (c, { body }) => {
        const app = c.get("app");
        const id = (body.role as string).toLowerCase();
        if (app.roles.has(id)) throw apiError("ERR_ROLE_ALREADY_EXISTS", { role: id });
        // The built-in default role aside (rest-api/constraints-rate-limits-and-errors: "Maximum 25").
        if (app.roles.size - 1 >= ROLES_PER_APP)
          throw apiError("ERR_PLAN_QUOTA_RESTRICTION", { what: `The app ${app.meta.appId} has reached the limit of ${ROLES_PER_APP} roles.` });
        const role: RoleRecord = { role: id, name: body.name as string, createdAt: c.get("emulator").clock.now() };
        applyAttributes(role, body);
        app.roles.set(id, role);
        return ok(c, roleView(role));
      },
    }),
  ),

  operation({
    id: "list-roles",
    method: "GET",
    path: "/roles",
    plane: "rest",
    query: PAGE_QUERY,
    handler: (c, { query }) => {
      const { data, pagination } = pageOf([...c.get("app").roles.values()], query.perPage, query.page);
      return page(c, data.map(roleView), pagination);
    },
  }),

  operation({ id: "get-role", method: "GET", path: "/roles/:role", plane: "rest", handler: (c) => ok(c, roleView(pathRole(c))) }),

  withSettings(
    operation({
      id: "update-role",
      method: "PUT",
      path: "/roles/:role",
      plane: "rest",
      body: {
        name: { filled: true, type: "string", max: 100 },
        ...ATTRIBUTES,
        unset: { type: "array", items: { type: "string", in: ["settings", "description", "metadata"] } },
      },
      handler: (c, { body }) => {
        const role = pathRole(c);
        applyAttributes(role, body);
        for (const field of (body.unset as ("settings" | "description" | "metadata")[] | undefined) ?? []) delete role[field];
        role.updatedAt = c.get("emulator").clock.now();
        return ok(c, roleView(role));
      },
    }),
  ),

  operation({
    id: "delete-role",
    method: "DELETE",
    path: "/roles/:role",
    plane: "rest",
    handler: (c) => {
      const role = pathRole(c);
      if (role.role === DEFAULT_ROLE.role) throw apiError("ERR_ROLE_DELETE_DENIED", { role: role.role });
      releaseRole(c.get("app"), role.role);
      c.get("app").roles.delete(role.role);
      return success(c, `Role ${role.role} has been deleted successfully.`);
    },
  }),

  // Restricted features
  operation({
    id: "restrict-features",
    method: "POST",
    path: "/roles/:role/restrictedfeatures",
    plane: "rest",
    body: { featuresToRestrict: { required: true, type: "array", items: { required: true, type: "string" } } },
    handler: (c, { body }) => {
      const role = pathRole(c);
      const now = c.get("emulator").clock.now();
      const data: Record<string, unknown> = keyedMap();
      for (const key of body.featuresToRestrict as string[]) {
        if (!FEATURE_KEYS.has(key)) {
          data[key] = { success: false, message: `The feature ${key} does not exist.` };
          continue;
        }
        const current = role.restrictedFeatures ?? [];
        if (!current.some((f) => f.key === key)) role.restrictedFeatures = [...current, { key, createdAt: now }];
        data[key] = { success: true, message: `The feature ${key} has been restricted successfully.` };
      }
      return ok(c, data);
    },
  }),

  operation({
    id: "get-restrictedfeatures",
    method: "GET",
    path: "/roles/:role/restrictedfeatures",
    plane: "rest",
    query: PAGE_QUERY,
    handler: (c, { query }) => {
      const role = pathRole(c);
      const restricted = (role.restrictedFeatures ?? []).map((r) => ({ ...FEATURES.find((f) => f.key === r.key)!, createdAt: r.createdAt }));
      const { data, pagination } = pageOf(restricted, query.perPage, query.page);
      return page(c, data.map(({ title, description, key, path, createdAt }) => ({ title, description, key, path, createdAt })), pagination);
    },
  }),

  operation({
    id: "allow-features",
    method: "DELETE",
    path: "/roles/:role/restrictedfeatures",
    plane: "rest",
    body: { featuresToAllow: { type: "array", items: { required: true, type: "string" } }, allowAll: { type: "boolean" } },
    handler: (c, { body }) => {
      const role = pathRole(c);
      if (!asBool(body.allowAll) && !(body.featuresToAllow as unknown[] | undefined)?.length)
        throw badRequest({ featuresToAllow: ["The featuresToAllow field is required when allowAll is not present."] });
      const allow = new Set(body.featuresToAllow as string[] | undefined);
      role.restrictedFeatures = asBool(body.allowAll) ? [] : (role.restrictedFeatures ?? []).filter((f) => !allow.has(f.key));
      if (role.restrictedFeatures.length === 0) delete role.restrictedFeatures;
      return success(c, "The feature has been allowed successfully.");
    },
  }),

  // Role permissions (RBAC)
  operation({
    id: "list-role-permissions",
    method: "GET",
    path: "/roles/:role/permissions",
    plane: "rest",
    handler: (c) => {
      const role = pathRole(c);
      const { data, pagination } = pageOf(describe(ROLE_PERMISSIONS, "role", role.permissions, role.createdAt), 1000, 1);
      return page(c, data, pagination);
    },
  }),

  operation({
    id: "set-role-permissions",
    method: "PUT",
    path: "/roles/:role/permissions",
    plane: "rest",
    body: PERMISSIONS,
    handler: (c, { body }) => {
      const role = pathRole(c);
      const result = setPermissions(ROLE_PERMISSIONS, role.permissions, body, `role ${role.role}`);
      role.permissions = result.next;
      return ok(c, result.data);
    },
  }),

  operation({
    id: "unset-role-permissions",
    method: "DELETE",
    path: "/roles/:role/permissions/:permission",
    plane: "rest",
    handler: (c) => {
      const role = pathRole(c);
      role.permissions = unsetPermission(role.permissions, c.req.param("permission")!);
      return ok(c, { permissions: role.permissions });
    },
  }),

  // Group scope permissions (RBAC)
  operation({
    id: "list-scope-permissions",
    method: "GET",
    path: "/groups/:guid/scopes/:scope/permissions",
    plane: "rest",
    handler: (c) => {
      const { group, scope } = pathScope(c);
      const { data, pagination } = pageOf(describe(SCOPE_PERMISSIONS, "scope", group.scopePermissions?.[scope], group.createdAt), 1000, 1);
      return page(c, data, pagination);
    },
  }),

  operation({
    id: "set-scope-permissions",
    method: "PUT",
    path: "/groups/:guid/scopes/:scope/permissions",
    plane: "rest",
    body: PERMISSIONS,
    handler: (c, { body }) => {
      const { group, scope } = pathScope(c);
      const result = setPermissions(SCOPE_PERMISSIONS, group.scopePermissions?.[scope], body, `scope ${scope} on group ${group.guid}`);
      group.scopePermissions = { ...group.scopePermissions, [scope]: result.next };
      return ok(c, result.data);
    },
  }),

  operation({
    id: "unset-scope-permissions",
    method: "DELETE",
    path: "/groups/:guid/scopes/:scope/permissions/:permission",
    plane: "rest",
    handler: (c) => {
      const { group, scope } = pathScope(c);
      const next = unsetPermission(group.scopePermissions?.[scope], c.req.param("permission")!);
      group.scopePermissions = { ...group.scopePermissions, [scope]: next };
      return ok(c, { permissions: next });
    },
  }),
);
