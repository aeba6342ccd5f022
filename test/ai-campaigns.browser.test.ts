import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APP_ID, REST_KEY } from "./helpers.js";
import { connected, SdkSite } from "./sdk-browser.helpers.js";

/**
 * The unmodified SDK's own AI and campaign calls in Chromium against the emulator (`--https`): what its methods
 * return is what the emulator answered, and a feed item made through the control plane reaches its listener.
 */

let site: SdkSite;
let page: Page;

async function call(path: string, body: unknown, headers: Record<string, string> = { apikey: REST_KEY }) {
  const res = await site.emu.app.request(`http://localhost${path}`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(body) });
  return (await res.json()) as any;
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
});
