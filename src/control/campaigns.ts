import { Hono } from "hono";
import type { Ctx, Env } from "../http/context.js";
import { apiError, badRequest } from "../http/errors.js";
import { readBody, validate } from "../http/validate.js";
import type { AppState } from "../store/app-state.js";
import { AI_FEATURES, type AiAnswers } from "../store/ai-scripts.js";
import { MAX_CATEGORIES, type FeedItemRecord } from "../store/campaigns.js";
import { groupConversationId, userConversationId } from "../store/conversation-ids.js";
import type { Json, JsonObject } from "../store/types.js";
import { FEED_ITEM_SENT } from "../realtime/delivery.js";
import { categoryView, feedItemView, pushView } from "../resources/campaigns/views.js";

/**
 * Control-plane routes that feed the client plane's AI features and campaign service (docs/ai-features-and-campaigns.md):
 * scripted AI answers per app or conversation, notification feed items, campaign pushes and template categories.
 * They sit behind the control guard like every `/_emulator` route; bodies are bounded by `readBody`.
 */

const ID = /^[A-Za-z0-9_-]+$/;

function controlApp(c: Ctx): AppState {
  const appId = c.req.param("appId")!.toLowerCase();
  const app = c.get("emulator").store.apps.get(appId);
  if (!app) throw apiError("ERR_APP_NOT_FOUND", { appId });
  return app;
}

function activeUid(app: AppState, uid: unknown, field: string): string {
  const user = typeof uid === "string" ? app.activeUser(uid.toLowerCase()) : undefined;
  if (!user) throw badRequest({ [field]: [`The user ${String(uid)} does not exist.`] });
  return user.uid;
}

/** The scope of scripted answers: the app (`*`), or the conversation of `between` two users or of a `guid`. */
function scopeOf(app: AppState, body: Record<string, unknown>): string {
  if (body.guid !== undefined) {
    const guid = String(body.guid).toLowerCase();
    if (!app.groups.get(guid)) throw badRequest({ guid: [`The group ${guid} does not exist.`] });
    return groupConversationId(guid);
  }
  if (body.between !== undefined) {
    const pair = body.between as unknown[];
    return userConversationId(activeUid(app, pair[0], "between.0"), activeUid(app, pair[1], "between.1"));
  }
  return "*";
}

const SCOPE = {
  guid: { type: "string", max: 100 },
  between: { type: "array", minItems: 2, max: 2, items: { required: true, type: "string", max: 100 } },
} as const;

