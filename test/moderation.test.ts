import { beforeEach, describe, expect, it } from "vitest";
import { AUTH_KEY, emulator, expectError, MGMT, type TestEmulator } from "./helpers.js";

let e: TestEmulator;
let events: { trigger: string; data: any }[];
beforeEach(async () => {
  e = await emulator();
  e.clock.freeze(2_000_000_000_000);
  events = [];
  e.store.events.subscribe((ev) => events.push({ trigger: ev.trigger, data: ev.data() }));
  base = e.store.defaultApp.messages.lastId;
});

const triggers = () => events.map((ev) => ev.trigger);
const say = (receiver: string, text: string, from: string, receiverType = "user") =>
  e.post("/v3/messages", { receiver, receiverType, data: { text } }, { onBehalfOf: from });
const texts = (r: any) => r.body.data.map((m: any) => m.data.text ?? m.data.action);
/** The texts of a one-on-one conversation, after the sample data's messages. */
const dm = async (viewer: string, other: string) => {
  const r = await e.get(`/v3/users/${other}/messages?limit=50`, { onBehalfOf: viewer });
  return { body: { data: r.body.data.filter((m: any) => m.id > base) } };
};
let base = 0;
const unread = async (viewer: string) =>
  Object.fromEntries((await e.get("/v3/conversations", { onBehalfOf: viewer })).body.data.map((c: any) => [c.conversationId, c.unreadMessageCount]));

/** A keyword list "banned" and an enabled rule blocking text that contains one of its words. */
async function banWords(...words: string[]) {
  expect((await e.post("/v3/moderation/keywords", { id: "banned", name: "Banned", searchTerms: words })).status).toBe(200);
  const rule = await e.post("/v3/moderation/rules", {
    id: "no-banned",
    name: "No banned words",
    enabled: true,
    action: ["blockMessage"],
    conditions: [{ entity: "message", operand: "text", operator: "contains", category: "word", isKeywordsReferencePresent: true, value: ["banned"] }],
  });
  expect(rule.status).toBe(200);
  return rule.body.data;
}

describe("reasons", () => {
  it("lists the platform's default reasons, creates, reads, updates and deletes one", async () => {
    const list = await e.get("/v3/moderation/reasons");
    expect(list.status).toBe(200);
    expect(list.body.data.map((r: any) => r.id)).toEqual(["spam", "sexual", "harassment"]);
    expect(list.body.data[0]).toMatchObject({ name: "Spam / Unwanted Content", default: true, createdAt: expect.any(String) });
    expect(list.body.meta).toEqual({ current: { limit: 100, count: 3 } });

    const made = await e.post("/v3/moderation/reasons", { id: "unfiltered-content", name: "RawContent", description: "Raw" });
    expect(made.body.data).toEqual({ id: "unfiltered-content", name: "RawContent", description: "Raw", createdAt: 2_000_000_000, updatedAt: 2_000_000_000 });
    expect((await e.get("/v3/moderation/reasons/unfiltered-content")).body.data.name).toBe("RawContent");
    expect((await e.put("/v3/moderation/reasons/unfiltered-content", { name: "Raw content" })).body.data.name).toBe("Raw content");
    expect((await e.del("/v3/moderation/reasons/spam")).body).toEqual({ success: true, message: "The reason with id spam has been deleted successfully." });
    expectError(await e.get("/v3/moderation/reasons/spam"), 404, "ERR_REASON_NOT_FOUND");
  });

  it("refuses bad bodies, duplicates and unknown ids, changing nothing", async () => {
    expect(expectError(await e.post("/v3/moderation/reasons", { name: 3 }), 400, "ERR_BAD_REQUEST").details).toEqual({
      id: ["The id field is required."],
      name: ["The name must be a string."],
    });
    expectError(await e.post("/v3/moderation/reasons", { id: "spam", name: "Again" }), 400, "ERR_REASON_ALREADY_EXISTS");
    expectError(await e.put("/v3/moderation/reasons/spam", { name: "" }), 400, "ERR_BAD_REQUEST");
    expectError(await e.del("/v3/moderation/reasons/nope"), 404, "ERR_REASON_NOT_FOUND");
    expectError(await e.get("/v3/moderation/reasons/spam", { key: null }), 401, "AUTH_ERR_EMPTY_APIKEY");
    expect((await e.get("/v3/moderation/reasons")).body.data).toHaveLength(3);
  });
});

