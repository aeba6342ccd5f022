import { beforeEach, describe, expect, it } from "vitest";
import { emulator, expectError, type TestEmulator } from "./helpers.js";

let e: TestEmulator;
beforeEach(async () => {
  e = await emulator();
  e.clock.freeze(2_000_000_000_000);
});

const create = (body: Record<string, unknown>, onBehalfOf?: string) => e.post("/v3/groups", body, { onBehalfOf });

describe("POST /groups", () => {
  it("makes the onBehalfOf creator owner, admin and member, as in the reference example", async () => {
    const r = await create(
      {
        guid: "Project-Group",
        name: "Project Group",
        type: "public",
        description: "About the project",
        icon: "https://example.com/icon.png",
        tags: ["friends", "project"],
      },
      "superhero4",
    );
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      guid: "project-group",
      name: "Project Group",
      description: "About the project",
      icon: "https://example.com/icon.png",
      type: "public",
      scope: "admin",
      membersCount: 1,
      joinedAt: 2_000_000_000,
      conversationId: "group_project-group",
      hasJoined: true,
      createdAt: 2_000_000_000,
      owner: "superhero4",
      tags: ["friends", "project"],
    });
  });

  it("adds the members lists with their scopes and bans usersToBan; membersCount is the true count", async () => {
    const r = await create(
      {
        guid: "team",
        name: "Team",
        type: "private",
        owner: "superhero1",
        members: { admins: ["superhero2"], moderators: ["superhero3"], participants: ["superhero4"], usersToBan: ["superhero5"] },
      },
    );
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ owner: "superhero1", membersCount: 4, scope: "admin", hasJoined: true });
    const list = await e.get("/v3/groups/team/members");
    expect(list.body.data.map((m: any) => [m.uid, m.scope])).toEqual([
      ["superhero1", "admin"],
      ["superhero2", "admin"],
      ["superhero3", "moderator"],
      ["superhero4", "participant"],
    ]);
    const banned = await e.get("/v3/groups/team/bannedusers");
    expect(banned.body.data.map((u: any) => u.uid)).toEqual(["superhero5"]);
  });

  it("without onBehalfOf or owner the app creates an ownerless, memberless group", async () => {
    const r = await create({ guid: "lobby", name: "Lobby", type: "public" });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      guid: "lobby",
      name: "Lobby",
      type: "public",
      membersCount: 0,
      conversationId: "group_lobby",
      hasJoined: false,
      createdAt: 2_000_000_000,
    });
  });

  it("never shows the password of a password group and needs one (ERR_EMPTY_GROUP_PASS)", async () => {
    const refused = await create({ guid: "secret", name: "Secret", type: "password" });
    expectError(refused, 400, "ERR_EMPTY_GROUP_PASS");
    expect((await e.get("/v3/groups/secret")).status).toBe(404);
    const r = await create({ guid: "secret", name: "Secret", type: "password", password: "hunter2" });
    expect(r.status).toBe(200);
    expect(JSON.stringify(r.body)).not.toContain("hunter2");
  });

  it("refuses a duplicate guid with 400 ERR_GUID_ALREADY_EXISTS (case-insensitively)", async () => {
    expectError(await create({ guid: "SuperGroup", name: "x", type: "public" }), 400, "ERR_GUID_ALREADY_EXISTS");
  });

  it("validates the body with the platform's sentences and creates nothing", async () => {
    const r = await create({ guid: "bad guid!", type: "open", tags: [""], icon: "not a url" });
    const error = expectError(r, 400, "ERR_BAD_REQUEST");
    expect(error.details).toEqual({
      guid: ["The guid may only contain letters, numbers, and dashes."],
      name: ["The name field is required."],
      type: ["The selected type is invalid."],
      icon: ["The icon must be a valid URL."],
      "tags.0": ["The tags.0 field is required."],
    });
    const long = await create({ guid: "g".repeat(101), name: "n", type: "public" });
    expect(expectError(long, 400, "ERR_BAD_REQUEST").details).toEqual({ guid: ["The guid may not be greater than 100 characters."] });
    const members = await create({ guid: "m", name: "n", type: "public", members: { admins: "superhero1" } });
    expect(expectError(members, 400, "ERR_BAD_REQUEST").details).toEqual({ "members.admins": ["The members.admins must be an array."] });
    // `members` holds the four lists and nothing else (additionalProperties: false): a misspelt list is refused.
    const misspelt = await create({ guid: "m", name: "n", type: "public", members: { participant: ["superhero2"], owners: [] } });
    expect(expectError(misspelt, 400, "ERR_BAD_REQUEST").details).toEqual({
      "members.participant": ["The members.participant field is not allowed."],
      "members.owners": ["The members.owners field is not allowed."],
    });
    expect((await e.get("/v3/groups?perPage=100")).body.meta.pagination.total).toBe(1);
  });

  it("refuses an unknown owner or onBehalfOf without creating the group", async () => {
    expectError(await create({ guid: "g1", name: "G", type: "public", owner: "nobody" }), 404, "ERR_UID_NOT_FOUND");
    expectError(await create({ guid: "g1", name: "G", type: "public" }, "nobody"), 404, "ERR_UID_NOT_FOUND");
    expectError(await e.get("/v3/groups/g1"), 404, "ERR_GUID_NOT_FOUND");
  });

  // rest-api/groups.mdx: "Failure to adding a member or banning a user does not result into create group API
  // failure. However, the individual member failure can be seen in the error objects in members."
  it("creates the group when a member cannot be added, and reports each member's result in its scope", async () => {
    const made = await create({ guid: "g1", name: "G", type: "public", members: { participants: ["superhero2", "ghost-user"], usersToBan: ["ghost2"] } });
    expect(made.status).toBe(200);
    expect(made.body.data.guid).toBe("g1");
    const { members } = made.body.data;
    expect(Object.keys(members).sort()).toEqual(["admins", "moderators", "participants", "usersToBan"]);
    expect(members.participants.superhero2).toMatchObject({ success: true });
    expect(members.participants["ghost-user"]).toMatchObject({ success: false, error: { code: "ERR_UID_NOT_FOUND" } });
    expect(members.usersToBan.ghost2).toMatchObject({ success: false, error: { code: "ERR_UID_NOT_FOUND" } });
    const list = await e.get("/v3/groups/g1/members");
    expect(list.body.data.map((m: { uid: string }) => m.uid)).toEqual(["superhero2"]);
    // Without members, the answer is the group alone.
    expect((await create({ guid: "g2", name: "G2", type: "public" })).body.data.members).toBeUndefined();
  });

  // rest-api/groups.mdx: "If the same UID is added to more than one members array then the UID will get the scopes
  // in the order below admin, moderator, participant ... it will appear in the only members.admins property".
  it("gives a uid named in several lists the first scope of admin, moderator, participant, and reports it there only", async () => {
    const made = await create({ guid: "g3", name: "G", type: "public", members: { admins: ["superhero3"], moderators: ["superhero3"], usersToBan: ["superhero3"] } });
    expect(made.body.data.members.admins.superhero3).toMatchObject({ success: true });
    expect(made.body.data.members.moderators).toEqual({});
    expect(made.body.data.members.usersToBan).toEqual({});
  });

  // rest-api/groups.mdx: "A maximum of 25 users can be added across all the scopes of member objects."
  it("refuses more than 25 users across the member lists, creating nothing", async () => {
    const uids = (n: number, p: string) => Array.from({ length: n }, (_, i) => `${p}${i}`);
    const refused = await create({ guid: "g4", name: "G", type: "public", members: { participants: uids(20, "p"), moderators: uids(6, "m") } });
    expectError(refused, 400, "ERR_BAD_REQUEST");
    expect(refused.body.error.details).toEqual({ members: ["At most 25 users can be added in one request, across all scopes; 26 were given."] });
    expectError(await e.get("/v3/groups/g4"), 404, "ERR_GUID_NOT_FOUND");
    expect((await create({ guid: "g4", name: "G", type: "public", members: { participants: uids(25, "p") } })).status).toBe(200);
  });

  it("the Auth Key cannot create groups", async () => {
    expectError(await e.post("/v3/groups", { guid: "g", name: "G", type: "public" }, { key: "061e844075e79a243c805c3185aaea9329233aca" }), 403, "AUTH_ERR_NO_ACCESS");
  });
});

