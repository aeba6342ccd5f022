import { beforeEach, describe, expect, it } from "vitest";
import { emulator, expectError, type TestEmulator } from "./helpers.js";

let e: TestEmulator;
let t = 2_000_000_000;
beforeEach(async () => {
  e = await emulator();
  t = 2_000_000_000;
  e.clock.freeze(t * 1000);
});

const as = (onBehalfOf: string) => ({ onBehalfOf });
const tick = () => e.clock.freeze(++t * 1000);
const text = async (receiver: string, body: string, onBehalfOf?: string, receiverType = "user") =>
  (await e.post("/v3/messages", { receiver, receiverType, data: { text: body } }, { onBehalfOf })).body.data;
const reply = async (parentId: string, body: string, onBehalfOf: string) => {
  tick();
  return (await e.post(`/v3/messages/${parentId}/thread`, { data: { text: body } }, as(onBehalfOf))).body.data;
};

describe("GET /threads", () => {
  it("lists the threads a user sees, most recently active first, with replyCount and lastReply", async () => {
    const a = await text("supergroup", "topic A", "superhero1", "group");
    const b = await text("superhero2", "topic B", "superhero1");
    const hidden = await text("superhero3", "not for superhero2", "superhero1");
    await reply(a.id, "a1", "superhero2");
    await reply(b.id, "b1", "superhero2");
    await reply(a.id, "a2 <@uid:superhero2>", "superhero3");
    await reply(hidden.id, "h1", "superhero3");
    const r = await e.get("/v3/threads", as("superhero2"));
    expect(r.status).toBe(200);
    expect(r.body.data.map((m: any) => m.data.text)).toEqual(["topic A", "topic B"]);
    expect(r.body.data[0]).toMatchObject({ id: a.id, replyCount: 2, threadSubscribed: true, lastReply: { data: { text: "a2 <@uid:superhero2>" }, editedAt: null, editedBy: "", readAt: null, deletedAt: null } });
    expect(r.body.meta).toEqual({ current: { limit: 100, count: 2 }, next: { affix: "append", updatedAt: t - 2 } });
    // Without onBehalfOf: every thread of the app.
    expect((await e.get("/v3/threads")).body.data).toHaveLength(3);
  });

  it("pages by the updatedAt cursor and filters participatedByMe; counts unread replies and mentions", async () => {
    const parents = [];
    for (let i = 0; i < 3; i++) parents.push(await text("supergroup", `p${i}`, "superhero1", "group"));
    for (const p of parents) await reply(p.id, `r-${p.data.text}`, "superhero3");
    const first = await e.get("/v3/threads?limit=2", as("superhero1"));
    expect(first.body.data.map((m: any) => m.data.text)).toEqual(["p2", "p1"]);
    const next = await e.get(`/v3/threads?limit=2&affix=append&updatedAt=${first.body.meta.next.updatedAt}`, as("superhero1"));
    expect(next.body.data.map((m: any) => m.data.text)).toEqual(["p0"]);
    const newer = await e.get(`/v3/threads?affix=prepend&updatedAt=${next.body.meta.next.updatedAt}`, as("superhero1"));
    expect(newer.body.data.map((m: any) => m.data.text)).toEqual(["p2", "p1"]);

    await reply(parents[0].id, "hey <@uid:superhero2>", "superhero1");
    const mine = await e.get("/v3/threads?participatedByMe=true&withUnreadReplyCount=true&withMentionCount=true", as("superhero2"));
    expect(mine.body.data).toEqual([]);
    const counted = await e.get("/v3/threads?withUnreadReplyCount=true&withMentionCount=true", as("superhero2"));
    expect(counted.body.data[0]).toMatchObject({ data: { text: "p0" }, unreadReplyCount: 2, unreadMentionCount: 1 });
    expectError(await e.get("/v3/threads?participatedByMe=true"), 400, "ERR_BAD_REQUEST");
    expectError(await e.get("/v3/threads?limit=1001"), 400, "ERR_BAD_REQUEST");
    expectError(await e.get("/v3/threads?affix=sideways"), 400, "ERR_BAD_REQUEST");
  });
});

describe("thread subscriptions", () => {
  it("subscribes and unsubscribes idempotently; taking part subscribes again; withThreadSubscribed shows it", async () => {
    const p = await text("supergroup", "parent", "superhero1", "group");
    const sub = await e.post(`/v3/messages/${p.id}/thread/subscription`, undefined, as("superhero2"));
    expect(sub.status).toBe(200);
    expect(sub.body).toEqual({ data: { success: true } });
    expect((await e.post(`/v3/messages/${p.id}/thread/subscription`, undefined, as("superhero2"))).body).toEqual({ data: { success: true } });
    const flagged = async (uid: string) =>
      (await e.get("/v3/groups/supergroup/messages?withThreadSubscribed=true", as(uid))).body.data.find((m: any) => m.id === p.id).threadSubscribed;
    expect(await flagged("superhero2")).toBe(true);
    expect(await flagged("superhero1")).toBe(false);
    expect((await e.del(`/v3/messages/${p.id}/thread/subscription`, undefined, as("superhero2"))).body).toEqual({ data: { success: true } });
    expect((await e.del(`/v3/messages/${p.id}/thread/subscription`, undefined, as("superhero2"))).status).toBe(200);
    expect(await flagged("superhero2")).toBe(false);
    await reply(p.id, "me too", "superhero2");
    expect(await flagged("superhero2")).toBe(true);
    expect(await flagged("superhero1")).toBe(true); // the parent's sender, when the thread started
    expect((await e.get("/v3/groups/supergroup/messages", as("superhero2"))).body.data.at(-1)).not.toHaveProperty("threadSubscribed");
  });

  it("needs onBehalfOf, a parent the user sees, and not a reply", async () => {
    const p = await text("superhero2", "dm", "superhero1");
    expectError(await e.post(`/v3/messages/${p.id}/thread/subscription`), 400, "ERR_BAD_REQUEST");
    expectError(await e.post(`/v3/messages/${p.id}/thread/subscription`, undefined, as("superhero3")), 403, "ERR_MESSAGE_NO_ACCESS");
    const r = await reply(p.id, "r", "superhero2");
    expectError(await e.del(`/v3/messages/${r.id}/thread/subscription`, undefined, as("superhero2")), 400, "ERR_MESSAGE_THREAD_NESTING");
    expectError(await e.post("/v3/messages/424242/thread/subscription", undefined, as("superhero2")), 404, "ERR_MESSAGE_ID_NOT_FOUND");
  });
});

describe("GET /messages/{id}/thread cursor", () => {
  it("pages with limit (default 10), id and affix instead of perPage/page", async () => {
    const p = await text("supergroup", "parent", "superhero1", "group");
    for (let i = 0; i < 12; i++) await reply(p.id, `r${i}`, "superhero2");
    const first = await e.get(`/v3/messages/${p.id}/thread`, as("superhero1"));
    expect(first.body.data).toHaveLength(10);
    expect(first.body.meta.current).toEqual({ limit: 10, count: 10 });
    expect(first.body.meta.next).toMatchObject({ affix: "append", id: first.body.data[9].id });
    const rest = await e.get(`/v3/messages/${p.id}/thread?id=${first.body.meta.next.id}&affix=append&limit=5`, as("superhero1"));
    expect(rest.body.data.map((m: any) => m.data.text)).toEqual(["r10", "r11"]);
    expectError(await e.get(`/v3/messages/${p.id}/thread?limit=0`), 400, "ERR_BAD_REQUEST");
  });
});
