import { beforeEach, describe, expect, it } from "vitest";
import { emulator, expectError, surveyForm, type TestEmulator } from "./helpers.js";

let e: TestEmulator;
beforeEach(async () => {
  e = await emulator();
  e.clock.freeze(2_000_000_000_000);
});

const text = async (receiver: string, t: string, onBehalfOf?: string, receiverType = "user") =>
  (await e.post("/v3/messages", { receiver, receiverType, data: { text: t } }, { onBehalfOf })).body.data;
const as = (onBehalfOf: string) => ({ onBehalfOf });

describe("POST|DELETE /messages/{id}/pin", () => {
  it("pins as the app without onBehalfOf and as a user with it; everyone who sees the message sees the pin", async () => {
    const m = await text("superhero2", "Hi,", "superhero1");
    const pinned = await e.post(`/v3/messages/${m.id}/pin`);
    expect(pinned.status).toBe(200);
    expect(pinned.body.data).toMatchObject({ id: m.id, pinnedBy: "app_system", pinnedAt: 2_000_000_000 });
    const seen = await e.get(`/v3/messages/${m.id}`, as("superhero2"));
    expect(seen.body.data).toMatchObject({ pinnedBy: "app_system", pinnedAt: 2_000_000_000 });
    const list = await e.get("/v3/users/superhero1/messages", as("superhero2"));
    expect(list.body.data.at(-1)).toMatchObject({ pinnedBy: "app_system" });

    const g = await text("supergroup", "group news", "superhero1", "group");
    e.clock.freeze(2_000_000_010_000);
    expect((await e.post(`/v3/messages/${g.id}/pin`, undefined, as("superhero2"))).body.data).toMatchObject({ pinnedBy: "superhero2", pinnedAt: 2_000_000_010 });
  });

  it("unpins for anyone allowed, idempotently, and leaves the pin fields out", async () => {
    const m = await text("superhero2", "Hi,", "superhero1");
    await e.post(`/v3/messages/${m.id}/pin`, undefined, as("superhero1"));
    const un = await e.del(`/v3/messages/${m.id}/pin`, undefined, as("superhero2"));
    expect(un.status).toBe(200);
    expect(un.body.data.id).toBe(m.id);
    expect(un.body.data).not.toHaveProperty("pinnedBy");
    expect(un.body.data).not.toHaveProperty("pinnedAt");
    expect((await e.del(`/v3/messages/${m.id}/pin`)).status).toBe(200);
    expectError(await e.del("/v3/messages/999999/pin"), 404, "ERR_MESSAGE_ID_NOT_FOUND");
  });

  it("holds at most 100 pinned messages per conversation (user and app pins together); re-pinning is free", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 101; i++) ids.push((await text("superhero2", `m${i}`, "superhero1")).id);
    for (let i = 0; i < 100; i++) {
      const r = await e.post(`/v3/messages/${ids[i]}/pin`, undefined, i % 2 ? as("superhero1") : undefined);
      expect(r.status).toBe(200);
    }
    expect((await e.post(`/v3/messages/${ids[5]}/pin`)).status).toBe(200);
    const err = expectError(await e.post(`/v3/messages/${ids[100]}/pin`), 400, "ERR_PINNED_MESSAGES_LIMIT_EXCEEDED");
    expect(err.message).toBe("The number of pinned messages for the conversation with id superhero1_user_superhero2 has reached the allowed limit of 100.");
    // Another conversation has its own limit; unpinning makes room.
    const other = await text("superhero3", "x", "superhero1");
    expect((await e.post(`/v3/messages/${other.id}/pin`)).status).toBe(200);
    await e.del(`/v3/messages/${ids[0]}/pin`);
    expect((await e.post(`/v3/messages/${ids[100]}/pin`)).status).toBe(200);
  });

  it("refuses users whose role or scope denies pinMessage, users who cannot see the message, and unknown ids", async () => {
    const m = await text("supergroup", "hello", "superhero1", "group");
    await e.post("/v3/roles", { role: "nopin", name: "No pins" });
    await e.put("/v3/roles/nopin/permissions", { permissions: { pinMessage: "deny" } });
    await e.put("/v3/users/superhero2", { role: "nopin" });
    const err = expectError(await e.post(`/v3/messages/${m.id}/pin`, undefined, as("superhero2")), 403, "ERR_PERMISSION_DENIED");
    expect(err.message).toBe("Permission denied for action pinMessage with role nopin as per RBAC policy.");
    await e.put("/v3/groups/supergroup/scopes/participant/permissions", { permissions: { pinMessage: "deny" } });
    const scope = (await e.get("/v3/groups/supergroup/members")).body.data.find((x: any) => x.scope === "participant" && x.uid !== "superhero2");
    const scoped = expectError(await e.post(`/v3/messages/${m.id}/pin`, undefined, as(scope.uid)), 403, "ERR_PERMISSION_DENIED");
    expect(scoped.message).toBe("Permission denied for action pinMessage with scope participant as per RBAC policy.");
    const unpin = expectError(await e.del(`/v3/messages/${m.id}/pin`, undefined, as("superhero2")), 403, "ERR_PERMISSION_DENIED");
    expect(unpin.message).toBe("Permission denied for action unpinMessage with role nopin as per RBAC policy.");
    const dm = await text("superhero2", "private", "superhero1");
    expectError(await e.post(`/v3/messages/${dm.id}/pin`, undefined, as("superhero4")), 403, "ERR_MESSAGE_NO_ACCESS");
    expectError(await e.post("/v3/messages/abc/pin"), 404, "ERR_MESSAGE_ID_NOT_FOUND");
  });
});

