import type { Ctx } from "../../http/context.js";
import { apiError } from "../../http/errors.js";
import { PAGE_QUERY, pageOf } from "../../http/pagination.js";
import { ok, page, success } from "../../http/reply.js";
import { asBool } from "../../http/validate.js";
import type { Schema } from "../../http/schema.js";
import { operation, routes } from "../../http/operation.js";
import type { AuthTokenRecord, JsonObject } from "../../store/types.js";
import { pathUser } from "../users/lookup.js";
import { mintToken, tokenView } from "./tokens.js";

const DEVICE: Schema = {
  platform: { type: "string", max: 255 },
  userAgent: { type: "string", max: 1000 },
  appInfo: { type: "object", maxKb: 5 },
};

function pathToken(c: Ctx): AuthTokenRecord {
  const user = pathUser(c);
  const authToken = c.req.param("authToken")!;
  const token = c.get("app").tokens.get(authToken);
  if (!token || token.uid !== user.uid) throw apiError("ERR_AUTH_TOKEN_NOT_FOUND", { authToken, uid: user.uid });
  return token;
}

export const authTokens = routes(
  operation({
    id: "create-authtoken",
    method: "POST",
    path: "/users/:uid/auth_tokens",
    plane: "rest",
    body: { force: { type: "boolean" }, deviceId: { type: "string", max: 255 }, ...DEVICE },
    handler: (c, { body }) => {
      const user = pathUser(c);
      const existing = c.get("app").tokensByUser.get(user.uid);
      // Without `force` the newest existing token is handed out again, as the platform does.
      if (!asBool(body.force) && existing?.length) return ok(c, tokenView(existing[existing.length - 1]));
      const token = mintToken(c.get("app"), user.uid, c.get("emulator").clock.now(), {
        platform: body.platform as string | undefined,
        userAgent: body.userAgent as string | undefined,
        deviceId: body.deviceId as string | undefined,
        appInfo: body.appInfo as JsonObject | undefined,
      });
      return ok(c, tokenView(token));
    },
  }),

  operation({
    id: "list-authtokens",
    method: "GET",
    path: "/users/:uid/auth_tokens",
    plane: "rest",
    query: PAGE_QUERY,
    handler: (c, { query }) => {
      const user = pathUser(c);
      const { data, pagination } = pageOf(c.get("app").tokensByUser.get(user.uid) ?? [], query.perPage, query.page);
      return page(c, data.map(tokenView), pagination);
    },
  }),

  operation({
    id: "flush-authtokens",
    method: "DELETE",
    path: "/users/:uid/auth_tokens",
    plane: "rest",
    handler: (c) => {
      const user = pathUser(c);
      c.get("app").flushTokens(user.uid);
      return success(c, `Cleared Auth Tokens successfully for uid ${user.uid}.`);
    },
  }),

  operation({
    id: "get-authtoken",
    method: "GET",
    path: "/users/:uid/auth_tokens/:authToken",
    plane: "rest",
    handler: (c) => ok(c, tokenView(pathToken(c))),
  }),

  operation({
    id: "update-authtoken",
    method: "PUT",
    path: "/users/:uid/auth_tokens/:authToken",
    plane: "rest",
    body: DEVICE,
    handler: (c, { body }) => {
      const token = pathToken(c);
      if (typeof body.platform === "string") token.platform = body.platform;
      if (typeof body.userAgent === "string") token.userAgent = body.userAgent;
      if (body.appInfo && typeof body.appInfo === "object") token.appInfo = body.appInfo as JsonObject;
      c.get("app").touchToken(token);
      return ok(c, tokenView(token));
    },
  }),

  operation({
    id: "delete-authtoken",
    method: "DELETE",
    path: "/users/:uid/auth_tokens/:authToken",
    plane: "rest",
    handler: (c) => {
      const token = pathToken(c);
      c.get("app").removeToken(token);
      return success(c, `Auth token ${token.authToken} has been deleted successfully.`);
    },
  }),
);