describe("rules and keyword lists", () => {
  it("seeds the built-in rules disabled and the profanity list", async () => {
    const rules = await e.get("/v3/moderation/rules");
    expect(rules.body.data.map((r: any) => r.id)).toEqual([
      "text-profanity-filter",
      "custom-profanity-filter",
      "contact_details_filter",
      "email_filter",
      "image-moderation",
      "video-moderation",
    ]);
    expect(rules.body.data.every((r: any) => r.enabled === false && r.default === true && r.active === true)).toBe(true);
    expect(rules.body.meta).toEqual({ current: { limit: 50, count: 6 } });
    const lists = await e.get("/v3/moderation/keywords");
    expect(lists.body.data[0]).toMatchObject({ id: "profanity-list", name: "Profane Words", appId: "default", __v: 0, _id: expect.stringMatching(/^[0-9a-f]{24}$/) });
  });

  it("creates a rule, and every update is a new revision (only the newest active)", async () => {
    const rule = await banWords("darn");
    expect(rule).toMatchObject({ id: "no-banned", enabled: true, active: true, action: ["blockMessage"], revisionId: expect.stringMatching(/_no-banned_1$/) });
    expect(rule.conditions[0]).toMatchObject({ id: 1, entity: "message", operand: "text", isKeywordsReferencePresent: true, value: ["banned"] });
    const updated = await e.put("/v3/moderation/rules/no-banned", { enabled: false, description: "off for now" });
    expect(updated.body.data).toMatchObject({ enabled: false, description: "off for now", name: "No banned words", revisionId: expect.stringMatching(/_no-banned_2$/) });
    const revisions = await e.get("/v3/moderation/rules/no-banned/revisions");
    expect(revisions.body.data.map((r: any) => [r.revisionId.split("_").pop(), r.active, r.enabled])).toEqual([["2", true, false], ["1", false, true]]);
    expect(revisions.body.meta).toEqual({ current: { limit: 10, count: 2 } });
    expect((await e.get("/v3/moderation/rules/no-banned")).body.data.enabled).toBe(false);
    expect((await e.del("/v3/moderation/rules/no-banned")).body).toEqual({ data: { success: true, message: "Rule with id no-banned has been deleted successfully." } });
    expectError(await e.get("/v3/moderation/rules/no-banned"), 404, "ERR_MODERATION_RULE_NOT_FOUND");
  });

  it("refuses unknown keyword lists, unsafe patterns, duplicates and bad conditions", async () => {
    const cond = (c: object) => ({ id: "r", name: "R", conditions: [{ operand: "text", value: ["x"], ...c }] });
    expect(expectError(await e.post("/v3/moderation/rules", cond({ isKeywordsReferencePresent: true, value: ["nope"] })), 400, "ERR_BAD_REQUEST").details).toEqual({
      "conditions.0.value.0": ["The keyword list nope does not exist."],
    });
    expect(expectError(await e.post("/v3/moderation/rules", cond({ category: "pattern", value: ["(a)\\1"] })), 400, "ERR_BAD_REQUEST").details).toEqual({
      "conditions.0.value.0": [
        "The pattern is not a valid RE2 pattern (invalid escape sequence: `\\1`); back-references, look-ahead and look-behind cannot run in linear time.",
      ],
    });
    expect(expectError(await e.post("/v3/moderation/rules", cond({ operand: "sound" })), 400, "ERR_BAD_REQUEST").details).toEqual({
      "conditions.0.operand": ["The selected conditions.0.operand is invalid."],
    });
    expectError(await e.post("/v3/moderation/rules", { id: "email_filter", name: "Again" }), 400, "ERR_MODERATION_RULE_ALREADY_EXISTS");
    expectError(await e.put("/v3/moderation/rules/nope", { enabled: true }), 404, "ERR_MODERATION_RULE_NOT_FOUND");
    expect((await e.get("/v3/moderation/rules")).body.data).toHaveLength(6);
  });

  it("all 28 operations: no key or the Auth Key is refused; the REST key, or key + secret where older files declare them, works", async () => {
    await banWords("darn");
    const m = (await say("superhero2", "hi", "superhero1")).body.data.id;
    const held = (await say("superhero2", "darn", "superhero1")).body.data.id;
    const MG = true; // takes management credentials (these go through them here; the REST key is shown elsewhere)
    const ops: [string, string, unknown?, string?, boolean?][] = [
      ["POST", "/moderation/reasons", { id: "x", name: "X" }],
      ["GET", "/moderation/reasons"],
      ["GET", "/moderation/reasons/x"],
      ["PUT", "/moderation/reasons/x", { name: "N" }],
      ["DELETE", "/moderation/reasons/x"],
      ["POST", `/messages/${m}/flagged`, { id: "spam" }, "superhero2"],
      ["GET", "/moderation/flagged-messages"],
      ["PATCH", `/moderation/flagged-messages/${m}`, { status: "approved" }],
      ["GET", "/moderation/reviewed-messages"],
      ["GET", "/moderation/blocked-messages", undefined, undefined, MG],
      ["PATCH", `/moderation/blocked-messages/${held}`, { status: "rejected", reviewed: true }, undefined, MG],
      ["POST", "/moderation/rules", { id: "r", name: "R" }, undefined, MG],
      ["GET", "/moderation/rules", undefined, undefined, MG],
      ["GET", "/moderation/rules/r", undefined, undefined, MG],
      ["PUT", "/moderation/rules/r", { enabled: false }, undefined, MG],
      ["GET", "/moderation/rules/r/revisions", undefined, undefined, MG],
      ["DELETE", "/moderation/rules/r", undefined, undefined, MG],
      ["POST", "/moderation/keywords", { id: "k", name: "K", searchTerms: ["a"] }, undefined, MG],
      ["GET", "/moderation/keywords", undefined, undefined, MG],
      ["GET", "/moderation/keywords/k", undefined, undefined, MG],
      ["PUT", "/moderation/keywords/k", { name: "P" }, undefined, MG],
      ["DELETE", "/moderation/keywords/k", undefined, undefined, MG],
      ["POST", "/moderation/messages", { sender: "superhero1", receiver: "superhero2", receiverType: "user", data: { text: "x" } }],
      ["GET", "/moderation/messages"],
      ["GET", `/moderation/messages/${held}`],
      ["PUT", `/moderation/messages/${held}`, { data: { text: "darn again" } }],
      ["DELETE", `/moderation/messages/${held}`],
    ];
    expect(ops.length + 1).toBe(28); // PATCH /moderation/blocked-messages/{id} is both the review and the approve operation
    for (const [method, path, body, onBehalfOf, mgmt] of ops) {
      const at = `${method} ${path}`;
      const as = (opts: object) => e.call(method, `/v3${path}`, { body, onBehalfOf, ...opts });
      expectError(await as({ key: null }), 401, "AUTH_ERR_EMPTY_APIKEY");
      expectError(await as({ key: AUTH_KEY }), 403, "AUTH_ERR_NO_ACCESS");
      if (!mgmt) expectError(await as({ key: null, headers: { ...MGMT } }), 401, "AUTH_ERR_EMPTY_APIKEY");
      expect((await as(mgmt ? { key: null, headers: { ...MGMT } } : {})).status, at).toBe(200);
    }
  });

  it("limits: lengths, counts and body sizes are refused with their field, changing nothing", async () => {
    const long = (n: number) => "x".repeat(n);
    const m = (await say("superhero2", "hi", "superhero1")).body.data.id;
    const cases: [string, string, unknown, Record<string, string[]>, string?][] = [
      ["POST", "/moderation/reasons", { id: long(101), name: long(101) }, { id: ["The id may not be greater than 100 characters."], name: ["The name may not be greater than 100 characters."] }],
      ["POST", `/messages/${m}/flagged`, { id: "spam", remark: long(1001) }, { remark: ["The remark may not be greater than 1000 characters."] }, "superhero2"],
      ["POST", "/moderation/rules", { id: "r", name: "R", conditions: Array(11).fill({ operand: "text", value: ["x"] }) }, { conditions: ["The conditions may not have more than 10 items."] }],
      ["POST", "/moderation/rules", { id: "r", name: "R", conditions: [{ operand: "text", value: [long(501)] }] }, { "conditions.0.value.0": ["The conditions.0.value.0 may not be greater than 500 characters."] }],
      ["POST", "/moderation/keywords", { id: "k", name: "K", searchTerms: [long(501)] }, { "searchTerms.0": ["The searchTerms.0 may not be greater than 500 characters."] }],
      ["POST", "/moderation/keywords", { id: "k", name: "K", searchTerms: Array.from({ length: 10_001 }, (_, i) => `w${i}`) }, { searchTerms: ["The searchTerms may not have more than 10000 items."] }],
      // Counted before any is compiled: more could never fit in 3,000 instructions (each takes 3 at least).
      ["POST", "/moderation/keywords", { id: "k", name: "K", category: "pattern", searchTerms: Array.from({ length: 1001 }, (_, i) => `p${i}`) }, { searchTerms: ["A pattern list may hold at most 1000 patterns."] }],
      [
        "POST",
        "/moderation/rules",
        { id: "r", name: "R", conditions: [0, 1].map((c) => ({ operand: "text", category: "pattern", value: Array.from({ length: 600 }, (_, i) => `c${c}p${i}`) })) },
        { conditions: ["The conditions may hold at most 1000 patterns together."] },
      ],
    ];
    for (const [method, path, body, details, onBehalfOf] of cases)
      expect(expectError(await e.call(method, `/v3${path}`, { body, onBehalfOf }), 400, "ERR_BAD_REQUEST").details, path).toEqual(details);
    expect(expectError(await e.post("/v3/moderation/rules", { id: "r", name: "R", description: long(70 * 1024) }), 413, "ERR_BAD_REQUEST").message).toContain("64 KB");
    expect(expectError(await e.post("/v3/moderation/keywords", { id: "k", name: "K", searchTerms: [long(2100 * 1024)] }), 413, "ERR_BAD_REQUEST").message).toContain("2 MB");
    expectError(await e.get("/v3/moderation/rules?limit=1001"), 400, "ERR_BAD_REQUEST");
    expect((await e.get("/v3/moderation/reasons")).body.data).toHaveLength(3);
    expect((await e.get("/v3/moderation/rules")).body.data).toHaveLength(6);
    expect((await e.get("/v3/moderation/keywords")).body.data).toHaveLength(1);
    expect((await e.get("/v3/moderation/flagged-messages")).body.data).toEqual([]);
  });

  it("the platform's limits (moderation/constraints-and-limits): 25 rules and 25 lists besides the built-in ones, 10 conditions and 10 filters, names of 100 and descriptions of 255 characters", async () => {
    const long = (n: number) => "x".repeat(n);
    const condition = { operand: "text", value: ["x"] };
    const filter = { entity: "user", type: "sender", operand: "uid", operator: "equals", value: ["x"] };
    // Exactly at every limit: accepted.
    const full = { name: long(100), description: long(255), conditions: Array(10).fill(condition), filters: Array(10).fill(filter) };
    for (let i = 1; i <= 25; i++) expect((await e.post("/v3/moderation/rules", { id: `r${i}`, ...(i === 1 ? full : { name: "R" }) })).status).toBe(200);
    for (let i = 1; i <= 25; i++)
      expect((await e.post("/v3/moderation/keywords", { id: `k${i}`, name: i === 1 ? long(100) : "K", description: long(255), searchTerms: ["w"] })).status).toBe(200);
    // One past each: refused, changing nothing.
    expect(expectError(await e.post("/v3/moderation/rules", { id: "r26", name: "R" }), 403, "ERR_PLAN_QUOTA_RESTRICTION").message).toBe(
      `The app ${e.store.defaultApp.meta.appId} has reached the limit of 25 moderation rules (built-in rules not counted). Please contact support to raise the limit.`,
    );
    expect(expectError(await e.post("/v3/moderation/keywords", { id: "k26", name: "K", searchTerms: ["w"] }), 403, "ERR_PLAN_QUOTA_RESTRICTION").message).toContain(
      "limit of 25 keyword lists (built-in lists not counted)",
    );
    const over: [string, string, unknown, Record<string, string[]>][] = [
      ["PUT", "/moderation/rules/r1", { conditions: Array(11).fill(condition) }, { conditions: ["The conditions may not have more than 10 items."] }],
      ["PUT", "/moderation/rules/r1", { filters: Array(11).fill(filter) }, { filters: ["The filters may not have more than 10 items."] }],
      ["PUT", "/moderation/rules/r1", { name: long(101) }, { name: ["The name may not be greater than 100 characters."] }],
      ["PUT", "/moderation/rules/r1", { description: long(256) }, { description: ["The description may not be greater than 255 characters."] }],
      ["PUT", "/moderation/keywords/k1", { name: long(101) }, { name: ["The name may not be greater than 100 characters."] }],
      ["PUT", "/moderation/keywords/k1", { description: long(256) }, { description: ["The description may not be greater than 255 characters."] }],
    ];
    for (const [method, path, body, details] of over) expect(expectError(await e.call(method, `/v3${path}`, { body }), 400, "ERR_BAD_REQUEST").details, path).toEqual(details);
    expect((await e.get("/v3/moderation/rules/r1/revisions")).body.data).toHaveLength(1);
    expect((await e.get("/v3/moderation/rules")).body.data).toHaveLength(31);
    expect((await e.get("/v3/moderation/keywords?limit=100")).body.data).toHaveLength(26);
    // A deleted rule or list frees its place.
    await e.del("/v3/moderation/rules/r25");
    expect((await e.post("/v3/moderation/rules", { id: "r26", name: "R" })).status).toBe(200);
  });

  it("the screening budget: the patterns and word terms of the enabled rules together, refused past it with the field that carries them", async () => {
    // 100 instructions each ([a-z]{1,49} after a letter): three fit in 300, a fourth does not.
    const pattern = (i: number) => `${"pqrs"[i]}[a-z]{1,49}`;
    const rule = (id: string, value: string[], enabled = true, extra: object = {}) =>
      e.post("/v3/moderation/rules", { id, name: id, enabled, conditions: [{ operand: "text", category: "pattern", value, ...extra }] });
    expect((await rule("p1", [pattern(0), pattern(1)])).status).toBe(200);
    expect((await rule("p2", [pattern(1), pattern(2)])).status).toBe(200); // pattern(1) is counted once
    const refused = expectError(await rule("p3", [pattern(3)]), 400, "ERR_BAD_REQUEST");
    expect(refused.details).toEqual({ conditions: ["The patterns of the app's enabled rules would together compile to 400 instructions, more than 300."] });
    expect((await rule("p3", [pattern(3)], false)).status).toBe(200); // a disabled rule screens nothing
    expectError(await e.put("/v3/moderation/rules/p3", { enabled: true }), 400, "ERR_BAD_REQUEST");
    expect((await e.get("/v3/moderation/rules/p3")).body.data.enabled).toBe(false);
    // Word terms: 100,000 characters; a list grows past it only while no enabled rule names it.
    const words = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `w${String(from + i).padStart(8, "0")}`); // 9 characters each
    expect((await e.post("/v3/moderation/keywords", { id: "big", name: "Big", searchTerms: words(10_000) })).status).toBe(200);
    expect((await e.post("/v3/moderation/keywords", { id: "more", name: "More", searchTerms: words(1_112, 10_000) })).status).toBe(200);
    const byList = { operand: "text", category: "word", isKeywordsReferencePresent: true, value: ["big"] };
    expect((await e.post("/v3/moderation/rules", { id: "w1", name: "W", enabled: true, conditions: [byList] })).status).toBe(200);
    const both = expectError(await e.post("/v3/moderation/rules", { id: "w2", name: "W", enabled: true, conditions: [{ ...byList, value: ["more"] }] }), 400, "ERR_BAD_REQUEST");
    expect(both.details).toEqual({ conditions: ["The word terms of the app's enabled rules would together hold 100008 characters, more than 100000."] });
    const longer = words(10_000).map((w) => `${w}xx`);
    const grown = expectError(await e.put("/v3/moderation/keywords/big", { searchTerms: longer }), 400, "ERR_BAD_REQUEST");
    expect(grown.details).toEqual({ searchTerms: ["The word terms of the app's enabled rules would together hold 110000 characters, more than 100000."] });
    expect((await e.get("/v3/moderation/keywords/big")).body.data.searchTerms).toHaveLength(10_000);
    expect((await e.put("/v3/moderation/keywords/more", { searchTerms: longer })).status).toBe(200); // named by no enabled rule
    // What is within the budget still screens as before.
    const status = async (text: string) => (await say("superhero2", text, "superhero1")).body.data.data.moderation.status;
    expect([await status("say w00000042 now"), await status("Rabcdef"), await status("4 5 6")]).toEqual(["disapproved", "disapproved", "approved"]);
  });

  it("accepts management credentials (key + secret) on rule, keyword and blocked-message operations", async () => {
    const mgmt = { key: null, headers: { ...MGMT } };
    expect((await e.get("/v3/moderation/rules", mgmt)).status).toBe(200);
    expect((await e.get("/v3/moderation/blocked-messages", mgmt)).status).toBe(200);
    expectError(await e.get("/v3/moderation/keywords", { key: null, headers: { key: MGMT.key, secret: "wrong" } }), 401, "AUTH_ERR_INVALID_CREDENTIALS");
    expectError(await e.get("/v3/moderation/reasons", mgmt), 401, "AUTH_ERR_EMPTY_APIKEY");
  });

  it("a keyword list's form is checked as its JSON body is, and a rule's conditions with the body", async () => {
    const form = new FormData();
    form.append("id", "bad name");
    form.append("name", "x".repeat(101));
    form.append("searchTerms", "a,b");
    const res = await e.app.request("http://localhost/v3/moderation/keywords", { method: "POST", headers: { apikey: "1f9f0b22749354cad59f77bcdfe2f768620afeb6" }, body: form });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.details).toEqual({
      id: ["The id may only contain letters, numbers, dashes and underscores."],
      name: ["The name may not be greater than 100 characters."],
    });
    const rule = await e.post("/v3/moderation/rules", { id: "r", name: "R", conditions: [{ operand: "text" }, "x"] });
    expect(expectError(rule, 400, "ERR_BAD_REQUEST").details).toEqual({
      "conditions.0.value": ["The conditions.0.value field is required."],
      "conditions.1": ["The conditions.1 must be an object."],
    });
    expectError(await e.get("/v3/moderation/rules/r"), 404, "ERR_MODERATION_RULE_NOT_FOUND");
  });

  it("keyword lists: JSON and multipart with a CSV file, revisions on update, delete", async () => {
    const made = await e.post("/v3/moderation/keywords", { id: "brands", name: "Brands", searchTerms: ["acme", "globex"] });
    expect(made.body.data).toMatchObject({ id: "brands", category: "word", isCSV: false, searchTerms: ["acme", "globex"], active: true, revisionId: expect.stringMatching(/_brands_1$/) });
    const form = new FormData();
    form.append("id", "csv-list");
    form.append("name", "From CSV");
    form.append("file", new Blob(['"alpha","beta"\ngamma'], { type: "text/csv" }), "words.csv");
    const res = await e.app.request("http://localhost/v3/moderation/keywords", { method: "POST", headers: { apikey: "1f9f0b22749354cad59f77bcdfe2f768620afeb6" }, body: form });
    const csv = (await res.json()) as any;
    expect(csv.data).toMatchObject({ id: "csv-list", isCSV: true, searchTerms: ["alpha", "beta", "gamma"] });
    const put = await e.put("/v3/moderation/keywords/brands", { searchTerms: ["initech"] });
    expect(put.body.data).toMatchObject({ searchTerms: ["initech"], revisionId: expect.stringMatching(/_brands_2$/) });
    expect((await e.get("/v3/moderation/keywords?limit=50")).body.data.map((k: any) => k.id)).toEqual(["profanity-list", "brands", "csv-list"]);
    expect((await e.del("/v3/moderation/keywords/brands")).body.data.message).toBe("Keyword with id brands has been deleted successfully.");
    expectError(await e.get("/v3/moderation/keywords/brands"), 404, "ERR_KEYWORD_NOT_FOUND");
    expectError(await e.post("/v3/moderation/keywords", { id: "p", name: "P", category: "pattern", searchTerms: ["(?=x)x"] }), 400, "ERR_BAD_REQUEST");
    expectError(await e.post("/v3/moderation/keywords", { id: "p", name: "P" }), 400, "ERR_BAD_REQUEST");
    expectError(await e.post("/v3/moderation/keywords", { id: "csv-list", name: "P", searchTerms: ["a"] }), 400, "ERR_KEYWORD_ALREADY_EXISTS");
    // A CSV file of up to 1 MB, as the platform documents: one byte more is refused.
    const csvOf = (bytes: number) => {
      const lines = Array.from({ length: 9_986 }, (_, i) => `${i}`.padEnd(104, "x")).join("\n");
      return `${lines}\n${"y".repeat(bytes - lines.length - 1)}`;
    };
    const upload = (id: string, text: string) => {
      const f = new FormData();
      f.append("id", id);
      f.append("name", id);
      f.append("file", new Blob([text], { type: "text/csv" }), `${id}.csv`);
      return e.app.request("http://localhost/v3/moderation/keywords", { method: "POST", headers: { apikey: "1f9f0b22749354cad59f77bcdfe2f768620afeb6" }, body: f });
    };
    const full = await upload("mb", csvOf(1024 * 1024));
    expect([full.status, ((await full.json()) as any).data.searchTerms.length]).toEqual([200, 9_987]);
    const over = await upload("over", csvOf(1024 * 1024 + 1));
    expect([over.status, ((await over.json()) as any).error]).toEqual([
      413,
      expect.objectContaining({ code: "ERR_FILE_SIZE_EXCEEDED", message: "The file over.csv exceeds the maximum allowed size of 1048576 bytes." }),
    ]);
    expectError(await e.get("/v3/moderation/keywords/over"), 404, "ERR_KEYWORD_NOT_FOUND");
  });
});

