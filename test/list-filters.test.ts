import { beforeEach, describe, expect, it } from "vitest";
import { emulator, expectError, type TestEmulator } from "./helpers.js";

let e: TestEmulator;
const T = 2_000_000_000;
beforeEach(async () => {
  e = await emulator();
  e.clock.freeze(T * 1000);
  e.store.reset({ to: "empty" });
});

const as = (onBehalfOf: string) => ({ onBehalfOf });
const at = (seconds: number) => e.clock.freeze((T + seconds) * 1000);
const ids = (r: any, key: string) => r.body.data.map((x: any) => x[key]);

describe("GET /users: createdAt/updatedAt ranges and comma-separated status", () => {
  it("filters inclusively by the ranges and by any of the statuses", async () => {
    at(0);
    await e.post("/v3/users", { uid: "u1", name: "A" });
    at(10);
    await e.post("/v3/users", { uid: "u2", name: "B" });
    at(20);
    await e.post("/v3/users", { uid: "u3", name: "C" });
    at(30);
    await e.put("/v3/users/u1", { name: "A2" });
    expect(ids(await e.get(`/v3/users?createdAt[from]=${T + 10}&createdAt[to]=${T + 20}`), "uid")).toEqual(["u2", "u3"]);
    expect(ids(await e.get(`/v3/users?updatedAt[from]=${T + 25}`), "uid")).toEqual(["u1"]);
    expect(ids(await e.get("/v3/users?status=available,offline"), "uid")).toEqual(["u1", "u2", "u3"]);
    expect(ids(await e.get("/v3/users?status=available"), "uid")).toEqual([]);
    expectError(await e.get("/v3/users?status=available,busy"), 400, "ERR_BAD_REQUEST");
    expectError(await e.get("/v3/users?createdAt[from]=soon"), 400, "ERR_BAD_REQUEST");
  });
});

describe("query strings: how list parameters are read", () => {
  it("takes repeated names, name[] and commas alike, the first of repeated single values, encoded names and + as a space", async () => {
    await e.post("/v3/users", { uid: "u1", name: "Ann Lee", tags: ["red"] });
    await e.post("/v3/users", { uid: "u2", name: "Bo", tags: ["blue"] });
    await e.post("/v3/users", { uid: "u3", name: "Cy", tags: ["green"] });
    expect(ids(await e.get("/v3/users?tags=red&tags=blue"), "uid")).toEqual(["u1", "u2"]);
    expect(ids(await e.get("/v3/users?tags[]=red&tags[]=green"), "uid")).toEqual(["u1", "u3"]);
    expect(ids(await e.get("/v3/users?tags=red,green&tags[]=blue"), "uid")).toEqual(["u1", "u2", "u3"]);
    expect(ids(await e.get("/v3/users?perPage=1&perPage=50"), "uid")).toEqual(["u1"]);
    expect(ids(await e.get("/v3/users?t%61gs=blue"), "uid")).toEqual(["u2"]);
    expect(ids(await e.get("/v3/users?searchKey=Ann+Lee"), "uid")).toEqual(["u1"]);
    expect(ids(await e.get("/v3/users?searchKey=Ann%20L"), "uid")).toEqual(["u1"]);
    expect(ids(await e.get("/v3/users?perPage=1&perPage=x"), "uid")).toEqual(["u1"]);
    expectError(await e.get("/v3/users?perPage=x&perPage=1"), 400, "ERR_BAD_REQUEST");
  });
});