describe("POST|DELETE /messages/{id}/save", () => {
  it("saves for the onBehalfOf user only, keeps the first savedAt, and unsaves idempotently", async () => {
    const m = await text("superhero2", "keep this", "superhero1");
    const saved = await e.post(`/v3/messages/${m.id}/save`, undefined, as("superhero2"));
    expect(saved.status).toBe(200);
    expect(saved.body.data).toMatchObject({ id: m.id, savedAt: 2_000_000_000 });
    e.clock.freeze(2_000_000_050_000);
    expect((await e.post(`/v3/messages/${m.id}/save`, undefined, as("superhero2"))).body.data.savedAt).toBe(2_000_000_000);
    expect((await e.get(`/v3/messages/${m.id}`, as("superhero2"))).body.data.savedAt).toBe(2_000_000_000);
    expect((await e.get(`/v3/messages/${m.id}`, as("superhero1"))).body.data).not.toHaveProperty("savedAt");
    expect((await e.get(`/v3/messages/${m.id}`)).body.data).not.toHaveProperty("savedAt");
    const un = await e.del(`/v3/messages/${m.id}/save`, undefined, as("superhero2"));
    expect(un.status).toBe(200);
    expect(un.body.data).not.toHaveProperty("savedAt");
    expect((await e.del(`/v3/messages/${m.id}/save`, undefined, as("superhero2"))).status).toBe(200);
  });

  it("requires onBehalfOf, limits a user to 100 saved messages and survives a state round trip", async () => {
    expectError(await e.post("/v3/messages/1/save"), 400, "ERR_BAD_REQUEST");
    expectError(await e.del("/v3/messages/1/save"), 400, "ERR_BAD_REQUEST");
    const ids: string[] = [];
    for (let i = 0; i < 101; i++) ids.push((await text("superhero2", `m${i}`, "superhero1")).id);
    for (let i = 0; i < 100; i++) expect((await e.post(`/v3/messages/${ids[i]}/save`, undefined, as("superhero1"))).status).toBe(200);
    const err = expectError(await e.post(`/v3/messages/${ids[100]}/save`, undefined, as("superhero1")), 400, "ERR_SAVED_MESSAGES_LIMIT_EXCEEDED");
    expect(err.message).toBe("The number of saved messages for the user with uid superhero1 has reached the allowed limit of 100.");
    expect((await e.post(`/v3/messages/${ids[100]}/save`, undefined, as("superhero2"))).status).toBe(200);
    const app = [...e.store.apps.values()][0];
    const copy = app.snapshot();
    expect(copy.savedMessages).toHaveLength(101);
    app.load(copy);
    expect((await e.get(`/v3/messages/${ids[3]}`, as("superhero1"))).body.data.savedAt).toBe(2_000_000_000);
  });
});

