import { addressedApp } from "../http/auth.js";
import { header, type Ctx } from "../http/context.js";
import { ok, success } from "../http/reply.js";
import type { Body } from "../http/validate.js";
import type { Schema } from "../http/schema.js";
import { operation, routes } from "../http/operation.js";
import type { JsonObject } from "../store/types.js";
import { blockedUsersAt } from "../resources/blocked-users/routes.js";
import { addMember, pathGroup, removeMember } from "../resources/groups/membership.js";
import { ADD, addMembersFrom } from "../resources/members/routes.js";
import { threadList, THREADS_QUERY } from "../resources/messages/threads.js";
import { requireUser } from "../resources/users/lookup.js";
import { OWN_PROFILE, updateProfile } from "../resources/users/routes.js";
import { groupConversationId, userConversationId } from "../store/conversation-ids.js";
import { messageView } from "../views/messages.js";
import { userView } from "../views/users.js";
import { aiFeatures } from "../resources/ai/routes.js";
import { campaignsClient } from "../resources/campaigns/routes.js";
import { clientSettings } from "./settings.js";
import { clientPush } from "./push.js";
import { apiError, maskKey } from "../http/errors.js";
import type { Scope } from "../store/types.js";
import { changeScope, requireVisible } from "../resources/groups/membership.js";
import { updateGroup } from "../resources/groups/routes.js";
import { pathMessage } from "../views/access.js";

/**
 * `PUT /me` is both the SDK's login (the session's device) and its `updateCurrentUserDetails` (the `User` object it
 * is given: the profile fields a user may change, beside `uid`, `role`, `status` and the other read-only fields a
 * fetched user carries, which the platform does not apply).
 */
const LOGIN: Schema = {
  platform: { type: "string", max: 100 },
  deviceId: { type: "string", max: 255 },
  appInfo: { type: "object", maxKb: 4 },
  ...OWN_PROFILE,
};

/** A fresh `jwt` for the token's owner: what the WebSocket's `auth` frame presents. */
function jwtFor(c: Ctx): string {
  const { jwt, clock } = c.get("emulator");
  const app = c.get("app");
  return jwt.sign({ appId: app.meta.appId, uid: c.get("actor").uid, authToken: c.get("authToken").authToken }, clock.now());
}

/** `GET /settings` needs no token: it only names the app's hosts. */
export const clientSettingsRoute = routes(
  operation({ method: "GET", path: "/settings", plane: "client", handler: (c) => ok(c, clientSettings(c, addressedApp(c))) }),
);

/**
 * Login (`PUT /me`, and the table's `POST admin/users/auth`): the session's device, the user, a jwt, the settings;
 * with profile fields, the user's own profile change (`updateCurrentUserDetails`).
 */
function login(c: Ctx, body: Body) {
  const user = c.get("actor");
  const token = c.get("authToken");
  const profile = Object.fromEntries(Object.entries(body).filter(([k]) => Object.hasOwn(OWN_PROFILE, k)));
  if (Object.keys(profile).length > 0) updateProfile(c, user, profile);
  // The session's device, as `POST /users/{uid}/auth_tokens` records it.
  if (typeof body.platform === "string") token.platform = body.platform;
  if (typeof body.deviceId === "string") token.deviceId = body.deviceId;
  if (body.appInfo !== undefined) {
    token.appInfo = body.appInfo as JsonObject;
    const agent = (body.appInfo as JsonObject).userAgent;
    if (typeof agent === "string") token.userAgent = agent;
  }
  user.status = "available";
  c.get("app").touchToken(token);
  c.get("app").touchUser(user);
  return ok(c, {
    ...userView(user, { tags: true }),
    status: "online",
    authToken: token.authToken,
    jwt: jwtFor(c),
    settings: clientSettings(c, c.get("app")),
  });
}

const SCOPE: Schema = { uid: { required: true, type: "string", max: 100 }, scope: { type: "string", in: ["admin", "moderator"] } };

/** The SDK's promote / demote: the REST plane's scope change for `uid`, answered as `PUT groups/{guid}/members/{uid}`. */
function setScope(c: Ctx, body: Body, fixed?: Scope) {
  const app = c.get("app");
  const group = pathGroup(app, c.req.param("guid")!);
  const user = requireUser(app, body.uid as string);
  const scope = fixed ?? (body.scope as Scope | undefined) ?? "admin";
  const member = changeScope(app, c.get("emulator").clock.now(), group, user, scope, c.get("actor"));
  return ok(c, { guid: group.guid, uid: user.uid, scope: member.scope, joinedAt: member.joinedAt });
}

/**
 * What only the client plane has (the session, `/me`), and the SDK operations whose path or method differs from
 * the REST plane's: its own block list, one conversation's threads, join, leave and add members as PUT. The REST
 * plane's routers, mounted after these (app.ts), answer the SDK's other operations for the token's owner, who acts
 * as `onBehalfOf` does there (see `clientAuth`), so every access rule is the REST plane's own.
 */
