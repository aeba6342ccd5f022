import { expect, it } from "vitest";
import { createUser, listUids } from "../src/chat.js";

// Both files create "alice": the second would fail with ERR_UID_ALREADY_EXISTS if state leaked between files.
it("signs up a user", async () => {
  expect(await createUser("alice", "Alice")).toMatchObject({ uid: "alice", name: "Alice" });
  expect(await listUids()).toContain("alice");
});
