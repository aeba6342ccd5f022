import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APP_ID, REST_KEY } from "./helpers.js";
import { connected, SdkSite } from "./sdk-browser.helpers.js";

/**
 * The unmodified SDK's own AI and campaign calls in Chromium against the emulator (`--https`): what its methods
 * return is what the emulator answered, a feed item made through the control plane reaches its listener, and so does
 * one a scheduled campaign of the campaigns service sends when the clock is moved, whose read and click the
 * service's analytics then count.
 */

let site: SdkSite;
let page: Page;

async function call(path: string, body: unknown, headers: Record<string, string> = { apikey: REST_KEY }, method = "POST") {
  const res = await site.emu.app.request(`http://localhost${path}`, { method, headers: { ...headers, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return (text ? JSON.parse(text) : undefined) as any;
}

beforeAll(async () => {
  site = await SdkSite.start("@cometchat/chat-sdk-javascript");
  for (const [uid, name] of [["alice", "Alice"], ["bob", "Bob"]]) await call("/v3/users", { uid, name });
  await call("/v3/messages", { receiver: "alice", receiverType: "user", data: { text: "Are we still on for Friday?" } }, { apikey: REST_KEY, onbehalfof: "bob" });
  page = await site.open([]);
  const token = (await call("/v3/users/alice/auth_tokens", {})).data.authToken;
  await page.evaluate(async (token) => {
    const w = window as any;
    w.feed = [];
    w.CometChat.addNotificationFeedListener("test", { onFeedItemReceived: (item: any) => w.feed.push(JSON.parse(JSON.stringify(item))) });
    await w.CometChat.login(token);
  }, token);
  await connected(page);
});

afterAll(async () => {
  await site?.close();
});

describe("the SDK's AI features and campaigns against the emulator", () => {
  it("returns the emulator's answers from its AI methods, and reads the feature flags", async () => {
    const got = await page.evaluate(async () => {
      const C = (window as any).CometChat;
      return {
        enabled: await C.isAIFeatureEnabled("smart-replies"),
        starter: await C.getConversationStarter("bob", C.RECEIVER_TYPE.USER),
        replies: await C.getSmartReplies("bob", C.RECEIVER_TYPE.USER),
        summary: await C.getConversationSummary("bob", C.RECEIVER_TYPE.USER),
      };
    });
    expect(got.enabled).toBe(true);
    expect(got.starter).toEqual(["Hi Bob!", "How are you doing today, Bob?", "What are you working on at the moment?"]);
    expect(got.replies).toEqual({ positive: "Sounds great, Bob!", neutral: 'Noted "Are we still on for Friday?".', negative: "Sorry Bob, I can't right now." });
    expect(got.summary).toBe("1 message from Bob. Bob: Are we still on for Friday?");
    expect(site.problems).toEqual([]);
  });

  it("lists, counts and marks feed items, and hears a new one", async () => {
    const made = await call(`/_emulator/apps/${APP_ID}/notification-feed`, { receivers: ["alice"], templateCategory: "promotions", content: { title: "Sale" } }, {});
    expect(made.items).toHaveLength(1);
    await page.waitForFunction(() => (window as any).feed.length === 1);
    const got = await page.evaluate(async () => {
      const w = window as any;
      const C = w.CometChat;
      const items = await new C.NotificationFeedRequestBuilder().setLimit(10).build().fetchNext();
      const before = await C.getNotificationFeedUnreadCount();
      await C.markFeedItemAsRead(items[0]);
      const after = await C.getNotificationFeedUnreadCount();
      const item = await C.getNotificationFeedItem(items[0].getId());
      return { heard: w.feed[0], ids: items.map((i: any) => i.getId()), category: items[0].getCategory(), before, after, readAt: item.getReadAt() };
    });
    expect(got.heard).toMatchObject({ id: made.items[0].id, content: { title: "Sale" } });
    expect(got).toMatchObject({ ids: [made.items[0].id], category: "promotions", before: { count: 1 }, after: { count: 0 }, readAt: expect.any(Number) });
    expect(site.problems).toEqual([]);
  });

  it("hears a scheduled campaign's item when the clock reaches it, reads and clicks it, and analytics count it", async () => {
    const B = `/${APP_ID}.api-us/v3/campaigns`;
    const now = Math.floor(Date.now() / 1000);
    await call("/_emulator/clock", { mode: "frozen", now }, {}, "PUT");
    await call(`${B}/templates/categories`, { name: "launches" });
    const t = (await call(`${B}/templates`, { name: "Launch", templateCategory: "launches", channels: [{ channelType: "in_app", content: { title: "Draft" } }] })).data;
    await call(`${B}/templates/${t.id}/channels/in_app`, { content: { title: "{{name}}, it is here" } }, { apikey: REST_KEY }, "PUT");
    await call(`${B}/templates/${t.id}`, { status: "approved" }, { apikey: REST_KEY }, "PUT");
    await call(`${B}/channels`, { name: "Inbox", type: "in_app", enabled: true });
    const cam = (await call(`${B}/campaigns`, { name: "Launch day", templateId: t.id, templateVersion: 2 })).data;
    const up = (await call(`${B}/campaigns/${cam.id}/recipients/upload-url`, undefined)).data;
    await site.emu.app.request(up.uploadUrl, { method: "PUT", headers: { "content-type": "text/csv" }, body: "uid,name\nalice,Alice\nbob,Bob\n" });
    expect((await call(`${B}/campaigns/${cam.id}/import-csv`, { s3Key: up.s3Key })).data.acceptedRows).toBe(2);
    await call(`${B}/campaigns/${cam.id}/schedule`, { scheduledAt: now + 60 });
    const heardBefore = await page.evaluate(() => (window as any).feed.length);
    await call("/_emulator/clock", { mode: "frozen", now: now + 60 }, {}, "PUT");
    await page.waitForFunction((n) => (window as any).feed.length === n + 1, heardBefore);
    const got = await page.evaluate(async () => {
      const w = window as any;
      const C = w.CometChat;
      const heard = w.feed.at(-1);
      const items = await new C.NotificationFeedRequestBuilder().setLimit(10).setCategory("launches").build().fetchNext();
      await C.markFeedItemAsRead(items[0]);
      await C.reportFeedEngagement(items[0], "clicked");
      return { heard, content: items[0].getContent(), count: items.length };
    });
    expect(got).toMatchObject({ heard: { content: { title: "Alice, it is here" } }, content: { title: "Alice, it is here" }, count: 1 });
    const analytics = (await call(`${B}/analytics/campaigns/${cam.id}`, undefined, { apikey: REST_KEY }, "GET")).data.totals;
    expect(analytics).toMatchObject({ sent: 2, viewed: 1, clicked: 1, delivered: 1 });
    expect(site.problems).toEqual([]);
  });
});
