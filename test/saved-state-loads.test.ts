import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SeedError } from "../src/index.js";
import { parseState } from "../src/store/seed.js";
import { APP_ID, emulator, expectError, type TestEmulator } from "./helpers.js";
import { actionSeed, BAD_PATTERNS, BAD_SEEDS, keywordList, moderationSeed, patternRule } from "./seed-cases.js";
import { tempDir } from "./tmp.helpers.js";

// A state the emulator wrote must load again: through PUT /_emulator/state, a snapshot and a --data restart.

const opened: TestEmulator[] = [];
afterEach(() => {
  for (const e of opened.splice(0)) e.persistence?.close();
});

async function started(data?: string): Promise<TestEmulator> {
  const e = await emulator(data ? { data } : {});
  opened.push(e);
  return e;
}

const exported = async (e: TestEmulator) => (await e.get("/_emulator/state", { key: null })).body;

/** Puts `state` into a fresh emulator (answered 200) and returns that emulator. */
async function reloaded(state: unknown): Promise<TestEmulator> {
  const again = await started();
  const put = await again.put("/_emulator/state", state, { key: null });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  return again;
}

/** A group `team` owned by `boss`, with `ann` an admin and `bob` a participant. */
async function team(e: TestEmulator) {
  for (const uid of ["boss", "ann", "bob"]) expect((await e.post("/v3/users", { uid, name: uid })).status).toBe(200);
  const created = await e.post("/v3/groups", { guid: "team", name: "Team", type: "public", owner: "boss", members: { admins: ["ann"], participants: ["bob"] } });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
}

describe("a group whose owner left its members", () => {
  const removals: [string, (e: TestEmulator) => Promise<unknown>][] = [
    ["the owner is deleted permanently", (e) => e.del("/v3/users/boss", { permanent: true })],
    ["the owner is kicked with the API key", (e) => e.del("/v3/groups/team/members/boss")],
    ["the owner is banned with the API key", (e) => e.post("/v3/groups/team/bannedusers/boss")],
  ];

  for (const [name, remove] of removals)
    it(`keeps its owner, and its state loads again, when ${name}`, async () => {
      const e = await started();
      await team(e);
      const r = (await remove(e)) as { status: number; body: unknown };
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const shown = (await e.get("/v3/groups/team")).body.data;
      expect(shown).toMatchObject({ guid: "team", owner: "boss", membersCount: 2 });

      const again = await reloaded(await exported(e));
      expect((await again.get("/v3/groups/team")).body.data).toEqual(shown);
      expect((await again.get("/v3/groups/team/members")).body.data.map((m: { uid: string }) => m.uid).sort()).toEqual(["ann", "bob"]);
    });

  it("loads from a snapshot and after a --data restart, and ownership can be handed to a member again", async () => {
    const file = join(tempDir("owner-gone"), "state.json");
    const e = await started(file);
    await team(e);
    expect((await e.del("/v3/users/boss", { permanent: true })).status).toBe(200);
    expect((await e.post("/_emulator/snapshots/gone", undefined, { key: null })).status).toBe(201);
    expect((await e.post("/_emulator/snapshots/gone/restore", undefined, { key: null })).status).toBe(200);
    await e.persistence!.flush();
    e.persistence!.close();

    const restarted = await started(file);
    expect((await restarted.get("/v3/groups/team")).body.data).toMatchObject({ owner: "boss", membersCount: 2 });
    expect((await restarted.put("/v3/groups/team", { owner: "ann" })).status).toBe(200);
    expect((await restarted.get("/v3/groups/team")).body.data.owner).toBe("ann");
  });
});