describe("a blocking rule on the send path", () => {
  it("passes messages while no rule is enabled, unmarked (no moderation work)", async () => {
    const r = await say("superhero2", "fuck this", "superhero1");
    expect(r.body.data.data.moderation).toBeUndefined();
    expect(triggers()).toEqual(["message_sent"]);
  });

  it("holds a matching one-on-one message: invisible to the receiver everywhere until approved", async () => {
    await banWords("darn");
    const conv = "superhero1_user_superhero2";
    const before = Number((await unread("superhero2"))[conv]);
    await say("superhero2", "hello", "superhero1");
    events = [];
    const blocked = await say("superhero2", "well DARN it", "superhero1");
    expect(blocked.status).toBe(200);
    expect(blocked.body.data.data.moderation).toMatchObject({ status: "disapproved", rule: { id: "no-banned" } });
    const id = blocked.body.data.id;
    // Whole words only: "darning" passes (and is marked approved).
    const clean = await say("superhero2", "darning socks", "superhero1");
    expect(clean.body.data.data.moderation).toEqual({ status: "approved" });
    expect(triggers()).toEqual(["moderation_engine_blocked", "moderation_engine_approved", "message_sent"]);
    expect(events[0].data).toMatchObject({ message: { id, data: { moderation: { status: "disapproved" } } }, moderation: [{ rule: { id: "no-banned", action: ["blockMessage"] } }] });

    expect(texts(await dm("superhero2", "superhero1"))).toEqual(["hello", "darning socks"]);
    expect(texts(await dm("superhero1", "superhero2"))).toEqual(["hello", "darning socks"]);
    expect(Number((await unread("superhero2"))[conv])).toBe(before + 2);
    expectError(await e.get(`/v3/messages/${id}`), 404, "ERR_MESSAGE_ID_NOT_FOUND");
    const conversation = await e.get("/v3/users/superhero1/conversation", { onBehalfOf: "superhero2" });
    expect(conversation.body.data.lastMessage.data.text).toBe("darning socks");
    expect(texts(await e.get("/v3/messages?limit=100")).includes("well DARN it")).toBe(false);

    const queue = await e.get("/v3/moderation/blocked-messages");
    expect(queue.body.meta).toEqual({ current: { limit: 50, count: 1 } });
    expect(queue.body.data[0]).toMatchObject({
      ruleId: "no-banned",
      ruleName: "No banned words",
      revisionId: expect.stringMatching(/_no-banned_1$/),
      condition: { id: 1, operand: "text", weight: 1 },
      action: ["blockMessage"],
      status: "pending",
      kind: "send",
      message: { id, sender: "superhero1", data: { text: "well DARN it", moderation: { status: "pending" } } },
    });

    events = [];
    const approve = await e.call("PATCH", `/v3/moderation/blocked-messages/${id}`, { body: { status: "approved" }, onBehalfOf: "superhero5" });
    expect(approve.body).toEqual({ data: { success: true, message: `Message with ID ${id} has been approved.` } });
    expect(triggers()).toEqual(["message_sent", "moderation_manual_approved"]);
    expect(events[0].data.message).toMatchObject({ id, data: { text: "well DARN it", moderation: { status: "approved" } } });
    expect(texts(await dm("superhero2", "superhero1"))).toEqual(["hello", "well DARN it", "darning socks"]);
    expect(Number((await unread("superhero2"))[conv])).toBe(before + 3);
    expect((await e.get(`/v3/messages/${id}`)).body.data.data.moderation).toEqual({ status: "approved" });
    const reviewed = (await e.get("/v3/moderation/blocked-messages")).body.data[0];
    expect(reviewed).toMatchObject({ status: "approved", reviewedBy: "superhero5", reviewedAt: 2_000_000_000 });
    expectError(await e.call("PATCH", `/v3/moderation/blocked-messages/${id}`, { body: { status: "rejected" } }), 400, "ERR_BLOCKED_MESSAGE_ALREADY_REVIEWED");
  });

  it("matches whole words and phrases, case-insensitive; `equals` the whole text; `pattern` a regular expression", async () => {
    await banWords("darn", "holy cow", "straße");
    const status = async (text: string) => (await say("superhero2", text, "superhero1")).body.data.data.moderation.status;
    const outcomes: Record<string, string> = {};
    for (const t of ["Darn!", "(darn)", "darn-it", "DARN_it", "undarned", "darnation", "HOLY   cow", "Holy cow!", "holy cows", "STRASSE", "Straße."])
      outcomes[t] = await status(t);
    expect(outcomes).toEqual({
      "Darn!": "disapproved",
      "(darn)": "disapproved",
      "darn-it": "disapproved",
      DARN_it: "approved",
      undarned: "approved",
      darnation: "approved",
      "HOLY   cow": "disapproved",
      "Holy cow!": "disapproved",
      "holy cows": "approved",
      STRASSE: "approved",
      "Straße.": "disapproved",
    });
    await e.put("/v3/moderation/rules/no-banned", { enabled: false });
    await e.post("/v3/moderation/rules", { id: "exact", name: "Exact", enabled: true, conditions: [{ operand: "text", operator: "equals", value: ["stop"] }] });
    await e.post("/v3/moderation/rules", { id: "codes", name: "Codes", enabled: true, conditions: [{ operand: "text", category: "pattern", value: ["code-\\d{3}"] }] });
    expect([await status(" STOP "), await status("stop now"), await status("my CODE-123"), await status("code-12")]).toEqual(["disapproved", "approved", "disapproved", "approved"]);
  });

  it("holds group messages and media captions; a rejection keeps them hidden", async () => {
    await banWords("darn");
    const groupConversation = async () =>
      (await e.get("/v3/conversations", { onBehalfOf: "superhero2" })).body.data.find((c: any) => c.conversationId === "group_supergroup");
    const before = await groupConversation();
    expect(before).toMatchObject({ lastMessage: expect.any(Object), unreadMessageCount: expect.anything() });
    const group = await say("supergroup", "darn group", "superhero1", "group");
    expect(await groupConversation()).toEqual(before);
    const media = await e.post(
      "/v3/messages",
      { receiver: "superhero2", receiverType: "user", type: "image", data: { text: "a darn picture", attachments: [{ url: "https://x.io/a.png", name: "a.png" }] } },
      { onBehalfOf: "superhero1" },
    );
    expect([group.body.data.data.moderation.status, media.body.data.data.moderation.status]).toEqual(["disapproved", "disapproved"]);
    expect(triggers()).toEqual(["moderation_engine_blocked", "moderation_engine_blocked"]);
    const gid = group.body.data.id;
    const reject = await e.call("PATCH", `/v3/moderation/blocked-messages/${gid}`, { body: { status: "rejected", reviewed: true } });
    expect(reject.body.data.message).toBe(`Message with ID ${gid} has been reviewed successfully.`);
    expect((await e.get("/v3/groups/supergroup/messages", { onBehalfOf: "superhero2" })).body.data.map((m: any) => m.id)).not.toContain(gid);
    expect((await e.get("/v3/moderation/blocked-messages?status=rejected")).body.data.map((b: any) => b.message.id)).toEqual([gid]);
    expect(await groupConversation()).toEqual(before);
    expect(triggers()).not.toContain("message_sent");
    expectError(await e.call("PATCH", "/v3/moderation/blocked-messages/999", { body: { status: "approved" } }), 404, "ERR_BLOCKED_MESSAGE_NOT_FOUND");
    expectError(await e.call("PATCH", `/v3/moderation/blocked-messages/${gid}`, { body: { status: "maybe" } }), 400, "ERR_BAD_REQUEST");
  });

  it("holds an edit that matches: the message stays as it was until the edit is approved", async () => {
    const sent = await say("superhero2", "fine words", "superhero1");
    const id = sent.body.data.id;
    await banWords("darn");
    events = [];
    const edit = await e.put(`/v3/messages/${id}`, { data: { text: "darn words" } }, { onBehalfOf: "superhero1" });
    expect(edit.status).toBe(200);
    expect(edit.body.data).toMatchObject({ id, data: { text: "darn words", moderation: { status: "disapproved" } } });
    expect(triggers()).toEqual(["moderation_engine_blocked"]);
    expect((await e.get(`/v3/messages/${id}`, { onBehalfOf: "superhero2" })).body.data.data.text).toBe("fine words");
    const queued = (await e.get("/v3/moderation/blocked-messages")).body.data[0];
    expect(queued).toMatchObject({ kind: "edit", message: { id, data: { text: "darn words" } } });
    await e.call("PATCH", `/v3/moderation/blocked-messages/${id}`, { body: { status: "approved" } });
    expect(triggers()).toEqual(["moderation_engine_blocked", "message_edited", "moderation_manual_approved"]);
    const now = (await e.get(`/v3/messages/${id}`, { onBehalfOf: "superhero2" })).body.data;
    expect(now).toMatchObject({ data: { text: "darn words", moderation: { status: "approved" } }, editedBy: "superhero1" });
  });

  it("a held thread reply does not count until approved; custom messages are read by `custom` conditions", async () => {
    await banWords("darn");
    const parent = await say("superhero2", "parent", "superhero1");
    const reply = await e.post(`/v3/messages/${parent.body.data.id}/thread`, { data: { text: "darn reply" } }, { onBehalfOf: "superhero2" });
    expect((await e.get(`/v3/messages/${parent.body.data.id}`)).body.data.replyCount).toBeUndefined();
    await e.call("PATCH", `/v3/moderation/blocked-messages/${reply.body.data.id}`, { body: { status: "approved" } });
    expect((await e.get(`/v3/messages/${parent.body.data.id}`)).body.data.replyCount).toBe(1);

    await e.put("/v3/moderation/rules/custom-profanity-filter", { enabled: true });
    const custom = await e.post("/v3/messages", { receiver: "superhero2", receiverType: "user", category: "custom", type: "poll", data: { customData: { question: "why the shit?" } } }, { onBehalfOf: "superhero1" });
    expect(custom.body.data.data.moderation).toMatchObject({ status: "disapproved", rule: { id: "custom-profanity-filter" } });
  });
});

