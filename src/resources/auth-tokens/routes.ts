import { Hono } from "hono";
import type { Ctx, Env } from "../../http/context.js";
import { apiError } from "../../http/errors.js";
import { pageOf } from "../../http/pagination.js";
import { ok, page, success } from "../../http/reply.js";
import { asBool, Query, readBody, validate, type Schema } from "../../http/validate.js";
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

export const authTokens = new Hono<Env>()
  .post("/users/:uid/auth_tokens", async (c) => {
    const user = pathUser(c);
    const body = await readBody(c);
    validate(body, { force: { type: "boolean" }, deviceId: { type: "string", max: 255 }, ...DEVICE });
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
  })

  .get("/users/:uid/auth_tokens", (c) => {
    const user = pathUser(c);
    const q = new Query(c);
    const perPage = q.int("perPage", { def: 100, min: 1, max: 1000 });
    const pageNo = q.int("page", { def: 1, min: 1 });
    q.done();
    const { data, pagination } = pageOf(c.get("app").tokensByUser.get(user.uid) ?? [], perPage, pageNo);
    return page(c, data.map(tokenView), pagination);
  })

  .delete("/users/:uid/auth_tokens", (c) => {
    const user = pathUser(c);
    c.get("app").flushTokens(user.uid);
    return success(c, `Cleared Auth Tokens successfully for uid ${user.uid}.`);
  })

  .get("/users/:uid/auth_tokens/:authToken", (c) => ok(c, tokenView(pathToken(c))))

  .put("/users/:uid/auth_tokens/:authToken", async (c) => {
    const token = pathToken(c);
    const body = await readBody(c);
    validate(body, DEVICE);
    if (typeof body.platform === "string") token.platform = body.platform;
    if (typeof body.userAgent === "string") token.userAgent = body.userAgent;
    if (body.appInfo && typeof body.appInfo === "object") token.appInfo = body.appInfo as JsonObject;
    c.get("app").touchToken(token);
    return ok(c, tokenView(token));
  })

  .delete("/users/:uid/auth_tokens/:authToken", (c) => {
    const token = pathToken(c);
    c.get("app").removeToken(token);
    return success(c, `Auth token ${token.authToken} has been deleted successfully.`);
  });
