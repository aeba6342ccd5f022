import { beforeEach, describe, expect, it } from "vitest";
import { APP_ID, emulator, expectError, MGMT, type CallOptions, type TestEmulator } from "./helpers.js";
import { useSocketServer } from "./realtime.helpers.js";
import { BAD_STATE_CHANGES } from "./seed-cases.js";

/** The client plane's AI features and campaign service (docs/ai-features-and-campaigns.md). */

let e: TestEmulator;
const C = `/${APP_ID}.apiclient-us/v3.0`;
const K = `/_emulator/apps/${APP_ID}`;

async function as(uid: string) {
  const token = (await e.post(`/v3/users/${uid}/auth_tokens`, {})).body.data.authToken as string;
  const opts = (o: CallOptions = {}): CallOptions => ({ ...o, key: null, headers: { appid: APP_ID, authtoken: token, ...o.headers } });
  return {
    get: (path: string) => e.get(C + path, opts()),
    post: (path: string, body?: unknown) => e.post(C + path, body, opts()),
    put: (path: string, body?: unknown) => e.put(C + path, body, opts()),
  };
}
const control = (method: string, path: string, body?: unknown) => e.call(method, K + path, { key: null, body });
const say = (from: string, to: string, text: string, receiverType = "user") =>
  e.post("/v3/messages", { receiver: to, receiverType, data: { text } }, { onBehalfOf: from });
const settings = (values: Record<string, boolean>) => e.call("POST", `/apimgmt/apps/${APP_ID}/settings`, { key: null, headers: { ...MGMT }, body: { settings: values } });

beforeEach(async () => {
  e = await emulator();
});