describe("GET /groups: guid, guids, date ranges, membersCount", () => {
  it("narrows to the named groups, by creation and real updates, and by member counts", async () => {
    for (const uid of ["a", "b", "c"]) await e.post("/v3/users", { uid, name: uid });
    at(0);
    await e.post("/v3/groups", { guid: "g1", name: "One", type: "public", members: { participants: ["a", "b", "c"] } });
    at(10);
    await e.post("/v3/groups", { guid: "g2", name: "Two", type: "public", members: { participants: ["a"] } });
    at(20);
    await e.post("/v3/groups", { guid: "g3", name: "Three", type: "public" });
    at(30);
    await e.put("/v3/groups/g3", { name: "Three!" });
    expect(ids(await e.get("/v3/groups?guid=g2"), "guid")).toEqual(["g2"]);
    expect(ids(await e.get("/v3/groups?guids=g1,g3,nope"), "guid")).toEqual(["g1", "g3"]);
    expect(ids(await e.get(`/v3/groups?createdAt[from]=${T + 5}&createdAt[to]=${T + 20}`), "guid")).toEqual(["g3", "g2"]);
    expect(ids(await e.get(`/v3/groups?updatedAt[from]=${T}`), "guid")).toEqual(["g3"]);
    expect(ids(await e.get("/v3/groups?membersCount[gte]=1"), "guid")).toEqual(["g1", "g2"]);
    expect(ids(await e.get("/v3/groups?membersCount[lte]=1"), "guid")).toEqual(["g3", "g2"]);
    expect(ids(await e.get("/v3/groups?membersCount[eq]=3"), "guid")).toEqual(["g1"]);
    expect((await e.get("/v3/groups?membersCount[gte]=1")).body.meta.pagination.total).toBe(2);
    expectError(await e.get("/v3/groups?membersCount[eq]=three"), 400, "ERR_BAD_REQUEST");
  });
});

describe("GET /messages: senders and sentAt/updatedAt/editedAt ranges", () => {
  it("filters by any of the senders and inclusively by the ranges (updatedAt only for changed messages)", async () => {
    for (const uid of ["a", "b", "c"]) await e.post("/v3/users", { uid, name: uid });
    const send = async (from: string, to: string, text: string) => (await e.post("/v3/messages", { receiver: to, receiverType: "user", data: { text } }, as(from))).body.data;
    at(0);
    const m1 = await send("a", "b", "one");
    at(10);
    await send("b", "a", "two");
    at(20);
    await send("c", "a", "three");
    at(30);
    await e.put(`/v3/messages/${m1.id}`, { data: { text: "one!" } }, as("a"));
    const texts = (r: any) => r.body.data.map((m: any) => m.data.text ?? m.data.action);
    expect(texts(await e.get("/v3/messages?senders=b,c&category=message"))).toEqual(["two", "three"]);
    expect(texts(await e.get(`/v3/messages?sentAt[from]=${T + 10}&sentAt[to]=${T + 20}&category=message`))).toEqual(["two", "three"]);
    expect(texts(await e.get(`/v3/messages?updatedAt[from]=${T}&category=message`))).toEqual(["one!"]);
    expect(texts(await e.get(`/v3/messages?editedAt[from]=${T + 30}&editedAt[to]=${T + 30}`))).toEqual(["one!"]);
    expect(texts(await e.get(`/v3/messages?editedAt[to]=${T + 29}`))).toEqual([]);
    expectError(await e.get("/v3/messages?sentAt[to]=x"), 400, "ERR_BAD_REQUEST");
  });
});