export const clientOnly = routes(
  operation({ method: "PUT", path: "/me", plane: "client", body: LOGIN, handler: (c, { body }) => login(c, body) }),
  operation({ method: "POST", path: "/admin/users/auth", plane: "client", body: LOGIN, handler: (c, { body }) => login(c, body) }),
  // Logout of one session: its token is deleted, as `DELETE users/{uid}/auth_tokens/{authToken}` does.
  operation({
    method: "DELETE",
    path: "/admin/users/auth/:authToken",
    plane: "client",
    handler: (c) => {
      const app = c.get("app");
      const user = c.get("actor");
      const token = app.tokens.get(c.req.param("authToken")!);
      if (!token || token.uid !== user.uid) throw apiError("ERR_AUTH_TOKEN_NOT_FOUND", { authToken: maskKey(c.req.param("authToken")!), uid: user.uid });
      app.removeToken(token);
      return success(c, `Auth token ${token.authToken} has been deleted successfully.`);
    },
  }),
  operation({ method: "GET", path: "/me", plane: "client", handler: (c) => ok(c, userView(c.get("actor"), { tags: true })) }),
  operation({ method: "POST", path: "/me/jwt", plane: "client", handler: (c) => ok(c, { token: jwtFor(c) }) }),
  operation({
    method: "DELETE",
    path: "/me",
    plane: "client",
    headers: ["resource"],
    handler: (c) => {
      const user = c.get("actor");
      c.get("emulator").realtime.logout(c.get("app"), user, header(c, "resource"));
      return success(c, `The user with UID ${user.uid} has been logged out successfully.`);
    },
  }),
  // The SDK's integration analytics after login (SDK and UI-kit versions): acknowledged with its session id, which
  // the SDK keeps so that it reports again only when they change. The emulator keeps it in the journal only.
  operation({
    method: "POST",
    path: "/user_sessions",
    plane: "client",
    body: { sessionId: { required: true, type: "string", max: 255 }, data: { type: "object", maxKb: 8 } },
    handler: (c, { body }) => ok(c, { sessionId: body.sessionId }),
  }),
  operation({
    method: "GET",
    path: "/users/:uid/threads",
    plane: "client",
    query: THREADS_QUERY,
    handler: (c, { query }) => threadList(c, (app, viewer) => userConversationId(viewer.uid, requireUser(app, c.req.param("uid")!).uid), query),
  }),
  operation({
    method: "GET",
    path: "/groups/:guid/threads",
    plane: "client",
    query: THREADS_QUERY,
    handler: (c, { query }) => threadList(c, (app) => groupConversationId(pathGroup(app, c.req.param("guid")!).guid), query),
  }),
  operation({
    method: "POST",
    path: "/groups/:guid/members",
    plane: "client",
    body: { password: { type: "string", max: 100 } },
    handler: (c, { body }) => {
      const app = c.get("app");
      const user = c.get("actor");
      const group = pathGroup(app, c.req.param("guid")!);
      const password = group.type === "password" ? ((body.password as string | undefined) ?? "") : undefined;
      const action = addMember(app, c.get("emulator").clock.now(), group, user, "participant", user, password);
      return ok(c, messageView(app, action, user));
    },
  }),
  operation({ method: "PUT", path: "/groups/:guid/members", plane: "client", body: ADD, handler: (c, { body }) => addMembersFrom(c, body) }),
  operation({ method: "PUT", path: "/groups/:guid/promote", plane: "client", body: SCOPE, handler: (c, { body }) => setScope(c, body) }),
  operation({ method: "DELETE", path: "/groups/:guid/demote", plane: "client", body: SCOPE, handler: (c, { body }) => setScope(c, body, "participant") }),
  // Only the owner hands a group over, to a user who is not banned from it (who becomes an admin member).
  operation({
    method: "PATCH",
    path: "/groups/:guid/owner",
    plane: "client",
    body: { owner: { required: true, type: "string", max: 100 } },
    handler: (c, { body }) => {
      const app = c.get("app");
      const actor = c.get("actor");
      const group = pathGroup(app, c.req.param("guid")!);
      requireVisible(app, group, actor);
      if (group.owner !== actor.uid) throw apiError("ERR_GROUP_NO_CLEARANCE", { uid: actor.uid, target: "the ownership", guid: group.guid });
      const owner = requireUser(app, body.owner as string);
      if (app.groups.ban(group.guid, owner.uid)) throw apiError("ERR_BANNED_GROUPMEMBER", { uid: owner.uid, guid: group.guid });
      updateGroup(app, c.get("emulator").clock.now(), group, actor, () => {}, owner);
      return success(c, `Ownership transferred to user ${owner.uid} for the group with guid ${group.guid}.`);
    },
  }),
  // A message of the token's owner by the client id it was sent with.
  operation({
    method: "GET",
    path: "/user/messages/:muid",
    plane: "client",
    handler: (c) => {
      const app = c.get("app");
      const user = c.get("actor");
      const m = app.messages.withMuid(user.uid, c.req.param("muid")!);
      if (!m) throw apiError("ERR_MESSAGE_ID_NOT_FOUND", { id: c.req.param("muid")! });
      return ok(c, messageView(app, pathMessage(app, String(m.id), user), user));
    },
  }),
  operation({
    method: "DELETE",
    path: "/groups/:guid/members",
    plane: "client",
    handler: (c) => {
      const app = c.get("app");
      const user = c.get("actor");
      const group = pathGroup(app, c.req.param("guid")!);
      removeMember(app, c.get("emulator").clock.now(), group, user, user);
      return success(c, `The user with UID ${user.uid} has left the group ${group.guid}.`);
    },
  }),
)
  .route("/", blockedUsersAt("/blockedusers"))
  .route("/", aiFeatures)
  .route("/", campaignsClient)
  .route("/", clientPush);