describe("AI features on the client plane", () => {
  it("answers each feature from the conversation by default, deterministically", async () => {
    const a = await as("superhero1");
    await e.post("/v3/users", { uid: "buddy", name: "Buddy" });
    expect((await a.get("/ai/conversation-summary/users/buddy")).body.data["conversation-summary"]).toBe("No messages with Buddy yet.");
    await say("superhero1", "buddy", "Lunch at noon?");
    await say("buddy", "superhero1", "Sure, see you at the usual place");
    const starter = await a.get("/ai/conversation-starter/users/buddy");
    expect(starter.status).toBe(200);
    expect(starter.body.data["conversation-starter"]).toEqual(["Hi Buddy!", "How are you doing today, Buddy?", "What are you working on at the moment?"]);
    const replies = (await a.get("/ai/smart-replies/users/buddy")).body.data["smart-replies"];
    expect(replies).toEqual({ positive: "Sounds great, Buddy!", neutral: 'Noted "Sure, see you at the usual place".', negative: "Sorry Buddy, I can't right now." });
    const summary = (await a.get("/ai/conversation-summary/users/buddy")).body.data["conversation-summary"];
    expect(summary).toBe("2 messages from Iron Man, Buddy. Iron Man: Lunch at noon? Buddy: Sure, see you at the usual place");
    expect((await a.get("/ai/conversation-summary/users/buddy?lastNMessages=1")).body.data["conversation-summary"]).toMatch(/^1 message from Buddy\./);
    // The same conversation answers the same way.
    expect((await a.get("/ai/smart-replies/users/buddy")).body.data["smart-replies"]).toEqual(replies);
    // Groups: the group's name, its members' messages.
    await say("superhero3", "supergroup", "Team sync tomorrow", "group");
    const g = await a.get("/ai/conversation-summary/groups/supergroup");
    expect(g.body.data["conversation-summary"]).toContain("Spiderman: Team sync tomorrow");
    expect((await a.get("/ai/conversation-starter/groups/supergroup")).body.data["conversation-starter"][0]).toBe("Hi Comic Heros' Hangout!");
  });

  it("asks a bot about the conversation; unknown bots, missing or long questions fail", async () => {
    const a = await as("superhero1");
    await e.post("/v3/bots", { uid: "superhero5", webhookURL: "https://example.com/bot" });
    await say("superhero2", "superhero1", "Where is the report?");
    const r = await a.get("/ai/bots/superhero5/assistance/users/superhero2?question=What%20is%20pending%3F");
    expect(r.status).toBe(200);
    expect(r.body.data["bot-reply"]).toBe('Cyclops on "What is pending?": The latest message is from Captain America: "Where is the report?"');
    expectError(await a.get("/ai/bots/superhero4/assistance/users/superhero2?question=x"), 404, "ERR_BOT_NOT_FOUND");
    expectError(await a.get("/ai/bots/superhero5/assistance/users/superhero2"), 400, "ERR_BAD_REQUEST");
    expectError(await a.get(`/ai/bots/superhero5/assistance/users/superhero2?question=${"q".repeat(1001)}`), 400, "ERR_BAD_REQUEST");
  });

  it("follows the message list's access rules and limits", async () => {
    const a = await as("superhero1");
    expectError(await a.get("/ai/smart-replies/users/nobody"), 404, "ERR_UID_NOT_FOUND");
    expectError(await a.get("/ai/smart-replies/groups/nogroup"), 404, "ERR_GUID_NOT_FOUND");
    await e.post("/v3/groups", { guid: "private-talk", name: "Private", type: "private" }, { onBehalfOf: "superhero2" });
    expectError(await a.get("/ai/conversation-summary/groups/private-talk"), 403, "ERR_GROUP_NOT_JOINED");
    expectError(await a.get("/ai/conversation-summary/users/superhero2?lastNMessages=101"), 400, "ERR_BAD_REQUEST");
    expectError(await e.get(`${C}/ai/smart-replies/users/superhero2`, { key: null, headers: { appid: APP_ID } }), 401, "AUTH_ERR_EMPTY_AUTH_TOKEN");
  });

  it("answers ERR_PLAN_RESTRICTION when the app's settings switch a feature off, as the SDK's flags read them", async () => {
    const a = await as("superhero1");
    const flags = (await a.get("/settings")).body.data.parameters;
    expect(flags).toMatchObject({ "features.ai.accessible": true, "features.ai.enabled": true, "features.ai.smart-replies.enabled": true });
    expect((await settings({ "features.ai.smart-replies.enabled": false })).status).toBe(200);
    expect((await a.get("/settings")).body.data.parameters["features.ai.smart-replies.enabled"]).toBe(false);
    expectError(await a.get("/ai/smart-replies/users/superhero2"), 403, "ERR_PLAN_RESTRICTION");
    expect((await a.get("/ai/conversation-starter/users/superhero2")).status).toBe(200);
    await settings({ "features.ai.enabled": false });
    expectError(await a.get("/ai/conversation-starter/groups/supergroup"), 403, "ERR_PLAN_RESTRICTION");
    expectError(await a.get("/ai/bots/superhero5/assistance/users/superhero2?question=x"), 403, "ERR_PLAN_RESTRICTION");
  });

  it("answers what a test scripted through the control plane, per app or per conversation", async () => {
    const a = await as("superhero1");
    const app = await control("PUT", "/ai", { answers: { "smart-replies": { positive: "Yes!", neutral: "Maybe", negative: "No" }, "conversation-starter": ["Scripted hello"] } });
    expect(app.status).toBe(200);
    expect(app.body.scope).toBe("*");
    const one = await control("PUT", "/ai", { between: ["superhero1", "superhero3"], answers: { "conversation-summary": "Scripted summary" } });
    expect(one.body.scope).toBe("superhero1_user_superhero3");
    expect((await control("PUT", "/ai", { guid: "supergroup", answers: { "conversation-starter": ["Group hello"] } })).body.scope).toBe("group_supergroup");
    expect((await a.get("/ai/smart-replies/users/superhero2")).body.data["smart-replies"]).toEqual({ positive: "Yes!", neutral: "Maybe", negative: "No" });
    expect((await a.get("/ai/conversation-starter/users/superhero2")).body.data["conversation-starter"]).toEqual(["Scripted hello"]);
    expect((await a.get("/ai/conversation-starter/groups/supergroup")).body.data["conversation-starter"]).toEqual(["Group hello"]);
    expect((await a.get("/ai/conversation-summary/users/superhero3")).body.data["conversation-summary"]).toBe("Scripted summary");
    expect((await a.get("/ai/conversation-summary/users/superhero2")).body.data["conversation-summary"]).not.toBe("Scripted summary");
    expect(Object.keys((await control("GET", "/ai")).body.scripts)).toEqual(["*", "superhero1_user_superhero3", "group_supergroup"]);
    expect((await control("DELETE", "/ai")).body).toEqual({ cleared: true });
    expect((await a.get("/ai/conversation-starter/users/superhero2")).body.data["conversation-starter"]).toHaveLength(3);
    // Bad scripts change nothing.
    expectError(await control("PUT", "/ai", { answers: { translate: "x" } }), 400, "ERR_BAD_REQUEST");
    expectError(await control("PUT", "/ai", { answers: { "conversation-starter": "not a list" } }), 400, "ERR_BAD_REQUEST");
    expectError(await control("PUT", "/ai", { answers: { "smart-replies": { positive: 1 } } }), 400, "ERR_BAD_REQUEST");
    expectError(await control("PUT", "/ai", { between: ["superhero1", "nobody"], answers: {} }), 400, "ERR_BAD_REQUEST");
    expectError(await e.call("PUT", "/_emulator/apps/nope/ai", { key: null, body: { answers: {} } }), 404, "ERR_APP_NOT_FOUND");
    expect((await control("GET", "/ai")).body.scripts).toEqual({});
  });
});