describe("queues", () => {
  it("list newest first, by status, up to `limit`; a review keeps an entry's place", async () => {
    await banWords("darn");
    const ids: string[] = [];
    for (const t of ["darn 1", "darn 2", "darn 3"]) ids.push((await say("superhero2", t, "superhero1")).body.data.id);
    await e.call("PATCH", `/v3/moderation/blocked-messages/${ids[1]}`, { body: { status: "rejected" } });
    const blocked = async (q: string) => (await e.get(`/v3/moderation/blocked-messages${q}`)).body.data.map((b: any) => b.message.id);
    expect(await blocked("")).toEqual([ids[2], ids[1], ids[0]]);
    expect(await blocked("?status=pending")).toEqual([ids[2], ids[0]]);
    expect(await blocked("?status=rejected")).toEqual([ids[1]]);
    expect(await blocked("?status=pending&limit=1")).toEqual([ids[2]]);
    expect(await blocked("?status=approved")).toEqual([]);
    // Blocked again (its content re-screened), a message moves to the front.
    await e.put(`/v3/moderation/messages/${ids[0]}`, { data: { text: "darn 1 again" } });
    expect(await blocked("")).toEqual([ids[0], ids[2], ids[1]]);
    expectError(await e.get("/v3/moderation/blocked-messages?limit=1001"), 400, "ERR_BAD_REQUEST");

    const clean: string[] = [];
    for (const t of ["a", "b", "c"]) clean.push((await say("superhero2", t, "superhero1")).body.data.id);
    for (const id of clean) await e.post(`/v3/messages/${id}/flagged`, { id: "spam" }, { onBehalfOf: "superhero2" });
    await e.call("PATCH", `/v3/moderation/flagged-messages/${clean[0]}`, { body: { status: "approved" } });
    const flagged = async (q: string) => (await e.get(`/v3/moderation/${q}`)).body.data.map((f: any) => f.id);
    expect(await flagged("flagged-messages")).toEqual([clean[2], clean[1]]);
    expect(await flagged("flagged-messages?limit=1")).toEqual([clean[2]]);
    expect(await flagged("reviewed-messages")).toEqual([clean[0]]);
    // Flagged again after its review, a message is back in the queue, at the front.
    await e.post(`/v3/messages/${clean[0]}/flagged`, { id: "sexual" }, { onBehalfOf: "superhero2" });
    expect(await flagged("flagged-messages")).toEqual([clean[0], clean[2], clean[1]]);
    expect(await flagged("reviewed-messages")).toEqual([]);
  });
});

