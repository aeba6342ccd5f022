import { beforeEach, describe, expect, it } from "vitest";
import { APP_ID, emulator, type TestEmulator } from "./helpers.js";

let e: TestEmulator;
const T = 2_000_000_000;
beforeEach(async () => {
  e = await emulator();
  e.clock.freeze(T * 1000);
});
const as = (onBehalfOf: string) => ({ onBehalfOf });
const at = (s: number) => e.clock.freeze((T + s) * 1000);

describe("shapes as in the reference's examples", () => {
  it("conversation lastMessage carries receipts (list, get, update; user and group conversations)", async () => {
    const m = (await e.post("/v3/messages", { receiver: "superhero2", receiverType: "user", data: { text: "hi" } }, as("superhero1"))).body.data;
    await e.post("/v3/messages", { receiver: "supergroup", receiverType: "group", data: { text: "all" } }, as("superhero1"));
    at(5);
    await e.post("/v3/users/superhero1/conversation/read", { messageId: Number(m.id) }, as("superhero2"));
    const list = (await e.get("/v3/conversations", as("superhero1"))).body.data;
    for (const c of list) expect(c.lastMessage.receipts).toEqual({ data: expect.any(Array) });
    const user = list.find((c: any) => c.conversationType === "user");
    expect(user.lastMessage.receipts.data).toEqual([
      { messageId: m.id, receiptType: "delivery", sender: "superhero2", deliveredAt: T + 5 },
      { messageId: m.id, receiptType: "read", sender: "superhero2", readAt: T + 5 },
    ]);
    expect((await e.get("/v3/users/superhero2/conversation", as("superhero1"))).body.data.lastMessage).toHaveProperty("receipts");
    expect((await e.get("/v3/groups/supergroup/conversation", as("superhero1"))).body.data.lastMessage.receipts).toEqual({ data: [] });
    expect((await e.put("/v3/users/superhero2/conversation", { tags: ["x"] }, as("superhero1"))).body.data.lastMessage).toHaveProperty("receipts");
  });

  it("user entities embedded in messages carry updatedAt once the user was updated", async () => {
    at(3);
    await e.put("/v3/users/superhero1", { name: "Iron Man 2" });
    const m = (await e.post("/v3/messages", { receiver: "superhero2", receiverType: "user", data: { text: "hi" } }, as("superhero1"))).body.data;
    expect(m.data.entities.sender.entity).toMatchObject({ uid: "superhero1", updatedAt: T + 3 });
    expect(m.data.entities.receiver.entity).not.toHaveProperty("updatedAt");
    const edited = (await e.put(`/v3/messages/${m.id}`, { data: { text: "hey" } }, as("superhero1"))).body.data;
    expect(edited.data.entities.by.entity).toMatchObject({ uid: "superhero1", updatedAt: T + 3 });
  });

  it("group member actions: the group's updatedAt moves, `for` shows it, `on` carries the viewer's conversationId", async () => {
    at(7);
    await e.post("/v3/groups/supergroup/members", { participants: ["superhero4"] });
    expect((await e.get("/v3/groups/supergroup")).body.data.updatedAt).toBe(T + 7);
    const added = (await e.get("/v3/groups/supergroup/messages?category=action", as("superhero1"))).body.data.at(-1);
    expect(added.data.entities.for.entity).toMatchObject({ guid: "supergroup", updatedAt: T + 7 });
    expect(added.data.entities.on.entity).toMatchObject({ uid: "superhero4", conversationId: "superhero1_user_superhero4" });
    const asApp = (await e.get("/v3/groups/supergroup/messages?category=action")).body.data.at(-1);
    expect(asApp.data.entities.on.entity).not.toHaveProperty("conversationId");
    at(9);
    await e.del("/v3/groups/supergroup/members/superhero4");
    expect((await e.get("/v3/groups/supergroup")).body.data.updatedAt).toBe(T + 9);
    at(11);
    await e.put("/v3/groups/supergroup/members/superhero2", { scope: "moderator" });
    expect((await e.get("/v3/groups/supergroup")).body.data.updatedAt).toBe(T + 11);
    at(13);
    await e.post("/v3/groups/supergroup/bannedusers/superhero2");
    expect((await e.get("/v3/groups/supergroup")).body.data.updatedAt).toBe(T + 13);
  });

  it("call entities inside call messages carry data.metadata", async () => {
    const r = await e.post(`/_emulator/apps/${APP_ID}/calls`, { initiator: "superhero1", receiver: "superhero2", receiverType: "user" });
    expect(r.status).toBe(201);
    const calls = (await e.get("/v3/users/superhero2/messages?category=call", as("superhero1"))).body.data;
    expect(calls.length).toBeGreaterThan(0);
    for (const m of calls) expect(m.data.entities.on.entity.data).toMatchObject({ metadata: {} });
  });
});
