import { beforeEach, describe, expect, it } from "vitest";
import { emulator, expectError, type TestEmulator } from "./helpers.js";

let e: TestEmulator;
beforeEach(async () => {
  e = await emulator();
  e.clock.freeze(2_000_000_000_000);
});

const createRole = (body: Record<string, unknown>) => e.post("/v3/roles", body);

describe("roles", () => {
  it("creates, gets, lists (with the built-in default), updates and deletes", async () => {
    const r = await createRole({ role: "manager", name: "manager", description: "Managers", metadata: { email: "managers@gmail.com" }, settings: { listUsers: "all", sendMessagesTo: "friendsOnly" } });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      role: "manager",
      name: "manager",
      description: "Managers",
      metadata: { email: "managers@gmail.com" },
      settings: { listUsers: "all", sendMessagesTo: "friendsOnly" },
      createdAt: 2_000_000_000,
    });
    expect((await e.get("/v3/roles/manager")).body.data.name).toBe("manager");
    const list = await e.get("/v3/roles");
    expect(list.body.data[0]).toEqual({ role: "default", name: "Default Role", description: "This role gives full access ", createdAt: expect.any(Number) });
    expect(list.body.meta.pagination.total).toBe(2);
    e.clock.advance(5);
    const u = await e.put("/v3/roles/manager", { name: "Manager", unset: ["metadata", "description"] });
    expect(u.body.data).toEqual({ role: "manager", name: "Manager", settings: { listUsers: "all", sendMessagesTo: "friendsOnly" }, createdAt: 2_000_000_000, updatedAt: 2_000_000_005 });
    const d = await e.del("/v3/roles/manager");
    expect(d.body).toEqual({ data: { success: true, message: "Role manager has been deleted successfully." } });
    expectError(await e.get("/v3/roles/manager"), 404, "ERR_ROLE_NOT_FOUND");
  });

  it("refuses duplicates, unknown roles, the default role's deletion and bad input", async () => {
    await createRole({ role: "mod", name: "Mod" });
    expectError(await createRole({ role: "MOD", name: "Again" }), 400, "ERR_ROLE_ALREADY_EXISTS");
    expectError(await createRole({ role: "default", name: "x" }), 400, "ERR_ROLE_ALREADY_EXISTS");
    expectError(await e.del("/v3/roles/default"), 403, "ERR_ROLE_DELETE_DENIED");
    expectError(await e.put("/v3/roles/ghost", { name: "x" }), 404, "ERR_ROLE_NOT_FOUND");
    const bad = await createRole({ role: "bad role", settings: { listUsers: "some" } });
    expect(expectError(bad, 400, "ERR_BAD_REQUEST").details).toEqual({
      role: ["The role may only contain letters, numbers, and dashes."],
      name: ["The name field is required."],
      "settings.listUsers": ["The selected settings.listUsers is invalid."],
    });
  });

  it("a user's role must exist; deleting a role moves its users to default", async () => {
    expectError(await e.post("/v3/users", { uid: "x1", name: "X", role: "ghost" }), 404, "ERR_ROLE_NOT_FOUND");
    await createRole({ role: "vip", name: "VIP" });
    await e.put("/v3/users/superhero1", { role: "vip" });
    await e.del("/v3/roles/vip");
    expect((await e.get("/v3/users/superhero1")).body.data.role).toBe("default");
    expect((await e.get("/v3/users?role=vip")).body.data).toEqual([]);
  });

  it("restricts, lists and allows features", async () => {
    await createRole({ role: "guest", name: "Guest" });
    const r = await e.post("/v3/roles/guest/restrictedfeatures", { featuresToRestrict: ["u.listUsers", "u.deleteGroup", "u.nope"] });
    expect(r.body.data).toEqual({
      "u.listUsers": { success: true, message: "The feature u.listUsers has been restricted successfully." },
      "u.deleteGroup": { success: true, message: "The feature u.deleteGroup has been restricted successfully." },
      "u.nope": { success: false, message: "The feature u.nope does not exist." },
    });
    const list = await e.get("/v3/roles/guest/restrictedfeatures");
    expect(list.body.data).toEqual([
      { title: "List Users", description: "Allows logged-in user to fetch the user list.", key: "u.listUsers", path: "/v3/users", createdAt: 2_000_000_000 },
      { title: "Delete Group", description: "Allows logged-in user to delete a group.", key: "u.deleteGroup", path: "/v3/groups/{{guid}}", createdAt: 2_000_000_000 },
    ]);
    const allow = await e.del("/v3/roles/guest/restrictedfeatures", { featuresToAllow: ["u.listUsers"] });
    expect(allow.body).toEqual({ data: { success: true, message: "The feature has been allowed successfully." } });
    expect((await e.get("/v3/roles/guest/restrictedfeatures")).body.data.map((f: any) => f.key)).toEqual(["u.deleteGroup"]);
    await e.del("/v3/roles/guest/restrictedfeatures", { allowAll: true });
    expect((await e.get("/v3/roles/guest/restrictedfeatures")).body.data).toEqual([]);
    expectError(await e.del("/v3/roles/guest/restrictedfeatures", {}), 400, "ERR_BAD_REQUEST");
    expectError(await e.post("/v3/roles/guest/restrictedfeatures", {}), 400, "ERR_BAD_REQUEST");
  });

  it("lists, sets (merging) and unsets role permissions", async () => {
    const list = await e.get("/v3/roles/default/permissions");
    expect(list.body.data.find((p: any) => p.id === "createGroup")).toEqual({
      id: "createGroup",
      type: "role",
      title: expect.any(String),
      description: expect.any(String),
      dataType: "string",
      availableValues: ["allow", "deny"],
      defaultValue: "allow",
      value: "allow",
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    expect(list.body.meta.pagination.total).toBe(29);
    const set = await e.put("/v3/roles/default/permissions", { permissions: { createGroup: "allow", "listUsers.mode": "friends", "createGroup.allowedGroupTypes": ["public"], bogus: "x", sendMessage: "maybe" } });
    expect(set.body.data.createGroup).toEqual({ success: true, message: "Permission with id createGroup have been mapped successfully to role default." });
    expect(set.body.data.bogus.success).toBe(false);
    expect(set.body.data.sendMessage.success).toBe(false);
    expect(set.body.data.permissions).toEqual({ createGroup: "allow", "listUsers.mode": "friends", "createGroup.allowedGroupTypes": ["public"] });
    const unset = await e.del("/v3/roles/default/permissions/listUsers.mode");
    expect(unset.body).toEqual({ data: { permissions: { createGroup: "allow", "createGroup.allowedGroupTypes": ["public"] } } });
    expectError(await e.put("/v3/roles/default/permissions", {}), 400, "ERR_BAD_REQUEST");
  });

  it("lists, sets and unsets group scope permissions", async () => {
    const list = await e.get("/v3/groups/supergroup/scopes/participant/permissions");
    expect(list.body.data.map((p: any) => p.id)).toContain("addReaction");
    expect(list.body.data[0].type).toBe("scope");
    expect(list.body.meta.pagination.total).toBe(12);
    const set = await e.put("/v3/groups/supergroup/scopes/participant/permissions", { permissions: { sendMessage: "deny", "initiateCall.allowedType": "audio" } });
    expect(set.body.data.sendMessage).toEqual({ success: true, message: "Permission with id sendMessage have been mapped successfully to scope participant on group supergroup." });
    expect(set.body.data.permissions).toEqual({ sendMessage: "deny", "initiateCall.allowedType": ["audio"] });
    expect((await e.del("/v3/groups/supergroup/scopes/participant/permissions/sendMessage")).body.data).toEqual({ permissions: { "initiateCall.allowedType": ["audio"] } });
    expectError(await e.get("/v3/groups/supergroup/scopes/owner/permissions"), 400, "ERR_BAD_REQUEST");
    expectError(await e.get("/v3/groups/nope/scopes/admin/permissions"), 404, "ERR_GUID_NOT_FOUND");
  });
});