describe("flags", () => {
  it("flags with a reason and remark, counts flags, and reviews move messages to the reviewed list", async () => {
    const m = await say("supergroup", "buy cheap watches", "superhero1", "group");
    const id = m.body.data.id;
    const flag = await e.post(`/v3/messages/${id}/flagged`, { id: "spam", remark: "ad" }, { onBehalfOf: "superhero2" });
    expect(flag.body).toEqual({ success: true, message: `Message ${id} has been flagged successfully.` });
    await e.post(`/v3/messages/${id}/flagged`, { reasonId: "harassment" }, { onBehalfOf: "superhero3" });
    expectError(await e.post(`/v3/messages/${id}/flagged`, { id: "spam" }, { onBehalfOf: "superhero2" }), 400, "ERR_MESSAGE_ALREADY_FLAGGED");
    expectError(await e.post(`/v3/messages/${id}/flagged`, { id: "nope" }, { onBehalfOf: "superhero2" }), 404, "ERR_REASON_NOT_FOUND");
    expectError(await e.post(`/v3/messages/${id}/flagged`, {}, { onBehalfOf: "superhero2" }), 400, "ERR_BAD_REQUEST");
    expectError(await e.post(`/v3/messages/${id}/flagged`, { id: "spam" }), 400, "ERR_BAD_REQUEST");
    expectError(await e.post("/v3/messages/99999/flagged", { id: "spam" }, { onBehalfOf: "superhero2" }), 404, "ERR_MESSAGE_ID_NOT_FOUND");

    const flagged = await e.get("/v3/moderation/flagged-messages");
    expect(flagged.body.meta).toEqual({ current: { limit: 50, count: 1 } });
    expect(flagged.body.data[0]).toMatchObject({
      id,
      appId: expect.any(String),
      flaggedCount: 2,
      status: "pending",
      flaggedBy: [
        { uid: "superhero2", reasonId: "spam", reasonName: "Spam / Unwanted Content", remark: "ad", flaggedAt: 2_000_000_000 },
        { uid: "superhero3", reasonId: "harassment", reasonName: "Harassment / Bullying" },
      ],
    });

    // The message stays delivered while flagged; disapproval withdraws it.
    expect(texts(await e.get("/v3/groups/supergroup/messages", { onBehalfOf: "superhero2" }))).toContain("buy cheap watches");
    const review = await e.call("PATCH", `/v3/moderation/flagged-messages/${id}`, { body: { status: "disapproved" } });
    expect(review.body).toEqual({ success: true, message: `Message with id ${id} has been disapproved successfully.` });
    expect(texts(await e.get("/v3/groups/supergroup/messages", { onBehalfOf: "superhero2" }))).not.toContain("buy cheap watches");
    expect((await e.get("/v3/moderation/flagged-messages")).body.data).toEqual([]);
    const reviewed = await e.get("/v3/moderation/reviewed-messages");
    expect(reviewed.body.data[0]).toMatchObject({ id, status: "disapproved", reviewedBy: "app_system", data: { moderation: { status: "disapproved" } } });
    expectError(await e.call("PATCH", `/v3/moderation/flagged-messages/${id}`, { body: { status: "approved" } }), 404, "ERR_FLAGGED_MESSAGE_NOT_FOUND");

    const other = await say("superhero2", "ok", "superhero1");
    await e.post(`/v3/messages/${other.body.data.id}/flagged`, { id: "sexual" }, { onBehalfOf: "superhero2" });
    const ok = await e.call("PATCH", `/v3/moderation/flagged-messages/${other.body.data.id}`, { body: { status: "approved" } });
    expect(ok.body.message).toBe(`Message with id ${other.body.data.id} has been unflagged successfully.`);
    expect(texts(await dm("superhero2", "superhero1"))).toEqual(["ok"]);
  });

  it("a rule whose action is flagMessage delivers what it catches, approved, and puts it in the flagged queue; a blocking rule still wins", async () => {
    const rule = (id: string, action: string[], value: string[]) =>
      e.post("/v3/moderation/rules", { id, name: id.toUpperCase(), enabled: true, action, conditions: [{ operand: "text", value }] });
    expect((await rule("watch", ["flagMessage"], ["watches", "refund"])).body.data.action).toEqual(["flagMessage"]);
    expect((await rule("stop", ["blockMessage"], ["refund"])).status).toBe(200);
    expectError(await rule("odd", ["warnUser"], ["x"]), 400, "ERR_BAD_REQUEST");
    const sent = await say("superhero2", "cheap watches", "superhero1");
    const id = sent.body.data.id;
    expect(sent.body.data.data.moderation).toEqual({ status: "approved" });
    expect(texts(await dm("superhero2", "superhero1"))).toEqual(["cheap watches"]);
    expect(triggers()).toContain("moderation_engine_approved");
    const flagged = (await e.get("/v3/moderation/flagged-messages")).body.data;
    expect(flagged).toHaveLength(1);
    expect(flagged[0]).toMatchObject({
      id,
      flaggedCount: 1,
      status: "pending",
      flaggedBy: [{ uid: "app_system", reasonId: "watch", reasonName: "watch", remark: `Flagged by the rule WATCH (${e.store.defaultApp.meta.appId}_watch_1).` }],
    });
    // A message both rules catch: the blocking one decides.
    expect((await say("superhero2", "a refund", "superhero1")).body.data.data.moderation).toMatchObject({ status: "disapproved", rule: { id: "stop" } });
    // An edit the flagging rule catches goes through and flags the message it edits (once).
    const plain = (await say("superhero2", "hello", "superhero1")).body.data.id;
    expect((await e.put(`/v3/messages/${plain}`, { data: { text: "hello watches" } }, { onBehalfOf: "superhero1" })).status).toBe(200);
    expect((await e.get("/v3/moderation/flagged-messages")).body.data.map((m: any) => m.id)).toEqual([plain, id]);
    expect((await e.call("PATCH", `/v3/moderation/flagged-messages/${plain}`, { body: { status: "disapproved" } })).status).toBe(200);
    const left = texts(await dm("superhero2", "superhero1"));
    expect([left.includes("cheap watches"), left.includes("hello watches")]).toEqual([true, false]);
  });
});