describe("GET /conversations: blocked users, agentic filters, unique, useCursoredIndex", () => {
  beforeEach(async () => {
    for (const uid of ["a", "b", "c"]) await e.post("/v3/users", { uid, name: uid.toUpperCase() });
    at(1);
    await e.post("/v3/messages", { receiver: "b", receiverType: "user", data: { text: "hi b" } }, as("a"));
    at(2);
    await e.post("/v3/messages", { receiver: "c", receiverType: "user", data: { text: "hi c" } }, as("a"));
  });

  it("leaves out conversations with users the owner blocked unless includeBlockedUsers; withBlockedInfo adds the flags", async () => {
    await e.post("/v3/users/a/blockedusers", { blockedUids: ["b"] });
    expect(ids(await e.get("/v3/conversations", as("a")), "conversationId")).toEqual(["a_user_c"]);
    const all = await e.get("/v3/conversations?includeBlockedUsers=true&withBlockedInfo=true", as("a"));
    expect(ids(all, "conversationId")).toEqual(["a_user_c", "a_user_b"]);
    expect(all.body.data[1].conversationWith).toMatchObject({ uid: "b", blockedByMe: true, blockedByMeAt: T + 2 });
    expect(all.body.data[0].conversationWith).not.toHaveProperty("blockedByMe");
    // b did not block anyone: b still sees the conversation, and with withBlockedInfo learns a blocked them.
    const theirs = await e.get("/v3/conversations?withBlockedInfo=1", as("b"));
    expect(theirs.body.data[0].conversationWith).toMatchObject({ uid: "a", hasBlockedMe: true });
    expect((await e.get("/v3/conversations", as("b"))).body.data[0].conversationWith).not.toHaveProperty("hasBlockedMe");
  });

  it("hides or keeps only conversations with AI agents (isAgentic)", async () => {
    expect(ids(await e.get("/v3/conversations?hideAgentic=true", as("a")), "conversationId")).toEqual(["a_user_c", "a_user_b"]);
    expect((await e.get("/v3/conversations?onlyAgentic=true", as("a"))).body.data).toEqual([]);
    const agent = (await e.post("/v3/ai-agents/agents", { name: "Weather", integrateWith: "mastra", integrationType: "agent", integrationMeta: { baseUrl: "https://agent.example.com", agentId: "w" }, tools: [], actions: [] })).body;
    const uid = agent.agent.uid;
    at(3);
    expect((await e.post("/v3/messages", { receiver: uid, receiverType: "user", data: { text: "weather?" } }, as("a"))).status).toBe(200);
    const conv = (await e.get("/v3/conversations", as("a"))).body.data[0].conversationId;
    expect(ids(await e.get("/v3/conversations?onlyAgentic=true", as("a")), "conversationId")).toEqual([conv]);
    expect(ids(await e.get("/v3/conversations?hideAgentic=true", as("a")), "conversationId")).toEqual(["a_user_c", "a_user_b"]);
    expectError(await e.get("/v3/conversations?onlyAgentic=true&hideAgentic=true", as("a")), 400, "ERR_BAD_REQUEST");
  });

  it("unique=1 lists each conversation once and refuses onBehalfOf; useCursoredIndex takes 0 or 1", async () => {
    expect(ids(await e.get("/v3/conversations"), "conversationId")).toEqual(["a_user_c", "a_user_b", "a_user_b", "a_user_c"]);
    expect(ids(await e.get("/v3/conversations?unique=1"), "conversationId")).toEqual(["a_user_c", "a_user_b"]);
    expectError(await e.get("/v3/conversations?unique=1", as("a")), 400, "ERR_BAD_REQUEST");
    expectError(await e.get("/v3/conversations?unique=2"), 400, "ERR_BAD_REQUEST");
    expect((await e.get("/v3/conversations?useCursoredIndex=0", as("a"))).status).toBe(200);
    expectError(await e.get("/v3/conversations?useCursoredIndex=yes", as("a")), 400, "ERR_BAD_REQUEST");
  });
});

describe("POST /users/{uid}/friends addToConversations", () => {
  it("makes the new friends' conversation exist for both, empty, until they talk; without it nothing is created", async () => {
    for (const uid of ["a", "b", "c"]) await e.post("/v3/users", { uid, name: uid.toUpperCase() });
    at(5);
    const r = await e.post("/v3/users/a/friends", { accepted: ["b"], addToConversations: true });
    expect(r.body.data.accepted.b.success).toBe(true);
    await e.post("/v3/users/a/friends", { accepted: ["c"] });
    const mine = await e.get("/v3/conversations", as("a"));
    expect(ids(mine, "conversationId")).toEqual(["a_user_b"]);
    expect(mine.body.data[0]).toMatchObject({ conversationType: "user", unreadMessageCount: "0", updatedAt: T + 5, conversationWith: { uid: "b" } });
    expect(mine.body.data[0]).not.toHaveProperty("lastMessage");
    expect(ids(await e.get("/v3/conversations", as("b")), "conversationId")).toEqual(["a_user_b"]);
    const app = [...e.store.apps.values()][0];
    app.load(app.snapshot());
    expect(ids(await e.get("/v3/conversations", as("b")), "conversationId")).toEqual(["a_user_b"]);
    await e.post("/v3/messages", { receiver: "b", receiverType: "user", data: { text: "friends!" } }, as("a"));
    expect((await e.get("/v3/conversations", as("b"))).body.data[0].lastMessage.data.text).toBe("friends!");
    expectError(await e.post("/v3/users/a/friends", { accepted: ["c"], addToConversations: "sure" }), 400, "ERR_BAD_REQUEST");
  });
});
