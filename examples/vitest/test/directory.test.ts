import { expect, inject, it } from "vitest";
import { createUser, listUids } from "../src/chat.js";

it("starts from the seed: the sample users and no one else", async () => {
  expect((await listUids()).sort()).toEqual(["superhero1", "superhero2", "superhero3", "superhero4", "superhero5"]);
});

it("creates its own alice", async () => {
  await createUser("alice", "Alice Again");
  expect(await listUids()).toContain("alice");
});

it("can read the emulator's addresses through inject() as well", () => {
  expect(inject("chatEmulator").env.CHAT_EMULATOR_URL).toBe(process.env.CHAT_EMULATOR_URL);
});
