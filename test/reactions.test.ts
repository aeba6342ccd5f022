import { beforeEach, describe, expect, it } from "vitest";
import { emulator, expectError, type TestEmulator } from "./helpers.js";

let e: TestEmulator;
let id: string;
beforeEach(async () => {
  e = await emulator();
  e.clock.freeze(2_000_000_000_000);
  id = (await e.post("/v3/messages", { receiver: "supergroup", receiverType: "group", data: { text: "react!" } }, { onBehalfOf: "superhero1" })).body.data.id;
});

const react = (uid: string, reaction: string) => e.post(`/v3/messages/${id}/reactions/${encodeURIComponent(reaction)}`, undefined, { onBehalfOf: uid });
const unreact = (uid: string, reaction: string) => e.del(`/v3/messages/${id}/reactions/${encodeURIComponent(reaction)}`, undefined, { onBehalfOf: uid });

describe("reactions", () => {
  it("adding answers the message with the data.reactions summary and reactedByMe for the reactor", async () => {
    await react("superhero2", "😅");
    const r = await react("superhero3", "😒");
    expect(r.status).toBe(200);
    expect(r.body.data.id).toBe(id);
    expect(r.body.data.data.reactions).toEqual([
      { reaction: "😅", count: 1 },
      { reaction: "😒", count: 1, reactedByMe: true },
    ]);
    // Reacting again with the same reaction changes nothing.
    expect((await react("superhero3", "😒")).body.data.data.reactions[1].count).toBe(1);
    expect((await react("superhero1", "😒")).body.data.data.reactions[1]).toEqual({ reaction: "😒", count: 2, reactedByMe: true });
  });

  it("removing drops the entry whose count fell to 0", async () => {
    await react("superhero2", "👍");
    await react("superhero3", "🔥");
    const r = await unreact("superhero2", "👍");
    expect(r.body.data.data.reactions).toEqual([{ reaction: "🔥", count: 1 }]);
    expect((await unreact("superhero2", "👍")).status).toBe(200);
  });

  it("lists all and per reaction as records with the reference's cursor meta", async () => {
    await react("superhero2", "😅");
    await react("superhero3", "😅");
    await react("superhero2", "😒");
    const all = await e.get(`/v3/messages/${id}/reactions`);
    expect(all.status).toBe(200);
    expect(all.body.data[0]).toEqual({
      id: expect.stringMatching(/^\d+$/),
      messageId: id,
      reaction: "😅",
      uid: "superhero2",
      reactedAt: 2_000_000_000,
      reactedBy: expect.objectContaining({ uid: "superhero2", name: "Captain America", status: "offline", role: "default" }),
    });
    expect(all.body.meta).toEqual({ current: { limit: 100, count: 3 }, next: { affix: "append", id: all.body.data[2].id } });
    const one = await e.get(`/v3/messages/${id}/reactions/${encodeURIComponent("😅")}`);
    expect(one.body.data.map((r: any) => r.uid)).toEqual(["superhero2", "superhero3"]);
    const page = await e.get(`/v3/messages/${id}/reactions?limit=2`);
    const rest = await e.get(`/v3/messages/${id}/reactions?limit=2&id=${page.body.meta.next.id}`);
    expect([...page.body.data, ...rest.body.data].map((r: any) => r.reaction)).toEqual(["😅", "😅", "😒"]);
    expect((await e.get(`/v3/messages?hasReactions=true&conversationId=group_supergroup`)).body.data.map((m: any) => m.id)).toEqual([id]);
  });

  it("needs onBehalfOf and access; unknown messages are 404", async () => {
    expectError(await e.post(`/v3/messages/${id}/reactions/x`), 400, "ERR_BAD_REQUEST");
    expectError(await react("superhero5", "x"), 403, "ERR_MESSAGE_NO_ACCESS");
    expectError(await e.post(`/v3/messages/424242/reactions/x`, undefined, { onBehalfOf: "superhero1" }), 404, "ERR_MESSAGE_ID_NOT_FOUND");
    expectError(await react("superhero1", "x".repeat(101)), 400, "ERR_BAD_REQUEST");
    expectError(await e.get(`/v3/messages/424242/reactions`), 404, "ERR_MESSAGE_ID_NOT_FOUND");
  });
});
