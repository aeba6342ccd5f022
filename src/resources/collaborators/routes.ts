import { apiError, badRequest } from "../../http/errors.js";
import { PAGE_QUERY, pageOf } from "../../http/pagination.js";
import { bulkFailure, ok, page } from "../../http/reply.js";
import { operation, routes } from "../../http/operation.js";
import type { AppState } from "../../store/app-state.js";
import type { CollaboratorRole } from "../../store/management.js";
import { appOwner, pathApp } from "../apps/routes.js";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const LISTS = [
  ["admins", "admin"],
  ["developers", "developer"],
  ["moderators", "moderator"],
] as const;

const emails = { type: "array", max: 100, items: { required: true, type: "string", max: 255 } } as const;

/** Adds (or re-roles) one collaborator; the owner cannot be one. */
function invite(app: AppState, email: string, role: CollaboratorRole, now: number) {
  const normalized = email.toLowerCase();
  if (!EMAIL.test(normalized)) throw badRequest({ email: [`The email ${email} must be a valid email address.`] });
  if (normalized === appOwner(app).email) throw apiError("ERR_ALREADY_AN_OWNER", { email, appId: app.meta.appId });
  const m = app.management;
  const existing = m.collaborators.find((x) => x.email === normalized);
  if (existing) m.collaborators = m.collaborators.map((x) => (x === existing ? { ...x, role } : x));
  else {
    m.lastCollaboratorId += 1;
    const name = normalized.split("@")[0];
    m.collaborators = [...m.collaborators, { id: String(m.lastCollaboratorId), name, email: normalized, role, createdAt: now }];
  }
  return { success: true };
}

function remove(app: AppState, email: string) {
  const normalized = email.toLowerCase();
  const m = app.management;
  if (!m.collaborators.some((x) => x.email === normalized)) throw apiError("ERR_NOT_A_COLLABORATOR", { email, appId: app.meta.appId });
  m.collaborators = m.collaborators.filter((x) => x.email !== normalized);
  return { success: true };
}

/** Management plane: an app's collaborators (team management). */
export const collaborators = routes(
  operation({
    id: "add-collaborator",
    method: "POST",
    path: "/apps/:appId/collaborators",
    plane: "management",
    body: { admins: emails, developers: emails, moderators: emails, collaboratorsToRemove: emails },
    handler: (c, { body }) => {
      const app = pathApp(c);
      if (LISTS.every(([list]) => body[list] === undefined) && body.collaboratorsToRemove === undefined)
        throw badRequest({ admins: ["The admins field is required when moderators and collaboratorsToRemove are not present."] });
      const now = c.get("emulator").clock.now();
      const outcome = (fn: () => unknown) => {
        try {
          return fn();
        } catch (e) {
          return bulkFailure(e);
        }
      };
      const data: Record<string, unknown> = {};
      const removing = (body.collaboratorsToRemove as string[] | undefined) ?? [];
      data.collaboratorsToRemove = removing.length === 0 ? [] : Object.fromEntries(removing.map((e) => [e, outcome(() => remove(app, e))]));
      for (const [list, role] of LISTS) {
        const given = (body[list] as string[] | undefined) ?? [];
        data[list] = given.length === 0 ? [] : Object.fromEntries(given.map((e) => [e, outcome(() => invite(app, e, role, now))]));
      }
      return ok(c, data);
    },
  }),
  operation({
    id: "list-collaborators",
    method: "GET",
    path: "/apps/:appId/collaborators",
    plane: "management",
    query: PAGE_QUERY,
    handler: (c, { query }) => {
      const app = pathApp(c);
      const { data, pagination } = pageOf(app.management.collaborators, query.perPage, query.page);
      return page(c, data, pagination);
    },
  }),
);
