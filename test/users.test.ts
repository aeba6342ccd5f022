import { beforeEach, describe, expect, it } from "vitest";
import { emulator, expectError, type TestEmulator } from "./helpers.js";

let e: TestEmulator;
beforeEach(async () => {
  e = await emulator();
});

const create = (body: Record<string, unknown>) => e.post("/v3/users", body);

describe("POST /users", () => {
  it("creates a user with every attribute and answers the user object", async () => {
    const r = await create({
      uid: "Cometchat-UID-6",
      name: "Barry Allen 🏃",
      avatar: "https://example.com/barry.png",
      link: "https://example.com/barry",
      statusMessage: "running",
      metadata: { "@private": { email: "barry@example.com" } },
      tags: ["speedster", "hero"],
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      uid: "cometchat-uid-6",
      name: "Barry Allen 🏃",
      avatar: "https://example.com/barry.png",
      link: "https://example.com/barry",
      statusMessage: "running",
      metadata: { "@private": { email: "barry@example.com" } },
      status: "offline",
      role: "default",
      createdAt: expect.any(Number),
      tags: ["speedster", "hero"],
    });
    expect(r.body.data).not.toHaveProperty("authToken");
  });

  it("leaves unset attributes out and gives tags [] by default", async () => {
    const r = await create({ uid: "plain", name: "Plain" });
    expect(Object.keys(r.body.data).sort()).toEqual(["createdAt", "name", "role", "status", "tags", "uid"]);
    expect(r.body.data.tags).toEqual([]);
  });

  it("returns an auth token in the platform format with withAuthToken", async () => {
    const r = await create({ uid: "with-token", name: "T", withAuthToken: true });
    expect(r.status).toBe(200);
    expect(r.body.data.authToken).toMatch(new RegExp(`^with-token_${r.body.data.createdAt}[0-9a-f]{30}$`));
    const list = await e.get("/v3/users/with-token/auth_tokens");
    expect(list.body.data.map((t: any) => t.authToken)).toEqual([r.body.data.authToken]);
  });

  it("refuses a duplicate uid, case-insensitively, with ERR_UID_ALREADY_EXISTS", async () => {
    const err = expectError(await create({ uid: "SUPERHERO1", name: "Again" }), 400, "ERR_UID_ALREADY_EXISTS");
    expect(err.message).toContain("superhero1");
  });

  it("validates required fields with Laravel-style details", async () => {
    const err = expectError(await create({}), 400, "ERR_BAD_REQUEST");
    expect(err.message).toBe("Failed to validate the data sent with the request.");
    expect(err.details).toEqual({ uid: ["The uid field is required."], name: ["The name field is required."] });
  });

  it("enforces the uid rules: at most 100 characters, letters, numbers and dashes", async () => {
    expect((await create({ uid: "a".repeat(100), name: "ok" })).status).toBe(200);
    const long = expectError(await create({ uid: "b".repeat(101), name: "x" }), 400, "ERR_BAD_REQUEST");
    expect(long.details!.uid).toEqual(["The uid may not be greater than 100 characters."]);
    for (const uid of ["has space", "under_score", "dot.ted", "émile"]) {
      const bad = expectError(await create({ uid, name: "x" }), 400, "ERR_BAD_REQUEST");
      expect(bad.details!.uid).toEqual(["The uid may only contain letters, numbers, and dashes."]);
    }
  });

  it("counts name length in characters, emoji included (100 max)", async () => {
    expect((await create({ uid: "emoji", name: "😀".repeat(100) })).status).toBe(200);
    const err = expectError(await create({ uid: "emoji2", name: "😀".repeat(101) }), 400, "ERR_BAD_REQUEST");
    expect(err.details!.name).toEqual(["The name may not be greater than 100 characters."]);
  });

  it("limits avatar and link to 3000 characters and valid URLs", async () => {
    const url = "https://e.com/" + "a".repeat(3000 - 14);
    expect((await create({ uid: "u1", name: "n", avatar: url, link: url })).status).toBe(200);
    const long = expectError(await create({ uid: "u2", name: "n", avatar: url + "a" }), 400, "ERR_BAD_REQUEST");
    expect(long.details!.avatar).toEqual(["The avatar may not be greater than 3000 characters."]);
    const bad = expectError(await create({ uid: "u3", name: "n", avatar: "not a url" }), 400, "ERR_BAD_REQUEST");
    expect(bad.details!.avatar).toEqual(["The avatar must be a valid URL."]);
  });

  it("limits metadata to 5 KB", async () => {
    const ok = await create({ uid: "m1", name: "n", metadata: { blob: "x".repeat(5 * 1024 - 20) } });
    expect(ok.status).toBe(200);
    const err = expectError(
      await create({ uid: "m2", name: "n", metadata: { blob: "x".repeat(5 * 1024) } }),
      400,
      "ERR_BAD_REQUEST",
    );
    expect(err.details!.metadata).toEqual(["The metadata may not be greater than 5 kilobytes."]);
    const notObject = expectError(await create({ uid: "m3", name: "n", metadata: "str" }), 400, "ERR_BAD_REQUEST");
    expect(notObject.details!.metadata).toEqual(["The metadata must be an object."]);
  });

  it("limits tags to 25 of at most 100 characters", async () => {
    const tags = Array.from({ length: 25 }, (_, i) => `t${i}`);
    expect((await create({ uid: "t1", name: "n", tags })).status).toBe(200);
    const many = expectError(await create({ uid: "t2", name: "n", tags: [...tags, "x"] }), 400, "ERR_BAD_REQUEST");
    expect(many.details!.tags).toEqual(["The tags may not have more than 25 items."]);
    const long = expectError(await create({ uid: "t3", name: "n", tags: ["ok", "y".repeat(101)] }), 400, "ERR_BAD_REQUEST");
    expect(long.details!["tags.1"]).toEqual(["The tags.1 may not be greater than 100 characters."]);
    const empty = expectError(await create({ uid: "t4", name: "n", tags: [""] }), 400, "ERR_BAD_REQUEST");
    expect(empty.details!["tags.0"]).toEqual(["The tags.0 field is required."]);
  });

  it("requires the role to exist", async () => {
    expectError(await create({ uid: "r1", name: "n", role: "nosuchrole" }), 404, "ERR_ROLE_NOT_FOUND");
    expect((await create({ uid: "r2", name: "n", role: "default" })).body.data.role).toBe("default");
  });

  it("refuses bodies over 10 KB, malformed JSON and non-JSON content types, changing nothing", async () => {
    const big = await create({ uid: "big", name: "n", statusMessage: "x".repeat(10 * 1024) });
    expectError(big, 413, "ERR_BAD_REQUEST");
    const malformed = await e.call("POST", "/v3/users", { raw: '{"uid": "bad",', headers: { "content-type": "application/json" } });
    expect(expectError(malformed, 400, "ERR_BAD_REQUEST").details).toEqual({ body: ["The request body must be valid JSON."] });
    const array = await e.call("POST", "/v3/users", { raw: "[1,2]", headers: { "content-type": "application/json" } });
    expectError(array, 400, "ERR_BAD_REQUEST");
    const form = await e.call("POST", "/v3/users", { raw: "uid=x&name=y", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expectError(form, 415, "ERR_BAD_REQUEST");
    expectError(await e.get("/v3/users/big"), 404, "ERR_UID_NOT_FOUND");
  });

  it("rejects wrong types with the validator's sentences", async () => {
    const err = expectError(await create({ uid: 5, name: ["x"], tags: "a", withAuthToken: "maybe" }), 400, "ERR_BAD_REQUEST");
    expect(err.details).toEqual({
      uid: ["The uid must be a string."],
      name: ["The name must be a string."],
      tags: ["The tags must be an array."],
      withAuthToken: ["The withAuthToken field must be true or false."],
    });
  });
});

describe("GET /users", () => {
  async function addUsers() {
    await create({ uid: "alice", name: "Alice", tags: ["team-a"], role: "default" });
    await create({ uid: "alan", name: "Zed Alan", tags: ["team-b"] });
    await create({ uid: "bob", name: "Bob", tags: ["team-a", "team-b"] });
  }

  it("lists users by name with the page envelope and a top-level cursor", async () => {
    const r = await e.get("/v3/users");
    expect(r.status).toBe(200);
    expect(r.body.data.map((u: any) => u.name)).toEqual(["Captain America", "Cyclops", "Iron Man", "Spiderman", "Wolverine"]);
    expect(r.body.meta).toEqual({ pagination: { total: 5, count: 5, per_page: 100, current_page: 1, total_pages: 1 } });
    expect(r.body.cursor).toEqual({ updatedAt: expect.any(Number), affix: "prepend" });
    for (const u of r.body.data) {
      expect(u.updatedAt).toBe(u.createdAt);
      expect(u).not.toHaveProperty("tags");
      expect(u).not.toHaveProperty("conversationId");
    }
  });

  it("pages with perPage and page", async () => {
    const first = await e.get("/v3/users?perPage=2&page=1");
    const third = await e.get("/v3/users?perPage=2&page=3");
    expect(first.body.data.map((u: any) => u.uid)).toEqual(["superhero2", "superhero5"]);
    expect(first.body.meta.pagination).toEqual({ total: 5, count: 2, per_page: 2, current_page: 1, total_pages: 3 });
    expect(third.body.data.map((u: any) => u.uid)).toEqual(["superhero4"]);
    const beyond = await e.get("/v3/users?perPage=2&page=9");
    expect(beyond.body.data).toEqual([]);
    expect(beyond.body.meta.pagination.count).toBe(0);
  });

  it("validates perPage (1..1000) and page", async () => {
    expect((await e.get("/v3/users?perPage=1000")).status).toBe(200);
    const big = expectError(await e.get("/v3/users?perPage=1001"), 400, "ERR_BAD_REQUEST");
    expect(big.details).toEqual({ perPage: ["The perPage may not be greater than 1000."] });
    expectError(await e.get("/v3/users?perPage=abc"), 400, "ERR_BAD_REQUEST");
    expectError(await e.get("/v3/users?page=0"), 400, "ERR_BAD_REQUEST");
    expectError(await e.get("/v3/users?status=busy"), 400, "ERR_BAD_REQUEST");
    expectError(await e.get("/v3/users?searchIn=email"), 400, "ERR_BAD_REQUEST");
  });

  it("searches by prefix on name and uid, restricted by searchIn", async () => {
    await addUsers();
    const both = await e.get("/v3/users?searchKey=al");
    expect(both.body.data.map((u: any) => u.uid)).toEqual(["alice", "alan"]);
    const byName = await e.get("/v3/users?searchKey=al&searchIn=name");
    expect(byName.body.data.map((u: any) => u.uid)).toEqual(["alice"]);
    const byUid = await e.get("/v3/users?searchKey=AL&searchIn=uid");
    expect(byUid.body.data.map((u: any) => u.uid)).toEqual(["alice", "alan"]);
    const notInfix = await e.get("/v3/users?searchKey=lan&searchIn=name,uid");
    expect(notInfix.body.data).toEqual([]);
    expect(both.body.meta.pagination.total).toBe(2);
  });

  it("filters by tags (any of them) and shows tags only with withTags", async () => {
    await addUsers();
    const a = await e.get("/v3/users?tags=team-a");
    expect(a.body.data.map((u: any) => u.uid)).toEqual(["alice", "bob"]);
    expect(a.body.data[0]).not.toHaveProperty("tags");
    const ab = await e.get("/v3/users?tags=team-a,team-b&withTags=true");
    expect(ab.body.data.map((u: any) => [u.uid, u.tags])).toEqual([
      ["alice", ["team-a"]],
      ["bob", ["team-a", "team-b"]],
      ["alan", ["team-b"]],
    ]);
    const repeated = await e.get("/v3/users?tags=team-b&tags=nope");
    expect(repeated.body.data.map((u: any) => u.uid)).toEqual(["bob", "alan"]);
  });

  it("filters by role and roles, and by status", async () => {
    await addUsers();
    const role = await e.get("/v3/users?role=default&perPage=3");
    expect(role.body.meta.pagination.total).toBe(8);
    expect(role.body.data).toHaveLength(3);
    expect((await e.get("/v3/users?roles=nosuch,other")).body.data).toEqual([]);
    expect((await e.get("/v3/users?status=available")).body.data).toEqual([]);
    expect((await e.get("/v3/users?status=offline")).body.meta.pagination.total).toBe(8);
  });

  it("adds conversationId relative to the onBehalfOf user", async () => {
    const r = await e.get("/v3/users?perPage=2", { onBehalfOf: "superhero3" });
    expect(r.body.data.map((u: any) => u.conversationId)).toEqual([
      "superhero2_user_superhero3",
      "superhero3_user_superhero5",
    ]);
    expectError(await e.get("/v3/users", { onBehalfOf: "ghost" }), 404, "ERR_UID_NOT_FOUND");
  });
});

describe("deactivate (DELETE /users) and reactivate (PUT /users)", () => {
  it("deactivates with per-item results and hides the user", async () => {
    const r = await e.del("/v3/users", { uidsToDeactivate: ["superhero1", "ghost", "superhero2"] });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ deactivatedUids: ["superhero1", "superhero2"], notFound: ["ghost"] });
    const again = await e.del("/v3/users", { uidsToDeactivate: ["superhero1"] });
    expect(again.body.data).toEqual({ deactivatedUids: [], alreadyDeactivatedUids: ["superhero1"] });

    expectError(await e.get("/v3/users/superhero1"), 404, "ERR_UID_NOT_FOUND");
    expect((await e.get("/v3/users")).body.meta.pagination.total).toBe(3);
    const only = await e.get("/v3/users?onlyDeactivated=true");
    expect(only.body.data.map((u: any) => u.uid)).toEqual(["superhero2", "superhero1"]);
    expect(only.body.data[0].deactivatedAt).toEqual(expect.any(Number));
    expect((await e.get("/v3/users?withDeactivated=1")).body.meta.pagination.total).toBe(5);
    expectError(await e.get("/v3/users", { onBehalfOf: "superhero1" }), 404, "ERR_UID_NOT_FOUND");
  });

  it("reactivates with per-item results", async () => {
    await e.del("/v3/users", { uidsToDeactivate: ["superhero1"] });
    const r = await e.put("/v3/users", { uidsToActivate: ["superhero1", "ghost"] });
    expect(r.body.data).toEqual({ nonDeactivatedUids: ["superhero1"], notFound: ["ghost"] });
    expect((await e.get("/v3/users/superhero1")).status).toBe(200);
    expect((await e.get("/v3/users")).body.meta.pagination.total).toBe(5);
  });

  it("validates the uid lists", async () => {
    const err = expectError(await e.del("/v3/users", {}), 400, "ERR_BAD_REQUEST");
    expect(err.details).toEqual({ uidsToDeactivate: ["The uidsToDeactivate field is required."] });
    expectError(await e.put("/v3/users", { uidsToActivate: "superhero1" }), 400, "ERR_BAD_REQUEST");
  });
});

