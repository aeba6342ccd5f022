/**
 * Writes of every kind of state, for the durability tests: one round per tag `t` (lowercase letters and digits,
 * unique per round) creates its own users, group and messages, then changes each kind of state about them. Each
 * write says how to find its effect in an app's saved data (`GET /_emulator/state`, `Store.toData()`).
 */
import { APP_ID } from "./helpers.js";

export interface WriteRequest {
  method: string;
  /** A REST path (`/v3/...`, with the REST key) or a management one (`/apimgmt/...`, with the management key). */
  path: string;
  body?: unknown;
  onBehalfOf?: string;
}

export interface Write {
  name: string;
  request(ids: Record<string, string>): WriteRequest;
  /** Keeps what later writes of the round refer to (message ids). */
  keep?(body: any, ids: Record<string, string>): void;
  /** Whether `app` (an app's saved data) holds the write's effect. */
  found(app: any, ids: Record<string, string>): boolean;
}

const N = "/v3/notifications";
const message = (app: any, id: string) => app.messages.find((m: any) => String(m.id) === id);

export function round(t: string): Write[] {
  const [a, b, bot, g] = [`${t}a`, `${t}b`, `${t}bot`, `${t}g`];
  const user = (uid: string): Write => ({
    name: `user ${uid}`,
    request: () => ({ method: "POST", path: "/v3/users", body: { uid, name: uid.toUpperCase() } }),
    found: (app) => app.users.some((u: any) => u.uid === uid),
  });
  const send = (key: string, body: object, from: string): Write => ({
    name: `message ${key}`,
    request: () => ({ method: "POST", path: "/v3/messages", body, onBehalfOf: from }),
    keep: (reply, ids) => (ids[key] = String(reply.data.id)),
    found: (app, ids) => message(app, ids[key]) !== undefined,
  });
  return [
    user(a),
    user(b),
    user(bot),
    {
      name: "user update",
      request: () => ({ method: "PUT", path: `/v3/users/${a}`, body: { metadata: { note: `${t}note` } } }),
      found: (app) => app.users.find((u: any) => u.uid === a)?.metadata?.note === `${t}note`,
    },
    {
      name: "group",
      request: () => ({ method: "POST", path: "/v3/groups", body: { guid: g, name: "G", type: "public" }, onBehalfOf: a }),
      found: (app) => app.groups.some((x: any) => x.guid === g),
    },
    {
      name: "member",
      request: () => ({ method: "POST", path: `/v3/groups/${g}/members`, body: { participants: [b] } }),
      found: (app) => app.groups.find((x: any) => x.guid === g)?.members.some((m: any) => m.uid === b),
    },
    send("group", { receiver: g, receiverType: "group", data: { text: `${t} to the group` } }, a),
    send("direct", { receiver: b, receiverType: "user", data: { text: `${t} direct` } }, a),
    {
      name: "edit",
      request: (ids) => ({ method: "PUT", path: `/v3/messages/${ids.direct}`, body: { data: { text: `${t} edited` } }, onBehalfOf: a }),
      found: (app, ids) => message(app, ids.direct)?.data.text === `${t} edited`,
    },
    {
      name: "reaction",
      request: (ids) => ({ method: "POST", path: `/v3/messages/${ids.group}/reactions/${encodeURIComponent("👍")}`, onBehalfOf: b }),
      found: (app, ids) => app.reactions.some((r: any) => String(r.messageId) === ids.group && r.uid === b),
    },
    {
      name: "message pin",
      request: (ids) => ({ method: "POST", path: `/v3/messages/${ids.group}/pin`, onBehalfOf: a }),
      found: (app, ids) => message(app, ids.group)?.pinnedAt !== undefined,
    },
    {
      name: "conversation pin",
      request: () => ({ method: "POST", path: `/v3/users/${b}/conversation/pin`, onBehalfOf: a }),
      found: (app) => app.conversations.some((c: any) => c.uid === a && c.conversationId.includes(b) && c.pinnedAt !== undefined),
    },
    {
      name: "save",
      request: (ids) => ({ method: "POST", path: `/v3/messages/${ids.direct}/save`, onBehalfOf: b }),
      found: (app, ids) => app.savedMessages.some((s: any) => s.uid === b && String(s.messageId) === ids.direct),
    },
    {
      name: "friends",
      request: () => ({ method: "POST", path: `/v3/users/${a}/friends`, body: { accepted: [b] } }),
      found: (app) => app.friends.some((f: any) => JSON.stringify(f).includes(a) && JSON.stringify(f).includes(b)),
    },
    {
      name: "block",
      request: () => ({ method: "POST", path: `/v3/users/${b}/blockedusers`, body: { blockedUids: [bot] } }),
      found: (app) => app.blocks.some((x: any) => JSON.stringify(x).includes(bot)),
    },
    {
      name: "delete",
      request: (ids) => ({ method: "DELETE", path: `/v3/messages/${ids.direct}`, onBehalfOf: a }),
      found: (app, ids) => message(app, ids.direct)?.deletedAt !== undefined,
    },
    {
      name: "role",
      request: () => ({ method: "POST", path: "/v3/roles", body: { role: `${t}role`, name: "R" } }),
      found: (app) => app.roles.some((r: any) => r.role === `${t}role`),
    },
    {
      name: "moderation keywords",
      request: () => ({ method: "POST", path: "/v3/moderation/keywords", body: { id: `${t}kw`, name: "K", searchTerms: [`${t}word`] } }),
      found: (app) => JSON.stringify(app.moderation?.keywordLists ?? []).includes(`${t}word`),
    },
    {
      name: "notification mute",
      request: () => ({ method: "PUT", path: `${N}/v1/preferences/mute?uid=${a}`, body: { conversations: [{ id: g, type: "group" }] } }),
      found: (app) => JSON.stringify(app.notifications?.users ?? []).includes(g),
    },
    {
      // The same user's record again: a field changed in place.
      name: "notification mute again",
      request: () => ({ method: "PUT", path: `${N}/v1/preferences/mute?uid=${a}`, body: { conversations: [{ id: b, type: "oneOnOne" }] } }),
      found: (app) => JSON.stringify(app.notifications?.users ?? []).includes(`"id":"${b}"`),
    },
    {
      name: "bot",
      request: () => ({ method: "POST", path: "/v3/bots", body: { uid: bot, webhookURL: "http://127.0.0.1:9/bot" } }),
      found: (app) => app.bots.some((x: any) => x.uid === bot),
    },
    {
      name: "extension",
      request: () => ({ method: "POST", path: `/apimgmt/apps/${APP_ID}/extensions`, body: { enabled: ["profanity-filter"] } }),
      found: (app) => app.management.extensions["profanity-filter"]?.enabled === true,
    },
    {
      name: "extension settings",
      request: () => ({ method: "POST", path: `/apimgmt/apps/${APP_ID}/extensions/profanity-filter/v1/settings`, body: { settings: { dropMessage: false, badwords: [`${t}bad`] } } }),
      // One value for the app that every round replaces: later rounds overwrite it, so only its presence is
      // checked here (the replay test compares whole states).
      found: (app) => Array.isArray(app.management.extensions["profanity-filter"]?.settings?.badwords),
    },
    {
      name: "app settings",
      request: () => ({ method: "POST", path: `/apimgmt/apps/${APP_ID}/settings`, body: { settings: { [`${t}flag`]: true } } }),
      found: (app) => app.management.settings[`${t}flag`] === true,
    },
    // The campaigns service: records that change in place (a template send's feed item, then its read).
    {
      name: "campaign template",
      request: () => ({ method: "POST", path: "/v3/campaigns/templates", body: { name: `${t} tpl`, templateId: `${t}tpl`, status: "approved", channels: [{ channelType: "in_app", content: { title: "{{x}}" } }, { channelType: "push", content: { title: "{{x}}" } }] } }),
      found: (app) => app.campaigns?.templates?.some((x: any) => x.templateId === `${t}tpl`),
    },
    {
      name: "campaign send",
      request: () => ({ method: "POST", path: "/v3/campaigns/notifications/messages", body: { templateId: `${t}tpl`, receivers: [a] } }),
      found: (app) => app.campaigns?.items?.some((x: any) => x.receiver === a),
    },
    // Not a write: the feed item's and the push's ids, for the receipts after it (each noted, not the whole part).
    {
      name: "campaign feed (its item)",
      request: () => ({ method: "GET", path: "/v3/campaigns/notification-feed?limit=1", onBehalfOf: a }),
      keep: (reply, ids) => (ids.item = reply.data[0].id),
      found: () => true,
    },
    {
      name: "campaign pushes (its push)",
      request: () => ({ method: "GET", path: "/v3/campaigns/push-notifications?limit=1", onBehalfOf: a }),
      keep: (reply, ids) => (ids.push = reply.data[0].id),
      found: () => true,
    },
    {
      name: "campaign feed item delivered",
      request: (ids) => ({ method: "POST", path: `/v3/campaigns/notification-feed/${ids.item}/delivered`, onBehalfOf: a }),
      found: (app, ids) => app.campaigns?.items?.find((x: any) => x.id === ids.item)?.deliveredAt !== undefined && app.campaigns.events.some((x: any) => x.userId === a && x.type === "delivered"),
    },
    {
      name: "campaign feed item engagement",
      request: (ids) => ({ method: "POST", path: `/v3/campaigns/notification-feed/${ids.item}/engagement`, body: { topic: "clicked" }, onBehalfOf: a }),
      found: (app, ids) => app.campaigns?.items?.find((x: any) => x.id === ids.item)?.engagements.length === 1,
    },
    {
      name: "campaign push clicked",
      request: (ids) => ({ method: "PUT", path: `/v3/campaigns/push-notifications/${ids.push}/clicked`, onBehalfOf: a }),
      found: (app, ids) => app.campaigns?.pushes?.find((x: any) => x.id === ids.push)?.clickedAt !== undefined,
    },
    {
      name: "campaign push engagement",
      request: (ids) => ({ method: "POST", path: `/v3/campaigns/push-notifications/${ids.push}/engagement`, body: { topic: "opened" }, onBehalfOf: a }),
      found: (app, ids) => app.campaigns?.pushes?.find((x: any) => x.id === ids.push)?.engagements?.length === 1,
    },
    {
      name: "campaign feed item deleted",
      request: (ids) => ({ method: "DELETE", path: `/v3/campaigns/notification-feed/${ids.item}` }),
      found: (app, ids) => app.campaigns?.items?.find((x: any) => x.id === ids.item)?.deletedAt !== undefined,
    },
    {
      name: "campaign template version",
      request: () => ({ method: "PUT", path: `/v3/campaigns/templates/${t}tpl/channels/in_app`, body: { content: { title: "v2 {{x}}" } } }),
      found: (app) => app.campaigns?.templates?.some((x: any) => x.templateId === `${t}tpl` && x.currentVersion === 2),
    },
    {
      name: "campaign",
      request: () => ({ method: "POST", path: "/v3/campaigns/campaigns", body: { name: `${t} campaign`, templateId: `${t}tpl`, templateVersion: 2 } }),
      keep: (reply, ids) => (ids.campaign = reply.data.id),
      found: (app, ids) => app.campaigns?.campaigns?.some((x: any) => x.id === ids.campaign),
    },
    {
      name: "campaign recipients",
      request: (ids) => ({ method: "POST", path: `/v3/campaigns/campaigns/${ids.campaign}/recipients`, body: { userIds: [a, b] } }),
      found: (app, ids) => app.campaigns?.campaigns?.find((x: any) => x.id === ids.campaign)?.recipients.length === 2,
    },
    {
      name: "campaign sent",
      request: (ids) => ({ method: "POST", path: `/v3/campaigns/campaigns/${ids.campaign}/send` }),
      found: (app, ids) => app.campaigns?.campaigns?.find((x: any) => x.id === ids.campaign)?.status === "completed",
    },
  ];
}
