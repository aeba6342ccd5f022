import { beforeEach, describe, expect, it } from "vitest";
import { emulator, expectError, type TestEmulator } from "./helpers.js";

/** Roles and group scopes taking effect on calls made on behalf of their holders. */
let e: TestEmulator;
beforeEach(async () => {
  e = await emulator();
  await e.post("/v3/roles", { role: "limited", name: "Limited" });
  await e.put("/v3/users/superhero2", { role: "limited" });
});

const as = (uid: string) => ({ onBehalfOf: uid });
const say = (to: string, body: Record<string, unknown> = { data: { text: "hi" } }, from = "superhero2", receiverType = "user") =>
  e.post("/v3/messages", { receiver: to, receiverType, ...body }, as(from));
const restrict = (...featuresToRestrict: string[]) => e.post("/v3/roles/limited/restrictedfeatures", { featuresToRestrict });
const permit = (permissions: Record<string, unknown>) => e.put("/v3/roles/limited/permissions", { permissions });

describe("role settings", () => {
  it("listUsers: friendsOnly lists only friends", async () => {
    await e.put("/v3/roles/limited", { settings: { listUsers: "friendsOnly" } });
    await e.post("/v3/users/superhero2/friends", { accepted: ["superhero4"] });
    expect((await e.get("/v3/users", as("superhero2"))).body.data.map((u: any) => u.uid)).toEqual(["superhero4"]);
    expect((await e.get("/v3/users", as("superhero1"))).body.data).toHaveLength(5);
  });

  it("sendMessagesTo: friendsOnly refuses non-friends with ERR_NOT_A_FRIEND", async () => {
    await e.put("/v3/roles/limited", { settings: { sendMessagesTo: "friendsOnly" } });
    expectError(await say("superhero3"), 403, "ERR_NOT_A_FRIEND");
    await e.post("/v3/users/superhero2/friends", { accepted: ["superhero3"] });
    expect((await say("superhero3")).status).toBe(200);
  });
});

describe("restricted features", () => {
  it("refuse the operations on behalf of the role's users with AUTH_ERR_NO_ACCESS; the app is never limited", async () => {
    await restrict("u.listUsers", "u.sendMessage", "u.createGroup", "u.editMessage", "u.deleteMessage");
    const err = expectError(await e.get("/v3/users", as("superhero2")), 403, "AUTH_ERR_NO_ACCESS");
    expect(err.message).toContain("u.listUsers");
    expectError(await say("superhero3"), 403, "AUTH_ERR_NO_ACCESS");
    expectError(await e.post("/v3/groups", { guid: "g", name: "G", type: "public" }, as("superhero2")), 403, "AUTH_ERR_NO_ACCESS");
    expect((await e.get("/v3/users")).status).toBe(200);
    expect((await e.get("/v3/users", as("superhero1"))).status).toBe(200);
    await e.del("/v3/roles/limited/restrictedfeatures", { featuresToAllow: ["u.sendMessage"] });
    const m = (await say("superhero3")).body.data;
    expectError(await e.put(`/v3/messages/${m.id}`, { data: { text: "x" } }, as("superhero2")), 403, "AUTH_ERR_NO_ACCESS");
    expectError(await e.del(`/v3/messages/${m.id}`, undefined, as("superhero2")), 403, "AUTH_ERR_NO_ACCESS");
  });
});