describe("PATCH /messages/{id}/interacted and interactive messages", () => {
  const form = surveyForm("superhero2");

  it("sends an interactive message and records each user's interactions once", async () => {
    const sent = await e.post("/v3/messages", form, as("superhero1"));
    expect(sent.status).toBe(200);
    expect(sent.body.data).toMatchObject({ category: "interactive", type: "form", data: { interactiveData: { title: "Survey" } } });
    const id = sent.body.data.id;
    const r = await e.call("PATCH", `/v3/messages/${id}/interacted`, { body: { interactions: ["submit"] }, onBehalfOf: "superhero2" });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: { success: true, message: `The message id ${id} has been marked as interacted for the user superhero2.` } });
    e.clock.freeze(2_000_000_100_000);
    await e.call("PATCH", `/v3/messages/${id}/interacted`, { body: { interactions: ["submit", "name"] }, onBehalfOf: "superhero2" });
    const seen = await e.get(`/v3/messages/${id}`, as("superhero2"));
    expect(seen.body.data.data.interactions).toEqual([
      { elementId: "submit", interactedAt: 2_000_000_000 },
      { elementId: "name", interactedAt: 2_000_000_100 },
    ]);
    expect((await e.get(`/v3/messages/${id}`, as("superhero1"))).body.data.data).not.toHaveProperty("interactions");
    expect((await e.get("/v3/messages?category=interactive", as("superhero2"))).body.data).toHaveLength(1);
  });

  it("refuses unknown elements, non-interactive messages, the sender unless allowed, and a missing body", async () => {
    const id = (await e.post("/v3/messages", form, as("superhero1"))).body.data.id;
    const patch = (body: unknown, onBehalfOf?: string) => e.call("PATCH", `/v3/messages/${id}/interacted`, { body, onBehalfOf });
    expect(expectError(await patch({ interactions: ["nope"] }, "superhero2"), 400, "ERR_BAD_REQUEST").details).toHaveProperty("interactions.0");
    expectError(await patch({}, "superhero2"), 400, "ERR_BAD_REQUEST");
    expectError(await patch({ interactions: ["submit"] }), 400, "ERR_BAD_REQUEST");
    expectError(await patch({ interactions: ["submit"] }, "superhero1"), 403, "ERR_MESSAGE_ACTION_NOT_ALLOWED");
    const plain = await text("superhero2", "hi", "superhero1");
    expectError(await e.call("PATCH", `/v3/messages/${plain.id}/interacted`, { body: { interactions: ["x"] }, onBehalfOf: "superhero2" }), 403, "ERR_MESSAGE_ACTION_NOT_ALLOWED");
    expectError(await e.post("/v3/messages", { ...form, data: { title: "no interactive data" } }, as("superhero1")), 400, "ERR_BAD_REQUEST");
  });
});

describe("quotedMessageId", () => {
  it("embeds the quoted message on send and in lists unless hideQuotedMessages", async () => {
    const q = await text("superhero2", "original", "superhero1");
    const r = await e.post("/v3/messages", { receiver: "superhero1", receiverType: "user", quotedMessageId: q.id, data: { text: "reply" } }, as("superhero2"));
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ quotedMessageId: q.id, quotedMessage: { id: q.id, data: { text: "original" } } });
    const list = await e.get("/v3/users/superhero1/messages", as("superhero2"));
    expect(list.body.data.at(-1).quotedMessage.id).toBe(q.id);
    const g = await text("supergroup", "group original", "superhero1", "group");
    await e.post("/v3/messages", { receiver: "supergroup", receiverType: "group", quotedMessageId: g.id, data: { text: "group reply" } }, as("superhero2"));
    expect((await e.get("/v3/groups/supergroup/messages", as("superhero2"))).body.data.at(-1).quotedMessage.id).toBe(g.id);
    const hiding = ["users/superhero1/messages", "groups/supergroup/messages", "messages"].map((p) => `/v3/${p}?hideQuotedMessages=true&affix=prepend`);
    for (const path of hiding) {
      const last = (await e.get(path, as("superhero2"))).body.data.at(-1);
      expect(last).toHaveProperty("quotedMessageId");
      expect(last).not.toHaveProperty("quotedMessage");
    }
    expectError(await e.post("/v3/messages", { receiver: "superhero1", receiverType: "user", quotedMessageId: "99999", data: { text: "x" } }, as("superhero2")), 404, "ERR_MESSAGE_ID_NOT_FOUND");
    const hidden = await text("superhero3", "not yours", "superhero1");
    expectError(await e.post("/v3/messages", { receiver: "superhero1", receiverType: "user", quotedMessageId: hidden.id, data: { text: "x" } }, as("superhero2")), 404, "ERR_MESSAGE_ID_NOT_FOUND");
  });
});