describe("/moderation/messages", () => {
  it("screens submitted messages even with no rule enabled, creating missing users, and lists, gets, updates, deletes them", async () => {
    const r = await e.post("/v3/moderation/messages", {
      category: "message",
      type: "text",
      data: { text: "Hi new user" },
      sender: "newbie",
      senderUserDetails: { uid: "newbie", name: "New Bie" },
      receiver: "superhero1",
      receiverType: "user",
      sentAt: 1_750_335_220,
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ sender: "newbie", sentAt: 1_750_335_220, data: { text: "Hi new user", moderation: { status: "approved" } } });
    expect((await e.get("/v3/users/newbie")).status).toBe(200);
    await banWords("darn");
    const held = await e.post("/v3/moderation/messages", { data: { text: "darn" }, sender: "superhero1", receiver: "superhero2", receiverType: "user" });
    const heldId = held.body.data.id;

    const list = await e.get("/v3/moderation/messages?moderationStatus=disapproved");
    expect(list.body.data.map((m: any) => m.id)).toEqual([heldId]);
    expect(list.body.meta).toMatchObject({ current: { limit: 100, count: 1 }, next: { affix: "append", id: heldId } });
    expect((await e.get("/v3/moderation/messages?sender=newbie")).body.data).toHaveLength(1);
    expect((await e.get(`/v3/moderation/messages/${heldId}`)).body.data.data.text).toBe("darn");

    // Re-screened on update: clean content is delivered now.
    events = [];
    const put = await e.put(`/v3/moderation/messages/${heldId}`, { data: { text: "dear" } });
    expect(put.body.data).toMatchObject({ data: { text: "dear", moderation: { status: "approved" } }, editedBy: "app_system" });
    expect(triggers()).toEqual(["message_sent", "moderation_engine_approved"]);
    expect(texts(await dm("superhero2", "superhero1"))).toEqual(["dear"]);

    const del = await e.del(`/v3/moderation/messages/${heldId}`);
    expect(del.body).toEqual({ data: { success: true, message: `Message with id ${heldId} has been deleted successfully.` } });
    expectError(await e.get(`/v3/moderation/messages/${heldId}`), 404, "ERR_MESSAGE_ID_NOT_FOUND");
    expectError(await e.post("/v3/moderation/messages", { sender: "ghost", receiver: "superhero1", receiverType: "user", data: { text: "x" } }), 404, "ERR_UID_NOT_FOUND");
    expect(expectError(await e.post("/v3/moderation/messages", { data: { text: "x" } }), 400, "ERR_BAD_REQUEST").details).toMatchObject({
      sender: ["The sender field is required."],
    });
    for (const sentAt of [-5, 1_750_335_220_000, 99])
      expect(expectError(await e.post("/v3/moderation/messages", { sender: "superhero1", receiver: "superhero2", receiverType: "user", data: { text: "x" }, sentAt }), 400, "ERR_BAD_REQUEST").details).toEqual({
        sentAt: ["The sentAt must be a Unix timestamp in seconds (10 digits)."],
      });
    expect((await e.get("/v3/moderation/messages")).body.data).toHaveLength(1);
  });
  it("a held message whose group or receiver is gone stays held as it was: approval and clean updates are refused", async () => {
    await banWords("darn");
    const group = (await say("supergroup", "darn group", "superhero1", "group")).body.data.id;
    const user = (await say("superhero4", "darn you", "superhero1")).body.data.id;
    expect((await e.del("/v3/groups/supergroup")).status).toBe(200);
    expect((await e.del("/v3/users/superhero4", { permanent: true })).status).toBe(200);
    for (const [id, code] of [[group, "ERR_GUID_NOT_FOUND"], [user, "ERR_UID_NOT_FOUND"]]) {
      expectError(await e.call("PATCH", `/v3/moderation/blocked-messages/${id}`, { body: { status: "approved" } }), 404, code);
      expectError(await e.put(`/v3/moderation/messages/${id}`, { data: { text: "clean" } }), 404, code);
      expect((await e.get(`/v3/moderation/messages/${id}`)).body.data.data).toMatchObject({ text: expect.stringMatching(/^darn/), moderation: { status: "disapproved" } });
    }
    expect((await e.get("/v3/moderation/blocked-messages?status=pending")).body.data.map((b: any) => b.message.id)).toEqual([user, group]);
    expect((await e.call("PATCH", `/v3/moderation/blocked-messages/${group}`, { body: { status: "rejected" } })).status).toBe(200);
  });
  it("a refused submission creates none of the users or groups it describes", async () => {
    const newbie = { sender: "newbie", senderUserDetails: { uid: "newbie", name: "New" }, data: { text: "hi" } };
    expectError(await e.post("/v3/moderation/messages", { ...newbie, receiver: "ghost", receiverType: "user" }), 404, "ERR_UID_NOT_FOUND");
    expectError(await e.post("/v3/moderation/messages", { ...newbie, receiver: "supergroup", receiverType: "group" }), 403, "ERR_GROUP_NOT_JOINED");
    const newGroup = { receiver: "new-group", receiverType: "group", receiverGroupDetails: { guid: "new-group", name: "New group", type: "public" } };
    expectError(await e.post("/v3/moderation/messages", { ...newbie, ...newGroup, type: "image" }), 400, "ERR_EMPTY_MESSAGE_FILE");
    expectError(await e.post("/v3/moderation/messages", { ...newbie, ...newGroup, data: { text: "hi" }, quotedMessageId: "99999" }), 404, "ERR_MESSAGE_ID_NOT_FOUND");
    expectError(await e.get("/v3/users/newbie"), 404, "ERR_UID_NOT_FOUND");
    expectError(await e.get("/v3/groups/new-group"), 404, "ERR_GUID_NOT_FOUND");
    expect(triggers()).toEqual([]);

    const made = await e.post("/v3/moderation/messages", { ...newbie, ...newGroup });
    expect(made.status).toBe(200);
    expect(triggers()).toEqual(["group_created", "moderation_engine_approved", "message_sent"]);
    expect((await e.get("/v3/groups/new-group/members")).body.data.map((m: any) => [m.uid, m.scope])).toEqual([["newbie", "admin"]]);
    const self = await e.post("/v3/moderation/messages", { sender: "twin", senderUserDetails: { uid: "twin", name: "Twin" }, receiver: "twin", receiverType: "user", receiverUserDetails: { uid: "twin", name: "Twin" }, data: { text: "note to self" } });
    expect(self.body.data).toMatchObject({ sender: "twin", receiver: "twin" });
  });
});