describe("GET /groups/{guid}", () => {
  it("shows the seeded supergroup with caller-relative fields for onBehalfOf", async () => {
    const plain = await e.get("/v3/groups/supergroup");
    expect(plain.status).toBe(200);
    expect(plain.body.data).toEqual({
      guid: "supergroup",
      name: "Comic Heros' Hangout",
      icon: "https://data-us.cometchat.io/assets/images/avatars/supergroup.png",
      type: "public",
      membersCount: 3,
      conversationId: "group_supergroup",
      hasJoined: false,
      createdAt: expect.any(Number),
      owner: "superhero1",
    });
    const member = await e.get("/v3/groups/supergroup", { onBehalfOf: "superhero2" });
    expect(member.body.data).toMatchObject({ scope: "participant", hasJoined: true, joinedAt: expect.any(Number) });
    const outsider = await e.get("/v3/groups/supergroup", { onBehalfOf: "superhero5" });
    expect(outsider.body.data.hasJoined).toBe(false);
    expect(outsider.body.data).not.toHaveProperty("scope");
  });

  it("answers 404 ERR_GUID_NOT_FOUND for an unknown guid", async () => {
    const error = expectError(await e.get("/v3/groups/nope"), 404, "ERR_GUID_NOT_FOUND");
    expect(error.message).toContain("nope");
  });
});