describe("campaigns on the client plane", () => {
  const feed = (receivers: string[], extra: Record<string, unknown> = {}) =>
    control("POST", "/notification-feed", { receivers, content: { title: "Sale", body: "50% off" }, ...extra });

  it("lists a user's feed newest first with the SDK's filters and cursor; items, unread count, delivered and read", async () => {
    const a = await as("superhero1");
    const b = await as("superhero2");
    e.clock.freeze(1_700_000_000_000);
    const made = await feed(["superhero1", "superhero2"], { templateCategory: "promotions", tags: ["sale"] });
    expect(made.status).toBe(201);
    const [mine, theirs] = made.body.items;
    e.clock.advance(60);
    await feed(["superhero1"], { templateCategory: "updates", tags: ["news"], channelId: "inbox" });
    e.clock.advance(60);
    await feed(["superhero1"], { templateCategory: "updates" });
    const all = await a.get("/campaigns/notification-feed?limit=2");
    expect(all.status).toBe(200);
    expect(all.body.data.map((i: any) => i.templateCategory)).toEqual(["updates", "updates"]);
    expect(all.body.data[0]).toMatchObject({ receiver: "superhero1", receiverType: "user", sender: "server", content: { title: "Sale" }, readAt: null, deliveredAt: null });
    const next = all.body.meta.next;
    expect(next).toEqual({ sentAt: all.body.data[1].sentAt, id: all.body.data[1].id, affix: "append" });
    const older = await a.get(`/campaigns/notification-feed?limit=2&sentAt=${next.sentAt}&id=${next.id}&affix=append`);
    expect(older.body.data.map((i: any) => i.id)).toEqual([mine.id]);
    expect(older.body.meta.next).toBeUndefined();
    expect((await a.get(`/campaigns/notification-feed?id=${mine.id}&affix=prepend&limit=1`)).body.data.map((i: any) => i.templateCategory)).toEqual(["updates"]);
    expectError(await a.get(`/campaigns/notification-feed?id=${theirs.id}`), 400, "ERR_BAD_REQUEST");
    expectError(await a.get("/campaigns/notification-feed?affix=sideways"), 400, "ERR_BAD_REQUEST");
    expect((await a.get("/campaigns/notification-feed?templateCategory=promotions")).body.data.map((i: any) => i.id)).toEqual([mine.id]);
    expect((await a.get("/campaigns/notification-feed?tags=news,sale&tagMatch=any")).body.data).toHaveLength(2);
    expect((await a.get("/campaigns/notification-feed?channelId=inbox")).body.data).toHaveLength(1);
    expect((await a.get(`/campaigns/notification-feed?dateTo=${1_700_000_000}`)).body.data.map((i: any) => i.id)).toEqual([mine.id]);
    expect((await a.get("/campaigns/notification-feed/unread-count")).body.data).toEqual({ count: 3 });
    const delivered = await a.post(`/campaigns/notification-feed/${mine.id}/delivered`, {});
    expect(delivered.body.data).toMatchObject({ id: mine.id, deliveredAt: 1_700_000_120, readAt: null });
    const read = await a.post(`/campaigns/notification-feed/${mine.id}/read`, {});
    expect(read.body.data).toMatchObject({ deliveredAt: 1_700_000_120, readAt: 1_700_000_120 });
    expect((await a.get("/campaigns/notification-feed/unread-count")).body.data).toEqual({ count: 2 });
    expect((await a.get("/campaigns/notification-feed/unread-count?templateCategory=updates")).body.data).toEqual({ count: 2 });
    expect((await a.get("/campaigns/notification-feed?readState=read")).body.data.map((i: any) => i.id)).toEqual([mine.id]);
    expect((await a.get("/campaigns/notification-feed?readState=unread")).body.data).toHaveLength(2);
    expect((await a.get(`/campaigns/notification-feed/${mine.id}`)).body.data.readAt).toBe(1_700_000_120);
    // Read state is per user; another user's item is unknown.
    expect((await b.get(`/campaigns/notification-feed/${theirs.id}`)).body.data.readAt).toBeNull();
    expectError(await b.get(`/campaigns/notification-feed/${mine.id}`), 404, "FEED_ITEM_NOT_FOUND");
    expectError(await b.post(`/campaigns/notification-feed/${mine.id}/read`, {}), 404, "FEED_ITEM_NOT_FOUND");
    expectError(await a.get("/campaigns/notification-feed?limit=101"), 400, "ERR_BAD_REQUEST");
    expectError(await a.get("/campaigns/notification-feed?readState=some"), 400, "ERR_BAD_REQUEST");
    // An item dated in the past takes its place by sentAt.
    const dated = (await feed(["superhero1"], { sentAt: 1_600_000_000 })).body.items[0];
    expect((await a.get("/campaigns/notification-feed?limit=100")).body.data.at(-1).id).toBe(dated.id);
  });

  it("records engagements, and campaign pushes delivered and clicked", async () => {
    const a = await as("superhero1");
    const item = (await feed(["superhero1"])).body.items[0];
    const engaged = await a.post(`/campaigns/notification-feed/${item.id}/engagement`, { topic: "cta_click" });
    expect(engaged.body.data).toMatchObject({ feedItemId: item.id, topic: "cta_click", engagedAt: expect.any(Number) });
    expectError(await a.post(`/campaigns/notification-feed/${item.id}/engagement`, {}), 400, "ERR_BAD_REQUEST");
    // The campaigns service's file: at most 64 letters, digits, _ and -.
    expectError(await a.post(`/campaigns/notification-feed/${item.id}/engagement`, { topic: "x".repeat(65) }), 400, "ERR_BAD_REQUEST");
    expectError(await a.post(`/campaigns/notification-feed/${item.id}/engagement`, { topic: "two words" }), 400, "ERR_BAD_REQUEST");
    const seen = await control("GET", "/notification-feed?uid=superhero1");
    expect(seen.body.items[0].engagements).toEqual([{ topic: "cta_click", at: engaged.body.data.engagedAt }]);
    const push = (await control("POST", "/push-notifications", { receiver: "superhero1", campaignId: "spring" })).body.pushNotification;
    expect(push).toMatchObject({ id: expect.any(String), campaignId: "spring", source: "campaign", deliveredAt: null, clickedAt: null });
    expect((await a.put(`/campaigns/push-notifications/${push.id}/delivered`, {})).body.data.deliveredAt).toEqual(expect.any(Number));
    const clicked = await a.put(`/campaigns/push-notifications/${push.id}/clicked`, {});
    expect(clicked.body.data.clickedAt).toEqual(expect.any(Number));
    expect((await control("GET", `/push-notifications/${push.id}`)).body.pushNotification.clickedAt).toBe(clicked.body.data.clickedAt);
    const b = await as("superhero2");
    expectError(await b.put(`/campaigns/push-notifications/${push.id}/clicked`, {}), 404, "PUSH_NOTIFICATION_NOT_FOUND");
    expectError(await a.put("/campaigns/push-notifications/push_999/delivered", {}), 404, "PUSH_NOTIFICATION_NOT_FOUND");
  });

  it("lists template categories by name with the SDK's cursor", async () => {
    const a = await as("superhero1");
    expect((await a.get("/campaigns/templates/categories")).body.data).toEqual([]);
    for (const name of ["updates", "alerts", "promotions"]) expect((await control("POST", "/template-categories", { name, label: name.toUpperCase() })).status).toBe(201);
    expectError(await control("POST", "/template-categories", { name: "alerts" }), 400, "ERR_BAD_REQUEST");
    expectError(await control("POST", "/template-categories", { name: "bad name" }), 400, "ERR_BAD_REQUEST");
    const first = await a.get("/campaigns/templates/categories?limit=2");
    expect(first.body.data.map((c: any) => [c.name, c.label])).toEqual([["alerts", "ALERTS"], ["promotions", "PROMOTIONS"]]);
    const rest = await a.get(`/campaigns/templates/categories?limit=2&cursor=${encodeURIComponent(JSON.stringify(first.body.meta.next))}`);
    expect(rest.body.data.map((c: any) => c.name)).toEqual(["updates"]);
    expect(rest.body.meta.next).toBeUndefined();
    expectError(await a.get("/campaigns/templates/categories?cursor=nope"), 400, "ERR_BAD_REQUEST");
    expectError(await a.get("/campaigns/templates/categories?limit=0"), 400, "ERR_BAD_REQUEST");
  });

  it("refuses bad feed items and unknown receivers, creating nothing", async () => {
    expectError(await feed([]), 400, "ERR_BAD_REQUEST");
    expectError(await feed(["superhero1", "nobody"]), 400, "ERR_BAD_REQUEST");
    expectError(await control("POST", "/notification-feed", { receivers: ["superhero1"] }), 400, "ERR_BAD_REQUEST");
    expectError(await control("POST", "/notification-feed", { receivers: ["superhero1"], content: { big: "x".repeat(17_000) } }), 400, "ERR_BAD_REQUEST");
    expect((await control("GET", "/notification-feed?uid=superhero1")).body.items).toEqual([]);
    expectError(await control("POST", "/push-notifications", { receiver: "nobody" }), 400, "ERR_BAD_REQUEST");
  });
});

