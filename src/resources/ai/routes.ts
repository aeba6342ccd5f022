import { onBehalfOf } from "../../http/auth.js";
import type { Ctx } from "../../http/context.js";
import { apiError } from "../../http/errors.js";
import { ok } from "../../http/reply.js";
import { operation, routes } from "../../http/operation.js";
import { q } from "../../http/query-spec.js";
import type { AiFeature } from "../../store/ai-scripts.js";
import type { AppState } from "../../store/app-state.js";
import { groupConversationId, userConversationId } from "../../store/conversation-ids.js";
import type { Json, MessageRecord, UserRecord } from "../../store/types.js";
import { pathGroup } from "../groups/membership.js";
import { visibleTo } from "../../views/access.js";
import { sourceOf, walk } from "../messages/list.js";
import { requireUser } from "../users/lookup.js";

/**
 * The SDK's AI features on the client plane (`ai/conversation-starter|smart-replies|conversation-summary/...`,
 * `ai/bots/{botId}/assistance/...`) for a conversation the token's owner may read (the message list's access
 * rules). No model runs here: answers are computed from the conversation's latest messages, deterministically, or
 * are what a test scripted through the control plane. A feature is on when the app's settings say so (the keys the
 * SDK's `isAIFeatureEnabled` reads); off, it answers ERR_PLAN_RESTRICTION.
 */

/** What the SDK reads from `data` for each feature. */
const ANSWER_KEY: Record<AiFeature, string> = {
  "conversation-starter": "conversation-starter",
  "smart-replies": "smart-replies",
  "conversation-summary": "conversation-summary",
  bots: "bot-reply",
};
const MAX_MESSAGES = 100;
const DEFAULT_MESSAGES = 10;

/** `features.ai.accessible`, `.enabled` and the feature's own two flags, as the SDK's `isAIFeatureEnabled` checks them. */
export function aiFeatureOn(app: AppState, feature: AiFeature): boolean {
  const s = app.management.settings;
  return [`features.ai.accessible`, `features.ai.enabled`, `features.ai.${feature}.accessible`, `features.ai.${feature}.enabled`].every((k) => s[k] === true);
}

interface Conversation {
  viewer: UserRecord;
  conversationId: string;
  /** Who or what the conversation is with, by name. */
  withName: string;
  /** The latest text messages the viewer may see, oldest first. */
  latest: (n: number) => MessageRecord[];
}

function conversationOf(c: Ctx, feature: AiFeature): Conversation {
  const app = c.get("app");
  if (!aiFeatureOn(app, feature)) throw apiError("ERR_PLAN_RESTRICTION", { feature: `ai.${feature}`, appId: app.meta.appId });
  const viewer = onBehalfOf(c, "required");
  const uid = c.req.param("uid");
  const target = uid !== undefined ? requireUser(app, uid) : pathGroup(app, c.req.param("guid")!);
  const conversationId = "uid" in target ? userConversationId(viewer.uid, target.uid) : groupConversationId(target.guid);
  const visible = visibleTo(app, viewer, conversationId);
  const text = (m: MessageRecord) => m.deletedAt === undefined && m.parentId === undefined && typeof m.data.text === "string";
  return {
    viewer,
    conversationId,
    withName: target.name,
    latest: (n) => walk([sourceOf(app, visible)], { affix: "prepend", limit: n }, text),
  };
}

function answer(c: Ctx, feature: AiFeature, conv: Conversation, computed: () => Json) {
  const scripted = c.get("app").aiScripts.answer(conv.conversationId, feature);
  return ok(c, { [ANSWER_KEY[feature]]: scripted ?? computed() });
}

const nameOf = (app: AppState, uid: string) => app.users.get(uid)?.name ?? uid;
const excerpt = (text: string) => (text.length > 60 ? `${text.slice(0, 57)}...` : text);

/** Three openers naming the other party (the conversation's own words play no part in a starter). */
function starters(conv: Conversation): string[] {
  return [`Hi ${conv.withName}!`, `How are you doing today, ${conv.withName}?`, "What are you working on at the moment?"];
}

/** Replies to the latest message someone else wrote: positive, neutral and negative, as the platform keys them. */
function smartReplies(app: AppState, conv: Conversation): Record<string, string> {
  const last = conv.latest(DEFAULT_MESSAGES).findLast((m) => m.sender !== conv.viewer.uid);
  const about = last ? ` "${excerpt(String(last.data.text))}"` : "";
  const who = last ? nameOf(app, last.sender) : conv.withName;
  return { positive: `Sounds great, ${who}!`, neutral: `Noted${about}.`, negative: `Sorry ${who}, I can't right now.` };
}

/** Who said what in the latest messages (`lastNMessages`, default 10, at most 100). */
function summary(app: AppState, conv: Conversation, n: number): string {
  const messages = conv.latest(n);
  if (messages.length === 0) return `No messages with ${conv.withName} yet.`;
  const people = [...new Set(messages.map((m) => nameOf(app, m.sender)))];
  const lines = messages.map((m) => `${nameOf(app, m.sender)}: ${excerpt(String(m.data.text))}`);
  return `${messages.length} message${messages.length === 1 ? "" : "s"} from ${people.join(", ")}. ${lines.join(" ")}`;
}

/** A bot's answer to `question` (declared: required, at most 1000 characters) about the conversation. */
function botReply(c: Ctx, conv: Conversation, question: string): () => string {
  const app = c.get("app");
  const botId = c.req.param("botId")!.toLowerCase();
  if (!app.bots.has(botId)) throw apiError("ERR_BOT_NOT_FOUND", { uid: botId });
  return () => {
    const last = conv.latest(1)[0];
    const context = last ? ` The latest message is from ${nameOf(app, last.sender)}: "${excerpt(String(last.data.text))}"` : " The conversation has no messages yet.";
    return `${nameOf(app, botId)} on "${excerpt(question)}":${context}`;
  };
}

/** The SDK's AI features, for a user's and a group's conversation: SDK-only routes, with no published operation ids. */
export const aiFeatures = routes(
  ...["users/:uid", "groups/:guid"].flatMap((kind) => [
    operation({
      method: "GET",
      path: `/ai/conversation-starter/${kind}`,
      plane: "client",
      handler: (c) => {
        const conv = conversationOf(c, "conversation-starter");
        return answer(c, "conversation-starter", conv, () => starters(conv));
      },
    }),
    operation({
      method: "GET",
      path: `/ai/smart-replies/${kind}`,
      plane: "client",
      handler: (c) => {
        const conv = conversationOf(c, "smart-replies");
        return answer(c, "smart-replies", conv, () => smartReplies(c.get("app"), conv));
      },
    }),
    operation({
      method: "GET",
      path: `/ai/conversation-summary/${kind}`,
      plane: "client",
      query: { lastNMessages: q.int({ def: DEFAULT_MESSAGES, min: 1, max: MAX_MESSAGES }) },
      handler: (c, { query }) => {
        const conv = conversationOf(c, "conversation-summary");
        return answer(c, "conversation-summary", conv, () => summary(c.get("app"), conv, query.lastNMessages));
      },
    }),
    operation({
      method: "GET",
      path: `/ai/bots/:botId/assistance/${kind}`,
      plane: "client",
      query: { question: q.str({ required: true, max: 1000 }) },
      handler: (c, { query }) => {
        const conv = conversationOf(c, "bots");
        return answer(c, "bots", conv, botReply(c, conv, query.question));
      },
    }),
  ]),
);