describe("PUT /groups/{guid}", () => {
  it("updates attributes, replaces tags, unsets fields and stamps updatedAt/updatedBy", async () => {
    await create({ guid: "g", name: "G", type: "public", description: "d", icon: "https://x.io/i.png", metadata: { a: 1 }, tags: ["a"] }, "superhero1");
    e.clock.advance(60);
    const r = await e.put("/v3/groups/g", { name: "G2", tags: ["b", "c"], unset: ["icon", "metadata"] }, { onBehalfOf: "superhero1" });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ name: "G2", description: "d", tags: ["b", "c"], updatedAt: 2_000_000_060, updatedBy: "superhero1" });
    expect(r.body.data).not.toHaveProperty("icon");
    expect(r.body.data).not.toHaveProperty("metadata");
    const app = await e.put("/v3/groups/g", { description: "by app" });
    expect(app.body.data.updatedBy).toBe("app_system");
  });

  it("ignores owner when onBehalfOf is present and transfers ownership when the app asks", async () => {
    const ignored = await e.put("/v3/groups/supergroup", { owner: "superhero2" }, { onBehalfOf: "superhero1" });
    expect(ignored.body.data.owner).toBe("superhero1");
    const moved = await e.put("/v3/groups/supergroup", { owner: "superhero5" });
    expect(moved.body.data).toMatchObject({ owner: "superhero5", membersCount: 4 });
    // sdk/javascript/transfer-group-ownership.mdx: "The new owner gets admin scope and the previous owner becomes a
    // participant."
    const members = await e.get("/v3/groups/supergroup/members?scopes=admin");
    expect(members.body.data.map((m: any) => m.uid)).toEqual(["superhero5"]);
    const former = (await e.get("/v3/groups/supergroup/members?scopes=participant")).body.data.find((m: any) => m.uid === "superhero1");
    expect(former).toMatchObject({ uid: "superhero1", scope: "participant" });
    const actions = await e.get("/v3/groups/supergroup/messages?category=action&limit=5");
    expect(actions.body.data.map((m: any) => [m.data.action, m.data.entities.on.entity.uid, m.data.newScope ?? m.data.extras?.scope?.new])).toContainEqual(["scopeChanged", "superhero1", "participant"]);
  });

  it("needs a password to become a password group, and drops it when leaving that type", async () => {
    expectError(await e.put("/v3/groups/supergroup", { type: "password" }), 400, "ERR_EMPTY_GROUP_PASS");
    expect((await e.get("/v3/groups/supergroup")).body.data.type).toBe("public");
    expect((await e.put("/v3/groups/supergroup", { type: "password", password: "pw" })).body.data.type).toBe("password");
    expect((await e.put("/v3/groups/supergroup", { name: "Renamed" })).status).toBe(200);
    expect((await e.put("/v3/groups/supergroup", { type: "private" })).body.data.type).toBe("private");
    expect(e.store.defaultApp!.groups.get("supergroup")!.password).toBeUndefined();
  });

  it("on behalf of a user needs the admin scope", async () => {
    expectError(await e.put("/v3/groups/supergroup", { name: "x" }, { onBehalfOf: "superhero2" }), 403, "ERR_GROUP_NO_ADMIN_SCOPE");
    expectError(await e.put("/v3/groups/supergroup", { name: "x" }, { onBehalfOf: "superhero5" }), 403, "ERR_GROUP_NOT_JOINED");
    expect((await e.get("/v3/groups/supergroup")).body.data.name).toBe("Comic Heros' Hangout");
  });

  it("validates: empty name, bad unset item, unknown group", async () => {
    const r = await e.put("/v3/groups/supergroup", { name: "", unset: ["name"] });
    expect(expectError(r, 400, "ERR_BAD_REQUEST").details).toEqual({
      name: ["The name field must have a value."],
      "unset.0": ["The selected unset.0 is invalid."],
    });
    expectError(await e.put("/v3/groups/nope", { name: "x" }), 404, "ERR_GUID_NOT_FOUND");
  });
});

describe("DELETE /groups/{guid}", () => {
  it("deletes the group with its members, and the guid becomes free", async () => {
    const r = await e.del("/v3/groups/supergroup");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: { success: true, message: "Group with guid supergroup has been deleted successfully." } });
    expectError(await e.get("/v3/groups/supergroup"), 404, "ERR_GUID_NOT_FOUND");
    expect(e.store.defaultApp!.groups.groupsOf("superhero2").size).toBe(0);
    expect((await create({ guid: "supergroup", name: "Again", type: "public" })).body.data.membersCount).toBe(0);
  });

  it("on behalf of a non-admin is refused", async () => {
    expectError(await e.del("/v3/groups/supergroup", undefined, { onBehalfOf: "superhero3" }), 403, "ERR_GROUP_NO_ADMIN_SCOPE");
    expect((await e.del("/v3/groups/supergroup", undefined, { onBehalfOf: "superhero1" })).status).toBe(200);
    expectError(await e.del("/v3/groups/supergroup"), 404, "ERR_GUID_NOT_FOUND");
  });
});

