import { beforeEach, describe, expect, it } from "vitest";
import { ReadCache } from "../src/store/read-cache.js";
import { emulator, expectError, type TestEmulator } from "./helpers.js";

// Reads of one user, group or message reuse their serialized answer while nothing changes (store/read-cache.ts).
// What matters to a user: a read after any change shows the change, and each viewer sees their own answer.

let e: TestEmulator;
let id: string;
beforeEach(async () => {
  e = await emulator();
  e.clock.freeze(2_000_000_000_000);
  id = (await e.post("/v3/messages", { receiver: "supergroup", receiverType: "group", data: { text: "cached?" } }, { onBehalfOf: "superhero1" })).body.data.id;
});

const as = (onBehalfOf: string) => ({ onBehalfOf });

describe("the read cache", () => {
  it("answers a repeated read of a user, a group and a message the same, and keeps one text per record", async () => {
    for (const path of ["/v3/users/superhero1", "/v3/groups/supergroup", `/v3/messages/${id}`]) {
      const first = await e.get(path);
      const again = await e.get(path);
      expect(first.status).toBe(200);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      expect(again.headers.get("content-type")).toBe("application/json");
    }
    expect(e.store.reads.size).toBe(3);
    expectError(await e.get("/v3/users/nobody"), 404, "ERR_UID_NOT_FOUND");
    expect(e.store.reads.size).toBe(0); // a request that was no cached read ends by dropping them all
  });

  it("shows every change made by a request: an update, a reaction, an edit, a deletion", async () => {
    expect((await e.get("/v3/users/superhero1")).body.data.name).toBe("Iron Man");
    await e.put("/v3/users/superhero1", { name: "Tony" });
    expect((await e.get("/v3/users/superhero1")).body.data.name).toBe("Tony");

    expect((await e.get("/v3/groups/supergroup")).body.data).not.toHaveProperty("description");
    await e.put("/v3/groups/supergroup", { description: "renamed" });
    expect((await e.get("/v3/groups/supergroup")).body.data.description).toBe("renamed");

    expect((await e.get(`/v3/messages/${id}`)).body.data.data).not.toHaveProperty("reactions");
    await e.post(`/v3/messages/${id}/reactions/${encodeURIComponent("👍")}`, undefined, as("superhero2"));
    expect((await e.get(`/v3/messages/${id}`)).body.data.data.reactions).toEqual([{ reaction: "👍", count: 1 }]);
    await e.put(`/v3/messages/${id}`, { data: { text: "edited" } }, as("superhero1"));
    expect((await e.get(`/v3/messages/${id}`)).body.data.data.text).toBe("edited");
    // The sender's name inside the message follows the user.
    await e.put("/v3/users/superhero1", { name: "Stark" });
    expect((await e.get(`/v3/messages/${id}`)).body.data.data.entities.sender.entity.name).toBe("Stark");
    await e.del("/v3/users/superhero3", { permanent: true });
    expectError(await e.get("/v3/users/superhero3"), 404, "ERR_UID_NOT_FOUND");
  });

  it("gives each viewer their own answer", async () => {
    await e.post(`/v3/messages/${id}/save`, undefined, as("superhero2"));
    for (let round = 0; round < 2; round++) {
      expect((await e.get(`/v3/messages/${id}`, as("superhero2"))).body.data.savedAt).toBe(2_000_000_000);
      expect((await e.get(`/v3/messages/${id}`, as("superhero1"))).body.data).not.toHaveProperty("savedAt");
      expect((await e.get(`/v3/messages/${id}`)).body.data).not.toHaveProperty("savedAt");
      expect((await e.get("/v3/users/superhero2", as("superhero1"))).body.data.conversationId).toBe("superhero1_user_superhero2");
      expect((await e.get("/v3/users/superhero2")).body.data).not.toHaveProperty("conversationId");
    }
  });

  it("shows changes made outside the platform planes: a reset, a restored snapshot", async () => {
    await e.post("/v3/users", { uid: "temp", name: "Temp" });
    expect((await e.get("/v3/users/temp")).status).toBe(200);
    expect((await e.post("/_emulator/reset", {}, { key: null })).status).toBe(200);
    expectError(await e.get("/v3/users/temp"), 404, "ERR_UID_NOT_FOUND");

    expect((await e.post("/_emulator/snapshots/before", undefined, { key: null })).status).toBe(201);
    await e.put("/v3/users/superhero1", { name: "Changed" });
    expect((await e.get("/v3/users/superhero1")).body.data.name).toBe("Changed");
    expect((await e.post("/_emulator/snapshots/before/restore", {}, { key: null })).status).toBe(200);
    expect((await e.get("/v3/users/superhero1")).body.data.name).toBe("Iron Man");
  });

  it("keeps nothing while another request is in flight (a write may be between its change and its end)", async () => {
    expect((await e.post("/_emulator/rules", { match: { method: "POST" }, effect: { latencyMs: 150 } }, { key: null })).status).toBe(201);
    const write = e.post("/v3/messages", { receiver: "superhero2", receiverType: "user", data: { text: "slow" } }, as("superhero1"));
    await new Promise((r) => setTimeout(r, 20));
    expect((await e.get("/v3/users/superhero1")).status).toBe(200);
    expect(e.store.reads.size).toBe(0);
    expect((await write).status).toBe(200);
    expect((await e.get("/v3/users/superhero1")).status).toBe(200);
    expect(e.store.reads.size).toBe(1);
  });

  it("reuses each conversation of a page and shows every change: a message, a read, a rename, a pin, a block", async () => {
    await e.post("/v3/messages", { receiver: "superhero2", receiverType: "user", data: { text: "hi" } }, as("superhero1"));
    const list = async (query = "") => {
      const r = await e.get(`/v3/conversations${query}`, as("superhero1"));
      expect(r.status).toBe(200);
      return r.body as { data: Record<string, any>[]; meta: { pagination: Record<string, number> } };
    };
    const first = await list();
    expect(first.data.map((c) => c.conversationId)).toEqual(["superhero1_user_superhero2", "group_supergroup"]);
    expect(await list()).toEqual(first);
    expect(e.store.reads.size).toBe(2); // one text per conversation
    // Another page reuses them under its own meta.
    const second = await list("?perPage=1&page=2");
    expect(second.data).toEqual([first.data[1]]);
    expect(second.meta.pagination).toMatchObject({ total: 2, per_page: 1, current_page: 2 });
    expect((await e.get("/v3/conversations", as("superhero2"))).body.data.map((c: { conversationId: string }) => c.conversationId)).toEqual([
      "superhero1_user_superhero2",
      "group_supergroup",
    ]);

    await e.post("/v3/groups/supergroup/conversation/read", { messageId: Number(id) }, as("superhero1"));
    await e.post("/v3/messages", { receiver: "supergroup", receiverType: "group", data: { text: "newer" } }, as("superhero2"));
    let now = await list();
    expect(now.data[0]).toMatchObject({ conversationId: "group_supergroup", unreadMessageCount: "1", lastMessage: { data: { text: "newer" } } });
    await e.put("/v3/users/superhero2", { name: "Captain" });
    now = await list();
    expect(now.data[1].conversationWith.name).toBe("Captain");
    await e.post("/v3/users/superhero2/conversation/pin", undefined, as("superhero1"));
    expect((await list()).data[0]).toMatchObject({ conversationId: "superhero1_user_superhero2", pinnedBy: "superhero1" });
    // The view options are part of the key: with and without the blocked flags, read in turn.
    await e.post("/v3/users/superhero1/blockedusers", { blockedUids: ["superhero2"] });
    for (let round = 0; round < 2; round++) {
      expect((await list("?includeBlockedUsers=true&withBlockedInfo=true")).data[0].conversationWith.blockedByMe).toBe(true);
      expect((await list("?includeBlockedUsers=true")).data[0].conversationWith).not.toHaveProperty("blockedByMe");
    }
    expect((await list()).data.map((c) => c.conversationId)).toEqual(["group_supergroup"]);
  });

  it("reuses each user of a page the app reads itself, apart from its single read and its tagged entry, and shows a change", async () => {
    type Page = { data: Record<string, any>[]; meta: { pagination: Record<string, number> }; cursor: Record<string, unknown> };
    const list = async (query = "") => {
      const r = await e.get(`/v3/users${query}`);
      expect(r.status).toBe(200);
      return r.body as Page;
    };
    const named = (p: Page, uid: string) => p.data.find((u) => u.uid === uid)!;
    const first = await list();
    expect(Object.keys(first)).toEqual(["data", "meta", "cursor"]); // as `page` answers it
    expect(first.cursor).toMatchObject({ affix: "prepend" });
    expect(await list()).toEqual(first);
    expect(e.store.reads.size).toBe(first.data.length); // one text per user
    expect((await list("?perPage=1&page=2")).data).toEqual([first.data[1]]);
    // withTags is part of the key: with and without, read in turn.
    for (let round = 0; round < 2; round++) {
      expect(named(await list("?withTags=true"), "superhero3")).toHaveProperty("tags");
      expect(named(await list(), "superhero3")).not.toHaveProperty("tags");
    }
    // The single read keeps its own text: a list always shows updatedAt, a user never updated shows none alone.
    expect(named(first, "superhero3")).toHaveProperty("updatedAt");
    expect((await e.get("/v3/users/superhero3")).body.data).not.toHaveProperty("updatedAt");
    // Read on behalf of a user, each entry carries that user's fields.
    const theirs = (await e.get("/v3/users", as("superhero1"))).body as Page;
    expect(named(theirs, "superhero2").conversationId).toBe("superhero1_user_superhero2");
    expect(named(await list(), "superhero2")).not.toHaveProperty("conversationId");
    await e.put("/v3/users/superhero3", { name: "Thor" });
    expect(named(await list(), "superhero3").name).toBe("Thor");
  });

  it("journals a cached answer like any other", async () => {
    await e.get("/v3/groups/supergroup");
    await e.get("/v3/groups/supergroup");
    const journal = (await e.get("/_emulator/requests?method=GET&path=/v3/groups/supergroup")).body.requests as { responseBody: unknown }[];
    expect(journal).toHaveLength(2);
    expect(journal[0].responseBody).toEqual(journal[1].responseBody);
    expect(journal[0].responseBody).toMatchObject({ data: { guid: "supergroup" } });
  });
});

describe("ReadCache", () => {
  it("keeps at most 1,024 records, dropping the oldest first", () => {
    const cache = new ReadCache();
    cache.begin();
    const records = Array.from({ length: 1100 }, () => ({}));
    for (const [i, r] of records.entries()) cache.text(r, undefined, () => `t${i}`);
    expect(cache.size).toBe(1024);
    expect(cache.text(records[1099], undefined, () => "rebuilt")).toBe("t1099");
    expect(cache.text(records[0], undefined, () => "rebuilt")).toBe("rebuilt");
  });

  it("drops everything when a request that was not a cached read ends, or on a change", () => {
    const cache = new ReadCache();
    const r = {};
    cache.begin();
    cache.text(r, undefined, () => "a");
    cache.end(true);
    cache.begin();
    expect(cache.text(r, undefined, () => "b")).toBe("a");
    cache.end(false);
    cache.begin();
    expect(cache.text(r, undefined, () => "c")).toBe("c");
    cache.invalidate();
    expect(cache.text(r, undefined, () => "d")).toBe("d");
  });
});