describe("role permissions", () => {
  it("listUsers deny and listUsers.allowedRoles", async () => {
    await permit({ "listUsers.allowedRoles": ["limited"] });
    expect((await e.get("/v3/users", as("superhero2"))).body.data.map((u: any) => u.uid)).toEqual(["superhero2"]);
    await permit({ listUsers: "deny" });
    expectError(await e.get("/v3/users", as("superhero2")), 403, "AUTH_ERR_NO_ACCESS");
  });

  it("sendMessage: allowed types, categories, receiver types and mode", async () => {
    await permit({ "sendMessage.allowedMessageTypes": ["text"], "sendMessage.allowedMessageCategories": ["message"] });
    expect((await say("superhero3")).status).toBe(200);
    expectError(await say("superhero3", { type: "image", data: { attachments: [{ url: "https://x.io/a.png" }] } }), 403, "AUTH_ERR_NO_ACCESS");
    expectError(await say("superhero3", { category: "custom", type: "poll", data: { customData: {} } }), 403, "AUTH_ERR_NO_ACCESS");
    await permit({ "sendMessage.allowedReceiverTypes": ["user"] });
    expectError(await say("supergroup", { data: { text: "x" } }, "superhero2", "group"), 403, "AUTH_ERR_NO_ACCESS");
    await permit({ "sendMessage.mode": "friends" });
    expectError(await say("superhero3"), 403, "ERR_NOT_A_FRIEND");
    await permit({ sendMessage: "deny" });
    expectError(await say("superhero3"), 403, "AUTH_ERR_NO_ACCESS");
  });

  it("createGroup with allowed group types", async () => {
    await permit({ "createGroup.allowedGroupTypes": ["public"] });
    expect((await e.post("/v3/groups", { guid: "pub", name: "P", type: "public" }, as("superhero2"))).status).toBe(200);
    expectError(await e.post("/v3/groups", { guid: "priv", name: "P", type: "private" }, as("superhero2")), 403, "AUTH_ERR_NO_ACCESS");
    await permit({ createGroup: "deny" });
    expectError(await e.post("/v3/groups", { guid: "pub2", name: "P", type: "public" }, as("superhero2")), 403, "AUTH_ERR_NO_ACCESS");
  });

  it("editMessage / deleteMessage deny, and denyForScopes in groups", async () => {
    const m = (await say("supergroup", { data: { text: "x" } }, "superhero2", "group")).body.data;
    await permit({ "editMessage.denyForScopes": ["participant"] });
    expectError(await e.put(`/v3/messages/${m.id}`, { data: { text: "y" } }, as("superhero2")), 403, "AUTH_ERR_NO_ACCESS");
    await permit({ deleteMessage: "deny" });
    expectError(await e.del(`/v3/messages/${m.id}`, undefined, as("superhero2")), 403, "AUTH_ERR_NO_ACCESS");
    const dm = (await say("superhero3")).body.data;
    expect((await e.put(`/v3/messages/${dm.id}`, { data: { text: "y" } }, as("superhero2"))).status).toBe(200);
  });

  it("listGroups.allowedGroupTypes and listMessages.allowedMessageCategories narrow lists", async () => {
    await e.post("/v3/groups", { guid: "hidden", name: "Hidden", type: "private" });
    await permit({ "listGroups.allowedGroupTypes": ["public"], "listMessages.allowedMessageCategories": ["action"] });
    expect((await e.get("/v3/groups", as("superhero2"))).body.data.map((g: any) => g.guid)).toEqual(["supergroup"]);
    const msgs = await e.get("/v3/groups/supergroup/messages?limit=100", as("superhero2"));
    expect(msgs.body.data.every((m: any) => m.category === "action")).toBe(true);
  });
});

describe("group scope permissions", () => {
  it("take effect for members of that scope only", async () => {
    await e.put("/v3/groups/supergroup/scopes/participant/permissions", { permissions: { sendMessage: "deny", addReaction: "deny", "listMembers.allowedScopes": ["admin"] } });
    expectError(await say("supergroup", { data: { text: "x" } }, "superhero3", "group"), 403, "AUTH_ERR_NO_ACCESS");
    const m = await say("supergroup", { data: { text: "by admin" } }, "superhero1", "group");
    expect(m.status).toBe(200);
    expectError(await e.post(`/v3/messages/${m.body.data.id}/reactions/x`, undefined, as("superhero3")), 403, "AUTH_ERR_NO_ACCESS");
    expect((await e.post(`/v3/messages/${m.body.data.id}/reactions/x`, undefined, as("superhero1"))).status).toBe(200);
    expect((await e.get("/v3/groups/supergroup/members", as("superhero3"))).body.data.map((u: any) => u.uid)).toEqual(["superhero1"]);
    expect((await e.get("/v3/groups/supergroup/members")).body.data).toHaveLength(3);
  });
});