describe("GET /users/{uid}", () => {
  it("gets a user case-insensitively, with conversationId for onBehalfOf", async () => {
    const r = await e.get("/v3/users/SuperHero2", { onBehalfOf: "superhero1" });
    expect(r.body.data).toEqual({
      uid: "superhero2",
      name: "Captain America",
      avatar: "https://data-us.cometchat.io/assets/images/avatars/captainamerica.png",
      status: "offline",
      role: "default",
      createdAt: expect.any(Number),
      conversationId: "superhero1_user_superhero2",
    });
  });

  it("answers ERR_UID_NOT_FOUND with the platform's lower-cased message", async () => {
    const err = expectError(await e.get("/v3/users/BabuInvalid"), 404, "ERR_UID_NOT_FOUND");
    expect(err.message).toBe(
      "The UID babuinvalid does not exist, please make sure you have created a user with UID babuinvalid.",
    );
    expect(err.devMessage).toBe(
      "The UID babuinvalid does not exist, so please make sure you have created a user with UID babuinvalid.",
    );
  });
});

describe("PUT /users/{uid}", () => {
  it("updates attributes, replaces tags and sets updatedAt", async () => {
    e.clock.freeze(1_700_000_000_000);
    const r = await e.put("/v3/users/superhero1", { name: "Tony Stark", tags: ["rich"], metadata: { a: 1 } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ uid: "superhero1", name: "Tony Stark", tags: ["rich"], metadata: { a: 1 }, updatedAt: 1_700_000_000 });
    const list = await e.get("/v3/users?searchKey=tony");
    expect(list.body.data.map((u: any) => u.uid)).toEqual(["superhero1"]);
    expect((await e.get("/v3/users?searchKey=iron")).body.data).toEqual([]);
  });

  it("unsets avatar, link and metadata", async () => {
    await e.put("/v3/users/superhero1", { link: "https://x.io", metadata: { a: 1 } });
    const r = await e.put("/v3/users/superhero1", { unset: ["avatar", "link", "metadata"] });
    expect(r.body.data).not.toHaveProperty("avatar");
    expect(r.body.data).not.toHaveProperty("link");
    expect(r.body.data).not.toHaveProperty("metadata");
    const bad = expectError(await e.put("/v3/users/superhero1", { unset: ["name"] }), 400, "ERR_BAD_REQUEST");
    expect(bad.details).toEqual({ "unset.0": ["The selected unset.0 is invalid."] });
  });

  it("says an empty name must have a value and checks the role", async () => {
    const err = expectError(await e.put("/v3/users/superhero1", { name: "" }), 400, "ERR_BAD_REQUEST");
    expect(err.details).toEqual({ name: ["The name field must have a value."] });
    const url = expectError(await e.put("/v3/users/superhero1", { avatar: "nope" }), 400, "ERR_BAD_REQUEST");
    expect(url.details).toEqual({ avatar: ["The avatar must be a valid URL."] });
    expectError(await e.put("/v3/users/superhero1", { role: "ghost-role" }), 404, "ERR_ROLE_NOT_FOUND");
    expectError(await e.put("/v3/users/nobody", { name: "x" }), 404, "ERR_UID_NOT_FOUND");
    expect((await e.get("/v3/users/superhero1")).body.data.name).toBe("Iron Man");
  });
});