export const controlAiAndCampaigns = new Hono<Env>()
  // Scripted AI answers: `{answers: {"smart-replies": {...}, ...}}`, app-wide or for one conversation.
  .put("/apps/:appId/ai", async (c) => {
    const app = controlApp(c);
    const body = await readBody(c);
    validate(body, { ...SCOPE, answers: { required: true, type: "object", maxKb: 16 } });
    const answers = body.answers as Record<string, Json>;
    validate(Object.fromEntries(Object.entries(answers).map(([k, v]) => [`answers.${k}`, v])), {
      "answers.conversation-starter": { type: "array", max: 20, items: { required: true, type: "string", max: 1000 } },
      "answers.smart-replies": { type: "object" },
      "answers.conversation-summary": { type: "string", max: 10_000 },
      "answers.bots": { type: "string", max: 10_000 },
    });
    const unknown = Object.keys(answers).filter((k) => !(AI_FEATURES as readonly string[]).includes(k));
    if (unknown.length > 0) throw badRequest(Object.fromEntries(unknown.map((k) => [`answers.${k}`, [`The answers.${k} field is not an AI feature.`]])));
    const replies = answers["smart-replies"] as JsonObject | undefined;
    if (replies && !Object.values(replies).every((v) => typeof v === "string"))
      throw badRequest({ "answers.smart-replies": ["The answers.smart-replies must map keys to strings."] });
    const scope = scopeOf(app, body);
    app.aiScripts.set(scope, answers as AiAnswers);
    return c.json({ scope, answers: app.aiScripts.list()[scope] });
  })
  .get("/apps/:appId/ai", (c) => c.json({ scripts: controlApp(c).aiScripts.list() }))
  .delete("/apps/:appId/ai", (c) => {
    controlApp(c).aiScripts.clear();
    return c.json({ cleared: true });
  })

  // A feed item for each receiver, as a campaign's in-app delivery would make it (and its realtime frame).
  .post("/apps/:appId/notification-feed", async (c) => {
    const app = controlApp(c);
    const body = await readBody(c, 64 * 1024);
    validate(body, {
      receivers: { required: true, type: "array", minItems: 1, max: 100, items: { required: true, type: "string", max: 100 } },
      templateCategory: { type: "string", max: 100 },
      content: { required: true, type: "object", maxKb: 16 },
      metadata: { type: "object", maxKb: 4 },
      tags: { type: "array", max: 25, items: { required: true, type: "string", max: 100 } },
      channelId: { type: "string", max: 100 },
      sentAt: { type: "integer" },
    });
    const receivers = (body.receivers as string[]).map((uid, i) => activeUid(app, uid, `receivers.${i}`));
    const now = c.get("emulator").clock.now();
    const items = receivers.map((receiver) => {
      const item: FeedItemRecord = {
        id: app.campaigns.nextId("feed"),
        receiver,
        templateCategory: (body.templateCategory as string | undefined) ?? "general",
        content: body.content as JsonObject,
        metadata: (body.metadata as JsonObject | undefined) ?? {},
        tags: (body.tags as string[] | undefined) ?? [],
        sentAt: (body.sentAt as number | undefined) ?? now,
        engagements: [],
      };
      if (typeof body.channelId === "string") item.channelId = body.channelId;
      app.campaigns.addItem(item);
      app.emit(FEED_ITEM_SENT, () => ({ feedItem: feedItemView(item) }));
      return item;
    });
    c.get("emulator").store.changed();
    return c.json({ items: items.map((item) => feedItemView(item)) }, 201);
  })
  // One user's items with what they did (delivered, read, engagements), for assertions.
  .get("/apps/:appId/notification-feed", (c) => {
    const app = controlApp(c);
    const uid = activeUid(app, c.req.query("uid"), "uid");
    return c.json({ items: app.campaigns.feedOf(uid).map((item) => ({ ...feedItemView(item), engagements: item.engagements })) });
  })

  .post("/apps/:appId/push-notifications", async (c) => {
    const app = controlApp(c);
    const body = await readBody(c);
    validate(body, { receiver: { required: true, type: "string", max: 100 }, announcementId: { type: "string", max: 100 }, campaignId: { type: "string", max: 100 } });
    const id = app.campaigns.nextId("push");
    const p = {
      id,
      receiver: activeUid(app, body.receiver, "receiver"),
      announcementId: (body.announcementId as string | undefined) ?? id,
      campaignId: (body.campaignId as string | undefined) ?? null,
      sentAt: c.get("emulator").clock.now(),
    };
    app.campaigns.addPush(p);
    c.get("emulator").store.changed();
    return c.json({ pushNotification: pushView(p) }, 201);
  })
  .get("/apps/:appId/push-notifications/:id", (c) => {
    const p = controlApp(c).campaigns.pushes.get(c.req.param("id"));
    if (!p) throw apiError("PUSH_NOTIFICATION_NOT_FOUND", { id: c.req.param("id") });
    return c.json({ pushNotification: pushView(p) });
  })

  .post("/apps/:appId/template-categories", async (c) => {
    const app = controlApp(c);
    const body = await readBody(c);
    validate(body, {
      name: { required: true, type: "string", max: 100, pattern: ID, patternMessage: "The name may only contain letters, numbers, dashes and underscores." },
      label: { type: "string", max: 100 },
    });
    const name = body.name as string;
    const { categories } = app.campaigns;
    if ([...categories.values()].some((cat) => cat.name === name)) throw badRequest({ name: [`The category ${name} already exists.`] });
    if (categories.size >= MAX_CATEGORIES) throw badRequest({ name: [`An app has at most ${MAX_CATEGORIES} template categories.`] });
    const now = c.get("emulator").clock.now();
    const cat = { id: app.campaigns.nextId("category"), name, label: (body.label as string | undefined) ?? name, createdAt: now, updatedAt: now };
    categories.set(cat.id, cat);
    app.campaigns.touch();
    c.get("emulator").store.changed();
    return c.json({ category: categoryView(cat) }, 201);
  });