describe("campaigns: part of the app's state", () => {
  it("round-trips feed items, pushes and categories through /_emulator/state and snapshots; a bad entry is refused with its path", async () => {
    const a = await as("superhero1");
    const item = (await control("POST", "/notification-feed", { receivers: ["superhero1"], content: { title: "Kept" }, tags: ["t"] })).body.items[0];
    await a.post(`/campaigns/notification-feed/${item.id}/read`, {});
    const push = (await control("POST", "/push-notifications", { receiver: "superhero1" })).body.pushNotification;
    await control("POST", "/template-categories", { name: "kept" });
    expect((await e.post("/_emulator/snapshots/campaigns", undefined, { key: null })).status).toBe(201);
    const state = (await e.get("/_emulator/state", { key: null })).body;
    expect(state.apps[0].campaigns).toMatchObject({ items: [{ id: item.id, readAt: expect.any(Number) }], pushes: [{ id: push.id }], categories: [{ name: "kept" }] });
    await e.post("/_emulator/reset", undefined, { key: null });
    expect((await (await as("superhero1")).get("/campaigns/notification-feed")).body.data).toEqual([]);
    expect((await e.put("/_emulator/state", state, { key: null })).status).toBe(200);
    const b = await as("superhero1");
    expect((await b.get(`/campaigns/notification-feed/${item.id}`)).body.data).toMatchObject({ content: { title: "Kept" }, readAt: expect.any(Number) });
    expect((await b.get("/campaigns/templates/categories")).body.data.map((c: any) => c.name)).toEqual(["kept"]);
    // Ids continue after the loaded ones.
    const next = (await control("POST", "/notification-feed", { receivers: ["superhero1"], content: {} })).body.items[0];
    expect(next.id).not.toBe(item.id);
    await e.post("/_emulator/reset", undefined, { key: null });
    expect((await e.post("/_emulator/snapshots/campaigns/restore", undefined, { key: null })).status).toBe(200);
    expect((await (await as("superhero1")).put(`/campaigns/push-notifications/${push.id}/clicked`, {})).body.data.clickedAt).toEqual(expect.any(Number));
    const bad = structuredClone(state);
    BAD_STATE_CHANGES.campaignTime.change(bad);
    const refused = await e.put("/_emulator/state", bad, { key: null });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain(BAD_STATE_CHANGES.campaignTime.error);
  });
});

describe("campaigns: realtime", () => {
  const { url, connect } = useSocketServer();
  it("sends a notification_feed_item frame to the receiver's sessions only", async () => {
    const a = await connect("superhero1");
    const b = await connect("superhero2");
    const r = await fetch(`${url()}/_emulator/apps/${APP_ID}/notification-feed`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ receivers: ["superhero1"], content: { title: "Hello" } }),
    });
    expect(r.status).toBe(201);
    const frame = await a.next((f) => f.type === "notification_feed_item");
    expect(frame.body).toMatchObject({ action: "sent", feedItem: { receiver: "superhero1", content: { title: "Hello" }, readAt: null } });
    expect(b.frames.filter((f) => f.type === "notification_feed_item")).toEqual([]);
  });
});