describe("DELETE /users/{uid}", () => {
  // rest-api/users/delete.mdx: "By default, deleting a user only deactivates them."
  it("deactivates by default: listed as deactivated, the uid taken, active again with uidsToActivate", async () => {
    const r = await e.del("/v3/users/superhero5");
    expect(r.body).toEqual({ data: { success: true, message: "User with superhero5 has been deleted successfully." } });
    expect((await e.get("/v3/users?onlyDeactivated=true")).body.data.map((u: { uid: string }) => u.uid)).toEqual(["superhero5"]);
    expect((await e.get("/v3/users")).body.data.map((u: { uid: string }) => u.uid)).not.toContain("superhero5");
    expectError(await create({ uid: "superhero5", name: "again" }), 400, "ERR_UID_ALREADY_EXISTS");
    // Deactivated, its auth tokens no longer open the client plane.
    const reactivated = await e.put("/v3/users", { uidsToActivate: ["superhero5"] });
    expect(reactivated.body.data).toEqual({ nonDeactivatedUids: ["superhero5"] });
    expect((await e.get("/v3/users/superhero5")).body.data.uid).toBe("superhero5");
  });

  // rest-api/users/delete.mdx: "To permanently delete a user along with all their messages, conversations, and
  // associated data, you must include permanent: true."
  it("deletes permanently with the user's messages and one-on-one conversations", async () => {
    const dm = await e.post("/v3/messages", { receiver: "superhero2", receiverType: "user", data: { text: "mine" } }, { onBehalfOf: "superhero3" });
    const inGroup = await e.post("/v3/messages", { receiver: "supergroup", receiverType: "group", data: { text: "in the group" } }, { onBehalfOf: "superhero3" });
    const other = await e.post("/v3/messages", { receiver: "supergroup", receiverType: "group", data: { text: "someone else's" } }, { onBehalfOf: "superhero2" });
    expect((await e.del("/v3/users/superhero3", { permanent: true })).status).toBe(200);
    for (const m of [dm, inGroup]) expectError(await e.get(`/v3/messages/${m.body.data.id}`), 404, "ERR_MESSAGE_ID_NOT_FOUND");
    expect((await e.get(`/v3/messages/${other.body.data.id}`)).status).toBe(200);
    expectError(await e.get("/v3/users/superhero3/conversation", { onBehalfOf: "superhero2" }), 404, "ERR_UID_NOT_FOUND");
  });

  it("deletes permanently, also after a soft delete, freeing the uid", async () => {
    await e.post("/v3/users/superhero5/auth_tokens", {});
    await e.del("/v3/users/superhero5");
    expect((await e.del("/v3/users/superhero5", { permanent: true })).status).toBe(200);
    expect((await create({ uid: "superhero5", name: "New Cyclops" })).status).toBe(200);
    expect((await e.get("/v3/users/superhero5/auth_tokens")).body.data).toEqual([]);
    expectError(await e.del("/v3/users/nobody", { permanent: true }), 404, "ERR_UID_NOT_FOUND");
    expectError(await e.del("/v3/users/superhero4", { permanent: "yes" }), 400, "ERR_BAD_REQUEST");
  });
});
