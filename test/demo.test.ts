import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { demoState, type DemoOptions } from "../src/demo/generate.js";
import { writeDemo } from "../src/demo/write.js";
import { emulator } from "./helpers.js";

/** Demo data: generated, deterministic, and loaded through the normal state loading like any state file. */

const OPTIONS: DemoOptions = { users: 120, groups: 30, messages: 6000, seed: 7, days: 14, until: 1_790_000_000 };

async function streamed(options: DemoOptions): Promise<string> {
  const out = new PassThrough();
  let text = "";
  out.on("data", (d: Buffer) => (text += d.toString()));
  await writeDemo(out, options);
  return text;
}

describe("demo data", () => {
  it("is the same for the same options, different for another seed, and the streamed file equals the in-memory state", async () => {
    const small = { ...OPTIONS, messages: 2000 };
    const a = await streamed(small);
    expect(await streamed(small)).toBe(a);
    expect(await streamed({ ...small, seed: 8 })).not.toBe(a);
    expect(JSON.parse(a)).toEqual(JSON.parse(JSON.stringify(demoState(small))));
  });

  it("loads as the emulator's state: named users with avatars, groups of every type and size, one-on-one and group conversations, threads, reactions, edits, deletes, receipts, unread counts and calls", async () => {
    const doc = demoState(OPTIONS);
    const e = await emulator({ seed: doc });
    const [app] = doc.apps as unknown as { app: { appId: string }; apiKeys: { apiKey: string }[] }[];
    const key = app.apiKeys[0].apiKey;
    const rest = `/${app.app.appId}.api-us/v3`;
    const get = (path: string, onBehalfOf?: string) => e.get(`${rest}${path}`, { key, onBehalfOf });

    const users = await get("/users?perPage=100");
    expect(users.status).toBe(200);
    expect(users.body.meta.pagination.total).toBe(120);
    for (const u of users.body.data) {
      expect(u.name).toMatch(/^\S+ \S+/);
      expect(u.avatar).toMatch(/^data:image\/svg\+xml,/);
    }

    const groups = (await get("/groups?perPage=100")).body.data as { type: string; membersCount: number }[];
    expect(groups).toHaveLength(30);
    expect(new Set(groups.map((g) => g.type))).toEqual(new Set(["public", "private", "password"]));
    const sizes = groups.map((g) => g.membersCount);
    expect(Math.min(...sizes)).toBeLessThanOrEqual(6);
    expect(Math.max(...sizes)).toBeGreaterThan(20);

    const stored = e.store.apps.get(app.app.appId)!.toData();
    expect(stored.messages).toHaveLength(6000);
    const byId = new Map(stored.messages.map((m) => [m.id, m]));
    const replies = stored.messages.filter((m) => m.parentId !== undefined);
    expect(replies.length).toBeGreaterThan(20);
    for (const r of replies) expect(byId.get(r.parentId!)!.replyCount).toBeGreaterThan(0);
    const counted = stored.messages.reduce((n, m) => n + (m.replyCount ?? 0), 0);
    expect(counted).toBe(replies.length);
    expect(stored.messages.filter((m) => m.editedAt !== undefined).length).toBeGreaterThan(20);
    expect(stored.messages.filter((m) => m.deletedAt !== undefined).length).toBeGreaterThan(20);
    expect(new Set(stored.messages.map((m) => m.type))).toEqual(new Set(["text", "image", "location", "audio", "video"]));
    expect(stored.reactions.length).toBeGreaterThan(200);
    expect(stored.conversations.length).toBeGreaterThan(100);
    // Times spread over the past days, up to `until`.
    const times = stored.messages.map((m) => m.sentAt);
    expect(Math.min(...times)).toBeGreaterThanOrEqual(OPTIONS.until - 14 * 86_400);
    expect(Math.max(...times)).toBeLessThanOrEqual(OPTIONS.until);

    // Some conversations have unread messages; who sent the last one has read it.
    const someone = stored.conversations.find((s) => s.readId !== s.deliveredId)!;
    const conversation = await get(`/conversations/${someone.conversationId}`, someone.uid);
    expect(conversation.status).toBe(200);
    expect(Number(conversation.body.data.unreadMessageCount)).toBeGreaterThan(0);

    // One-on-one and group conversations; a one-on-one's last message carries its receiver's receipts.
    const perUser = new Map<string, number>();
    for (const state of stored.conversations) perUser.set(state.uid, (perUser.get(state.uid) ?? 0) + 1);
    const busiest = [...perUser].sort((a, b) => b[1] - a[1])[0][0];
    const listed = await get("/conversations?perPage=1000", busiest);
    expect(listed.status).toBe(200);
    type Listed = { conversationType: string; lastMessage?: { receipts: { data: { receiptType: string; readAt?: number; deliveredAt?: number }[] } } };
    const mine = listed.body.data as Listed[];
    expect(new Set(mine.map((c) => c.conversationType))).toEqual(new Set(["user", "group"]));
    const receipts = mine.filter((c) => c.conversationType === "user").flatMap((c) => c.lastMessage?.receipts.data ?? []);
    expect(receipts.some((r) => r.receiptType === "delivery" && typeof r.deliveredAt === "number")).toBe(true);
    expect(receipts.some((r) => r.receiptType === "read" && typeof r.readAt === "number")).toBe(true);

    const calls = await e.get(`/${app.app.appId}.call-us/v3/calls?perPage=100`, { key });
    expect(calls.status).toBe(200);
    const statuses = new Set((calls.body.data as { status: string }[]).map((k) => k.status));
    expect(statuses.has("ended")).toBe(true);
    expect(statuses.size).toBeGreaterThan(1);
    const callDays = new Set(stored.calls.map((k) => Math.floor((OPTIONS.until - k.initiatedAt) / 86_400)));
    expect(Math.min(...callDays)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...callDays)).toBeLessThan(14);
    expect(callDays.size).toBeGreaterThan(3);
  });

  it("makes no messages when nobody can talk, and a small app without groups", async () => {
    const doc = demoState({ ...OPTIONS, users: 2, groups: 0, messages: 50 });
    const e = await emulator({ seed: doc });
    const stored = [...e.store.apps.values()][0].toData();
    expect(stored.users).toHaveLength(2);
    expect(stored.messages).toHaveLength(50);
    expect(new Set(stored.messages.map((m) => m.conversationId)).size).toBe(1);
  });
});