describe("user patterns in a seed or state file are checked at load", () => {
  const app = moderationSeed;
  const list = keywordList;
  const rule = patternRule;
  const load = (doc: unknown) => parseState(doc, 1_700_000_000, "seed.json");
  const refused = (doc: unknown): SeedError => {
    try {
      load(doc);
    } catch (e) {
      expect(e).toBeInstanceOf(SeedError);
      return e as SeedError;
    }
    throw new Error("the seed was accepted");
  };

  it("refuses a keyword list's pattern RE2 cannot run, naming the term", () => {
    const e = refused(BAD_PATTERNS.backReference.doc);
    expect(e.path).toBe("apps[0].moderation.keywordLists[0].searchTerms[1]");
    expect(e.message).toContain(BAD_PATTERNS.backReference.error);
  });

  it("refuses a rule condition's pattern, a pattern too large, and patterns too large together", () => {
    expect(refused(BAD_PATTERNS.lookahead.doc).path).toBe("apps[0].moderation.rules[0].revisions[0].conditions[0].value[0]");
    expect(refused(BAD_PATTERNS.tooLarge.doc).message).toContain(BAD_PATTERNS.tooLarge.error);
    const e = refused(BAD_PATTERNS.tooLargeTogether.doc);
    expect(e.path).toBe("apps[0].moderation.keywordLists[0].searchTerms");
    expect(e.message).toContain(BAD_PATTERNS.tooLargeTogether.error);
  });

  it("refuses a data file with such a pattern, leaving it untouched", async () => {
    const file = join(tempDir("bad-pattern"), "state.json");
    const text = JSON.stringify({ format: "chat-emulator/state@1", ...app({ keywordLists: [list(["(?!x)"])] }) });
    writeFileSync(file, text);
    await expect(emulator({ data: file })).rejects.toThrow(/apps\[0\]\.moderation\.keywordLists\[0\]\.searchTerms\[0\] is not a valid RE2 pattern/);
    expect(readFileSync(file, "utf8")).toBe(text);
  });

  it("takes words (not patterns) and keyword-list references as they are", () => {
    expect(() => load(app({ keywordLists: [list(["(a)\\1"], "word")], rules: [rule(["l1"], { isKeywordsReferencePresent: true })] }))).not.toThrow();
  });

  it("refuses a data-masking mask that is unusable or matches empty text", () => {
    const e = refused(BAD_PATTERNS.lookbehindMask.doc);
    expect(e.path).toBe("apps[0].management.extensions.data-masking.settings.customregexData[1].regex");
    expect(refused(BAD_PATTERNS.emptyMask.doc).message).toContain(BAD_PATTERNS.emptyMask.error);
    expect(refused(BAD_PATTERNS.numberMask.doc).message).toContain("must be a string");
  });

  it("loads every pattern the REST routes accepted (state round trip)", async () => {
    const e = await started();
    const key = await e.post("/v3/moderation/keywords", { id: "pats", name: "Pats", category: "pattern", searchTerms: ["\\d{3}-\\d{4}", "[a-z]+@x\\.com"] });
    expect(key.status, JSON.stringify(key.body)).toBe(200);
    const ruled = await e.post("/v3/moderation/rules", {
      id: "phones",
      name: "Phones",
      enabled: true,
      conditions: [{ operand: "text", category: "pattern", operator: "contains", value: ["\\+\\d{10}"] }],
      action: ["blockMessage"],
    });
    expect(ruled.status, JSON.stringify(ruled.body)).toBe(200);
    const ext = `/apps/${APP_ID}/extensions`;
    expect((await e.mgmt("POST", ext, { enabled: ["data-masking"] })).status).toBe(200);
    const stored = await e.mgmt("PUT", `${ext}/data-masking/v1/settings`, { settings: { dropMessage: false, customregexData: [{ name: "pin", regex: "PIN\\d{4}" }] } });
    expect(stored.status, JSON.stringify(stored.body)).toBeLessThan(300);
    const long = await e.post("/v3/moderation/keywords", { id: "long", name: "Long", searchTerms: ["w".repeat(500)] });
    expect(long.status, JSON.stringify(long.body)).toBe(200);
    const bad = await e.post("/v3/moderation/keywords", { id: "bad", name: "Bad", category: "pattern", searchTerms: ["(a)\\1"] });
    expectError(bad, 400, "ERR_BAD_REQUEST");

    const state = await exported(e);
    expect(JSON.stringify(state)).toContain("PIN\\\\d{4}");
    const again = await reloaded(state);
    expect((await again.get("/v3/moderation/keywords/pats")).body.data.searchTerms).toEqual(["\\d{3}-\\d{4}", "[a-z]+@x\\.com"]);
  });
});

describe("an action on a one-on-one message by someone outside the conversation", () => {
  it("stays in that conversation when the state loads again (a delete and an edit by the API, sent by app_system)", async () => {
    const e = await started();
    const send = async (text: string) =>
      (await e.post("/v3/messages", { receiver: "superhero2", receiverType: "user", data: { text } }, { onBehalfOf: "superhero1" })).body.data.id;
    const edited = await send("to be edited");
    const deleted = await send("to be deleted");
    expect((await e.put(`/v3/messages/${edited}`, { data: { text: "edited" } })).status).toBe(200);
    expect((await e.del(`/v3/messages/${deleted}`)).status).toBe(200);
    const state = await exported(e);
    const actions = state.apps[0].messages.filter((m: { category: string; sender: string }) => m.category === "action" && m.sender === "app_system");
    expect(actions.map((m: { conversationId: string }) => m.conversationId)).toEqual(["superhero1_user_superhero2", "superhero1_user_superhero2"]);
    expect(await exported(await reloaded(state))).toEqual(state);
  });

  it("in a seed file, refuses such a conversation naming an unknown user (a state file may name users deleted since)", () => {
    expect(parseState(actionSeed("u1_user_u2"), 1_700_000_000, "seed.json")[0].messages[0].conversationId).toBe("u1_user_u2");
    const { actionWithStranger } = BAD_SEEDS;
    expect(() => parseState(actionWithStranger.doc, 1_700_000_000, "seed.json")).toThrow(actionWithStranger.error);
  });
});
