import type { Ctx } from "../../http/context.js";
import { apiError, badRequest } from "../../http/errors.js";
import { normalizeUid } from "../../http/auth.js";
import { PAGE_QUERY, pageMatching } from "../../http/pagination.js";
import { ok, page, success } from "../../http/reply.js";
import { asBool, requireCredentials } from "../../http/validate.js";
import type { Schema } from "../../http/schema.js";
import { operation, routes } from "../../http/operation.js";
import { q } from "../../http/query-spec.js";
import { isAgentic } from "../../store/agents.js";
import { GROUP_CHAT_SETTINGS, type BotRecord, type GroupChatSetting } from "../../store/types.js";
import { requireUser } from "../users/lookup.js";
import { sendMessage } from "../messages/routes.js";
import { SEND_FIELDS } from "../messages/send.js";

/** The specification's limit of bot users per app. */
export const BOTS_PER_APP = 25;

const FIELDS: Schema = {
  webhookURL: { type: "string", max: 255, url: "called" },
  groupChatSetting: { type: "string", in: GROUP_CHAT_SETTINGS },
  enabled: { type: "boolean" },
  useBasicAuth: { type: "boolean" },
  username: { type: "string", max: 50 },
  password: { type: "string", max: 50 },
};

/** A bot as the API shows it: properties whose value is empty or false are left out (as the platform does). */
export function botView(b: BotRecord): Record<string, unknown> {
  const out: Record<string, unknown> = { uid: b.uid, webhookURL: b.webhookURL, groupChatSetting: b.groupChatSetting };
  if (b.enabled) out.enabled = true;
  if (b.useBasicAuth) out.useBasicAuth = true;
  if (b.username) out.username = b.username;
  if (b.password) out.password = b.password;
  out.createdAt = b.createdAt;
  if (b.updatedAt !== undefined) out.updatedAt = b.updatedAt;
  return out;
}

/** The bot addressed by the path's `uid`: ERR_BOT_NOT_FOUND for users that are not bots (AI agents included). */
export function pathBot(c: Ctx): BotRecord {
  const uid = normalizeUid(c.req.param("uid")!);
  const bot = c.get("app").bots.get(uid);
  if (!bot || !c.get("app").activeUser(uid)) throw apiError("ERR_BOT_NOT_FOUND", { uid });
  return bot;
}


/**
 * The Bots REST API (`/bots`, documented by the live docs with no published operation ids) and Send Bot Message
 * (`POST /bots/{uid}/messages`).
 */
export const bots = routes(
  operation({
    method: "POST",
    path: "/bots",
    plane: "rest",
    body: { uid: { required: true, type: "string", max: 50 }, ...FIELDS, webhookURL: { ...FIELDS.webhookURL, required: true } },
    handler: (c, { body }) => {
      const app = c.get("app");
      const user = requireUser(app, body.uid as string);
      // AI agents are not managed by the bots API (reference/ai-agents.md §2.1).
      if (isAgentic(app, user.uid)) throw badRequest({ uid: ["The uid belongs to an AI agent, which the bots API does not manage."] });
      if (app.bots.has(user.uid)) throw apiError("ERR_BOT_ALREADY_EXISTS", { uid: user.uid });
      if (app.bots.size >= BOTS_PER_APP)
        throw apiError("ERR_PLAN_QUOTA_RESTRICTION", { what: `The app ${app.meta.appId} has reached the limit of ${BOTS_PER_APP} bot users.` });
      const bot: BotRecord = {
        uid: user.uid,
        webhookURL: body.webhookURL as string,
        groupChatSetting: (body.groupChatSetting as GroupChatSetting | undefined) ?? "none",
        enabled: body.enabled !== undefined && asBool(body.enabled),
        useBasicAuth: body.useBasicAuth !== undefined && asBool(body.useBasicAuth),
        createdAt: c.get("emulator").clock.now(),
      };
      // Credentials are kept only when basic auth is on at creation.
      if (bot.useBasicAuth) for (const k of ["username", "password"] as const) if (typeof body[k] === "string") bot[k] = body[k] as string;
      requireCredentials(bot);
      app.bots.set(bot.uid, bot);
      return ok(c, botView(bot));
    },
  }),

  operation({
    method: "GET",
    path: "/bots",
    plane: "rest",
    query: { searchKey: q.str(), isAIBot: q.bool(), ...PAGE_QUERY },
    handler: (c, { query }) => {
      const searchKey = query.searchKey?.toLowerCase();
      const app = c.get("app");
      // Bots made through this API are standard bots; AI bots are made by the dashboard, which the emulator has not.
      const listed = query.isAIBot ? [] : [...app.bots.values()].filter((b) => app.activeUser(b.uid)).sort((a, b) => (a.uid < b.uid ? -1 : 1));
      const result = pageMatching(listed, searchKey ? (b) => b.uid.startsWith(searchKey) : undefined, query.perPage, query.page);
      return page(c, result.items.map(botView), result.pagination);
    },
  }),

  operation({ method: "GET", path: "/bots/:uid", plane: "rest", handler: (c) => ok(c, botView(pathBot(c))) }),

  operation({
    method: "PUT",
    path: "/bots/:uid",
    plane: "rest",
    body: FIELDS,
    handler: (c, { body }) => {
      const bot = pathBot(c);
      const next: BotRecord = { ...bot };
      for (const k of ["webhookURL", "username", "password"] as const) if (typeof body[k] === "string") next[k] = body[k] as string;
      if (typeof body.groupChatSetting === "string") next.groupChatSetting = body.groupChatSetting as GroupChatSetting;
      for (const k of ["enabled", "useBasicAuth"] as const) if (body[k] !== undefined && body[k] !== null) next[k] = asBool(body[k]);
      requireCredentials(next);
      next.updatedAt = c.get("emulator").clock.now();
      Object.assign(bot, next);
      return ok(c, botView(bot));
    },
  }),

  operation({
    method: "DELETE",
    path: "/bots/:uid",
    plane: "rest",
    handler: (c) => {
      const bot = pathBot(c);
      c.get("app").bots.delete(bot.uid);
      return success(c, `The bot with UID ${bot.uid} has been deleted.`);
    },
  }),

  // The send-message body, read and checked by the send-message operation's own code (resources/messages).
  operation({
    id: "send-bot-message",
    method: "POST",
    path: "/bots/:uid/messages",
    plane: "rest",
    body: "raw",
    rawFields: SEND_FIELDS,
    handler: (c) => sendMessage(c, c.get("app").activeUser(pathBot(c).uid)),
  }),
);