describe("GET /groups", () => {
  beforeEach(async () => {
    const groups = [
      { guid: "alpha", name: "Zeta Squad", type: "public", tags: ["x"] },
      { guid: "bravo", name: "alpha team", type: "private", tags: ["y"] },
      { guid: "charlie", name: "Mid Group", type: "password", password: "p", tags: ["x", "y"] },
    ];
    for (const g of groups) {
      e.clock.advance(10);
      await create(g, g.guid === "bravo" ? "superhero5" : undefined);
    }
  });

  const guids = (r: any) => r.body.data.map((g: any) => g.guid);

  it("lists by name by default with the page envelope and a cursor", async () => {
    const r = await e.get("/v3/groups");
    expect(r.status).toBe(200);
    expect(guids(r)).toEqual(["bravo", "supergroup", "charlie", "alpha"]);
    expect(r.body.meta.pagination).toEqual({ total: 4, count: 4, per_page: 100, current_page: 1, total_pages: 1 });
    expect(r.body.meta.cursor).toEqual({ updatedAt: expect.any(Number), affix: "append" });
    expect(r.body.cursor).toEqual(r.body.meta.cursor);
    expect(r.body.data[0]).not.toHaveProperty("tags");
  });

  it("sorts by guid and createdAt in both orders and pages", async () => {
    expect(guids(await e.get("/v3/groups?sortBy=guid&sortOrder=desc"))).toEqual(["supergroup", "charlie", "bravo", "alpha"]);
    expect(guids(await e.get("/v3/groups?sortBy=createdAt"))).toEqual(["supergroup", "alpha", "bravo", "charlie"]);
    const p2 = await e.get("/v3/groups?sortBy=guid&perPage=3&page=2");
    expect(guids(p2)).toEqual(["supergroup"]);
    expect(p2.body.meta.pagination).toEqual({ total: 4, count: 1, per_page: 3, current_page: 2, total_pages: 2 });
  });

  it("filters by search (name and guid prefixes), type, types, tags and withTags", async () => {
    expect(guids(await e.get("/v3/groups?searchKey=alpha"))).toEqual(["bravo", "alpha"]);
    expect(guids(await e.get("/v3/groups?searchKey=alpha&searchIn=guid"))).toEqual(["alpha"]);
    expect(guids(await e.get("/v3/groups?type=private"))).toEqual(["bravo"]);
    expect(guids(await e.get("/v3/groups?types=private,password"))).toEqual(["bravo", "charlie"]);
    const tagged = await e.get("/v3/groups?tags=x&withTags=true");
    expect(guids(tagged)).toEqual(["charlie", "alpha"]);
    expect(tagged.body.data[0].tags).toEqual(["x", "y"]);
    expect(guids(await e.get("/v3/groups?tags=y&type=password"))).toEqual(["charlie"]);
  });

  it("hasJoined lists the onBehalfOf user's groups and needs the header", async () => {
    expect(guids(await e.get("/v3/groups?hasJoined=true", { onBehalfOf: "superhero5" }))).toEqual(["bravo"]);
    const all = await e.get("/v3/groups?hasJoined=false", { onBehalfOf: "superhero5" });
    expect(all.body.data).toHaveLength(4);
    expect(all.body.data.find((g: any) => g.guid === "bravo")).toMatchObject({ scope: "admin", hasJoined: true });
    expect(expectError(await e.get("/v3/groups?hasJoined=true"), 400, "ERR_BAD_REQUEST").details).toHaveProperty("onBehalfOf");
  });

  it("updatedAt with affix returns groups touched after or before that time", async () => {
    const t = 2_000_000_020; // bravo's creation
    expect(guids(await e.get(`/v3/groups?updatedAt=${t}&affix=append&sortBy=createdAt`))).toEqual(["charlie"]);
    expect(guids(await e.get(`/v3/groups?updatedAt=${t}&affix=prepend&sortBy=createdAt`))).toEqual(["supergroup", "alpha"]);
  });

  it("refuses bad query values with ERR_BAD_REQUEST", async () => {
    const r = await e.get("/v3/groups?sortBy=size&sortOrder=up&perPage=1001&type=open&withTags=maybe");
    expect(Object.keys(expectError(r, 400, "ERR_BAD_REQUEST").details!).sort()).toEqual(["perPage", "sortBy", "sortOrder", "type", "withTags"]);
  });
});