describe("state", () => {
  it("moderation is part of the app's data: state round-trips, resets restore the defaults, old files load", async () => {
    await banWords("darn");
    const held = await say("superhero2", "darn", "superhero1");
    const state = (await e.get("/_emulator/state", { key: null })).body;
    expect(state.apps[0].moderation.blocked).toHaveLength(1);
    expect((await e.post("/_emulator/reset", undefined, { key: null })).status).toBeLessThan(300);
    expect((await e.get("/v3/moderation/rules/no-banned")).status).toBe(404);
    expect((await e.get("/v3/moderation/blocked-messages")).body.data).toEqual([]);
    expect((await e.put("/_emulator/state", state, { key: null })).status).toBeLessThan(300);
    expect((await e.get("/v3/moderation/blocked-messages")).body.data[0].message.id).toBe(held.body.data.id);
    const approve = await e.call("PATCH", `/v3/moderation/blocked-messages/${held.body.data.id}`, { body: { status: "approved" } });
    expect(approve.status).toBe(200);
    const old = structuredClone(state);
    delete old.apps[0].moderation;
    expect((await e.put("/_emulator/state", old, { key: null })).status).toBeLessThan(300);
    expect((await e.get("/v3/moderation/reasons")).body.data).toHaveLength(3);
  });

  it("snapshots hold rules, keyword lists, reasons, the blocked queue and flags", async () => {
    await banWords("darn");
    const held = (await say("superhero2", "darn", "superhero1")).body.data.id;
    const flagged = (await say("superhero2", "spam here", "superhero1")).body.data.id;
    await e.post(`/v3/messages/${flagged}/flagged`, { id: "spam" }, { onBehalfOf: "superhero2" });
    expect((await e.post("/_emulator/snapshots/moderated", undefined, { key: null })).status).toBe(201);

    await e.call("PATCH", `/v3/moderation/blocked-messages/${held}`, { body: { status: "approved" } });
    await e.call("PATCH", `/v3/moderation/flagged-messages/${flagged}`, { body: { status: "disapproved" } });
    await e.del("/v3/moderation/rules/no-banned");
    await e.del("/v3/moderation/keywords/banned");
    await e.del("/v3/moderation/reasons/spam");

    expect((await e.post("/_emulator/snapshots/moderated/restore", undefined, { key: null })).status).toBe(200);
    expect((await e.get("/v3/moderation/rules/no-banned")).body.data).toMatchObject({ enabled: true, revisionId: expect.stringMatching(/_no-banned_1$/) });
    expect((await e.get("/v3/moderation/keywords/banned")).body.data.searchTerms).toEqual(["darn"]);
    expect((await e.get("/v3/moderation/reasons/spam")).status).toBe(200);
    expect((await e.get("/v3/moderation/blocked-messages")).body.data.map((b: any) => [b.message.id, b.status])).toEqual([[held, "pending"]]);
    expect((await e.get("/v3/moderation/flagged-messages")).body.data.map((f: any) => [f.id, f.flaggedCount])).toEqual([[flagged, 1]]);
    expect(texts(await dm("superhero2", "superhero1"))).toEqual(["spam here"]);
    // The restored rule still holds messages back.
    expect((await say("superhero2", "darn again", "superhero1")).body.data.data.moderation.status).toBe("disapproved");
  });
});
