import { Hono } from "hono";
import { addressedApp } from "../http/auth.js";
import { header, type Ctx, type Env } from "../http/context.js";
import { ok, success } from "../http/reply.js";
import { readBody, validate } from "../http/validate.js";
import type { JsonObject } from "../store/types.js";
import { blockedUsersAt } from "../resources/blocked-users/routes.js";
import { addMember, pathGroup, removeMember } from "../resources/groups/membership.js";
import { addMembers } from "../resources/members/routes.js";
import { threadList } from "../resources/messages/threads.js";
import { requireUser } from "../resources/users/lookup.js";
import { OWN_PROFILE, updateProfile } from "../resources/users/routes.js";
import { bodySchema } from "../http/schema.js";
import { checkBody } from "../http/body-check.js";
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
 * fetched user carries, which the platform does not apply). Hoisted: the compiled check is cached by identity.
 */
const ME = bodySchema({
  platform: { type: "string", max: 100 },
  deviceId: { type: "string", max: 255 },
  appInfo: { type: "object", maxKb: 4 },
  ...OWN_PROFILE,
});

/** A fresh `jwt` for the token's owner: what the WebSocket's `auth` frame presents. */
function jwtFor(c: Ctx): string {
  const { jwt, clock } = c.get("emulator");
  const app = c.get("app");
  return jwt.sign({ appId: app.meta.appId, uid: c.get("actor").uid, authToken: c.get("authToken").authToken }, clock.now());
}

/** `GET /settings` needs no token: it only names the app's hosts. */
export const clientSettingsRoute = new Hono<Env>().get("/settings", (c) => ok(c, clientSettings(c, addressedApp(c))));

/**
 * Login (`PUT /me`, and the table's `POST admin/users/auth`): the session's device, the user, a jwt, the settings;
 * with profile fields, the user's own profile change (`updateCurrentUserDetails`).
 */
async function login(c: Ctx) {
  const body = await readBody(c);
  await checkBody(body, ME);
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

/** The SDK's promote / demote: the REST plane's scope change for `uid`, answered as `PUT groups/{guid}/members/{uid}`. */
async function setScope(c: Ctx, fixed?: Scope) {
  const app = c.get("app");
  const group = pathGroup(app, c.req.param("guid")!);
  const body = await readBody(c);
  validate(body, { uid: { required: true, type: "string", max: 100 }, scope: { type: "string", in: ["admin", "moderator"] } });
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
export const clientOnly = new Hono<Env>()
  .put("/me", login)
  .post("/admin/users/auth", login)
  // Logout of one session: its token is deleted, as `DELETE users/{uid}/auth_tokens/{authToken}` does.
  .delete("/admin/users/auth/:authToken", (c) => {
    const app = c.get("app");
    const user = c.get("actor");
    const token = app.tokens.get(c.req.param("authToken"));
    if (!token || token.uid !== user.uid) throw apiError("ERR_AUTH_TOKEN_NOT_FOUND", { authToken: maskKey(c.req.param("authToken")), uid: user.uid });
    app.removeToken(token);
    return success(c, `Auth token ${token.authToken} has been deleted successfully.`);
  })
  .get("/me", (c) => ok(c, userView(c.get("actor"), { tags: true })))
  .post("/me/jwt", (c) => ok(c, { token: jwtFor(c) }))
  .delete("/me", (c) => {
    const user = c.get("actor");
    c.get("emulator").realtime.logout(c.get("app"), user, header(c, "resource"));
    return success(c, `The user with UID ${user.uid} has been logged out successfully.`);
  })
  // The SDK's integration analytics after login (SDK and UI-kit versions): acknowledged with its session id, which
  // the SDK keeps so that it reports again only when they change. The emulator keeps it in the journal only.
  .post("/user_sessions", async (c) => {
    const body = await readBody(c);
    validate(body, { sessionId: { required: true, type: "string", max: 255 }, data: { type: "object", maxKb: 8 } });
    return ok(c, { sessionId: body.sessionId });
  })
  .route("/", blockedUsersAt("/blockedusers"))
  .route("/", aiFeatures)
  .route("/", campaignsClient)
  .route("/", clientPush)
  .get("/users/:uid/threads", (c) => threadList(c, (app, viewer) => userConversationId(viewer.uid, requireUser(app, c.req.param("uid")).uid)))
  .get("/groups/:guid/threads", (c) => threadList(c, (app) => groupConversationId(pathGroup(app, c.req.param("guid")).guid)))
  .post("/groups/:guid/members", async (c) => {
    const app = c.get("app");
    const user = c.get("actor");
    const group = pathGroup(app, c.req.param("guid"));
    const body = await readBody(c);
    validate(body, { password: { type: "string", max: 100 } });
    const password = group.type === "password" ? ((body.password as string | undefined) ?? "") : undefined;
    const action = addMember(app, c.get("emulator").clock.now(), group, user, "participant", user, password);
    return ok(c, messageView(app, action, user));
  })
  .put("/groups/:guid/members", addMembers)
  .put("/groups/:guid/promote", (c) => setScope(c))
  .delete("/groups/:guid/demote", (c) => setScope(c, "participant"))
  // Only the owner hands a group over, to a user who is not banned from it (who becomes an admin member).
  .patch("/groups/:guid/owner", async (c) => {
    const app = c.get("app");
    const actor = c.get("actor");
    const group = pathGroup(app, c.req.param("guid"));
    requireVisible(app, group, actor);
    const body = await readBody(c);
    validate(body, { owner: { required: true, type: "string", max: 100 } });
    if (group.owner !== actor.uid) throw apiError("ERR_GROUP_NO_CLEARANCE", { uid: actor.uid, target: "the ownership", guid: group.guid });
    const owner = requireUser(app, body.owner as string);
    if (app.groups.ban(group.guid, owner.uid)) throw apiError("ERR_BANNED_GROUPMEMBER", { uid: owner.uid, guid: group.guid });
    updateGroup(app, c.get("emulator").clock.now(), group, actor, () => {}, owner);
    return success(c, `Ownership transferred to user ${owner.uid} for the group with guid ${group.guid}.`);
  })
  // A message of the token's owner by the client id it was sent with.
  .get("/user/messages/:muid", (c) => {
    const app = c.get("app");
    const user = c.get("actor");
    const m = app.messages.withMuid(user.uid, c.req.param("muid"));
    if (!m) throw apiError("ERR_MESSAGE_ID_NOT_FOUND", { id: c.req.param("muid") });
    return ok(c, messageView(app, pathMessage(app, String(m.id), user), user));
  })
  .delete("/groups/:guid/members", (c) => {
    const app = c.get("app");
    const user = c.get("actor");
    const group = pathGroup(app, c.req.param("guid"));
    removeMember(app, c.get("emulator").clock.now(), group, user, user);
    return success(c, `The user with UID ${user.uid} has left the group ${group.guid}.`);
  });
