import { afterEach, describe, expect, it, vi } from "vitest";
import fc from "fast-check";
import { RE2JS, RE2Set } from "re2js";
import { PatternSet } from "../src/util/safe-regex.js";
import { APP_ID, emulator, expectError, type TestEmulator } from "./helpers.js";

/**
 * Issue 35, item 4: user-supplied patterns run on RE2 (linear in the text), so the patterns that freeze a
 * backtracking engine are harmless: each is refused with 400 and `details`, or accepted and matched against a
 * message built to make it backtrack. The timing itself lives in bench/regex.mjs (no timed assertions here).
 */

const send = (e: TestEmulator, text: string) =>
  e.post("/v3/messages", { receiver: "superhero2", receiverType: "user", category: "message", type: "text", data: { text } }, { onBehalfOf: "superhero1" });
const held = (r: { body: any }) => r.body.data.data.moderation?.status === "disapproved";
const rule = (e: TestEmulator, id: string, patterns: string[]) =>
  e.post("/v3/moderation/rules", {
    id,
    name: id,
    enabled: true,
    action: ["blockMessage"],
    conditions: [{ entity: "message", operand: "text", operator: "contains", category: "pattern", value: patterns }],
  });

afterEach(() => vi.restoreAllMocks());

describe("user-supplied regular expressions", () => {
  it("moderation patterns run on the linear-time engine: (a|a)*b and (\\w|\\d)+! over a 10 000-character message", async () => {
    const e = await emulator();
    const add = vi.spyOn(RE2Set.prototype, "add");
    expect((await rule(e, "catastrophic", ["(a|a)*b", "(\\w|\\d)+!"])).status).toBe(200);
    const adversarial = "a".repeat(10_000); // no b, no !: a backtracking engine tries 2^n ways before it fails
    expect(held(await send(e, adversarial))).toBe(false);
    // All the app's patterns run as one RE2 set (a DFA, or RE2's NFA), never on JavaScript's RegExp.
    expect(add.mock.calls.map(([source]) => source)).toEqual(["(a|a)*b", "(\\w|\\d)+!"]);
    expect(held(await send(e, `${"1".repeat(9_990)}!`))).toBe(true);
    expect(held(await send(e, `${"a".repeat(9_990)}b`))).toBe(true);
  });

  it("keyword lists of category pattern run on it too", async () => {
    const e = await emulator();
    expect((await e.post("/v3/moderation/keywords", { id: "p", name: "P", category: "pattern", searchTerms: ["((a+)+)+c"] })).status).toBe(200);
    const body = { id: "by-list", name: "L", enabled: true, action: ["blockMessage"] };
    const condition = { entity: "message", operand: "text", operator: "contains", category: "pattern", isKeywordsReferencePresent: true, value: ["p"] };
    expect((await e.post("/v3/moderation/rules", { ...body, conditions: [condition] })).status).toBe(200);
    expect(held(await send(e, "a".repeat(10_000)))).toBe(false);
    expect(held(await send(e, `${"a".repeat(5_000)}c`))).toBe(true);
  });

  it("data masking: the built-in email mask and custom masks on a 10 000-character adversarial message", async () => {
    const e = await emulator();
    const ext = (path: string) => `/apps/${APP_ID}/extensions${path}`;
    await e.mgmt("POST", ext(""), { enabled: ["data-masking"] });
    // The built-in email mask \w+([.-]?\w+)*@… backtracks exponentially on a long word with no @.
    let r = await send(e, `${"a".repeat(10_000)}!`);
    expect(r.body.data.data.metadata["@injected"].extensions["data-masking"].data.sensitive_data).toBe("no");
    const put = await e.mgmt("PUT", ext("/data-masking/v1/settings"), { settings: { dropMessage: false, customregexData: [{ name: "x", regex: "(x|x)*y" }] } });
    expect(put.status).toBe(200);
    r = await send(e, `${"x".repeat(9_000)} xxy`);
    expect(r.body.data.data.metadata["@injected"].extensions["data-masking"].data).toEqual({
      sensitive_data: "yes",
      message_masked: `${"x".repeat(9_000)} ***`,
    });
  });

  it("a masking pass is bounded: past its search budget the rest of the text is masked whole", async () => {
    const e = await emulator();
    const ext = (path: string) => `/apps/${APP_ID}/extensions${path}`;
    await e.mgmt("POST", ext(""), { enabled: ["data-masking"] });
    await e.mgmt("PUT", ext("/data-masking/v1/settings"), {
      settings: { dropMessage: false, defaultRegexData: [1, 2, 3].map((id) => ({ id: String(id), enableFlag: false })), customregexData: [{ name: "a", regex: "a*b|a" }] },
    });
    // Every `a` is a match, and each search first runs to the end of the text looking for a b.
    const masked = (await send(e, "a".repeat(10_000))).body.data.data.metadata["@injected"].extensions["data-masking"].data.message_masked;
    expect(masked).toBe("*".repeat(10_000));
  });

  it("refuses what RE2 cannot run, or too large a program, with 400 and details", async () => {
    const e = await emulator();
    const cases: [string, RegExp][] = [
      ["(a)\\1", /back-references/],
      ["(?=a)b", /look-ahead/],
      ["(?<!a)b", /look-behind/],
      ["\\w{1,200}", /more than 300 instructions/],
      ["(unclosed", /not a valid RE2 pattern/],
    ];
    for (const [pattern, why] of cases) {
      const err = expectError(await rule(e, "r", [pattern]), 400, "ERR_BAD_REQUEST");
      expect(err.details!["conditions.0.value.0"][0]).toMatch(why);
    }
    const many = Array.from({ length: 20 }, (_, i) => `x${i}\\w{1,90}`);
    const err = expectError(await rule(e, "r", many), 400, "ERR_BAD_REQUEST");
    expect(err.details).toEqual({ "conditions.0.value": ["The patterns together compile to more than 3000 instructions."] });
    const list = expectError(await e.post("/v3/moderation/keywords", { id: "p", name: "P", category: "pattern", searchTerms: ["(?!x)"] }), 400, "ERR_BAD_REQUEST");
    expect(Object.keys(list.details!)).toEqual(["searchTerms.0"]);
    await e.mgmt("POST", `/apps/${APP_ID}/extensions`, { enabled: ["data-masking"] });
    const mask = expectError(
      await e.mgmt("PUT", `/apps/${APP_ID}/extensions/data-masking/v1/settings`, { settings: { dropMessage: false, customregexData: [{ name: "m", regex: "x?" }] } }),
      400,
      "ERR_BAD_REQUEST",
    );
    expect(mask.details).toEqual({ "settings.customregexData.0.regex": ["The regex may not match empty text."] });
    expect((await e.get("/v3/moderation/rules/r")).status).toBe(404);
  });

  it("fuzz: catastrophic patterns are refused or accepted and matched against messages that exercise them", async () => {
    const e = await emulator();
    const atom = fc.constantFrom("a", "\\w", "\\d", "[a1]", ".", "(?:a|a)", "(a|\\w)", "\\s");
    const quant = fc.constantFrom("*", "+", "?", "{1,9}", "{2,}", "");
    const pattern: fc.Arbitrary<string> = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        fc.tuple(atom, quant).map(([a, q]) => a + q),
        fc.tuple(tie("node"), tie("node"), quant).map(([x, y, q]) => `(${x}|${y})${q}`),
        fc.tuple(tie("node"), tie("node"), quant).map(([x, y, q]) => `(?:${x}${y})${q}`),
      ),
    })).node as fc.Arbitrary<string>;
    const ending = fc.constantFrom("!", "b", "$", "\\1", "(?=x)");
    let id = 0;
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(pattern, ending, fc.constantFrom("a", "1", "a1", " a"), async (p, end, unit) => {
        const source = `(${p})+${end}`;
        const created = await rule(e, `f${++id}`, [source]);
        if (created.status === 400) {
          expect(created.body.error.code).toBe("ERR_BAD_REQUEST");
          expect(Object.keys(created.body.error.details)).toEqual(["conditions.0.value.0"]);
          return;
        }
        expect(created.status).toBe(200);
        accepted++;
        const r = await send(e, unit.repeat(Math.floor(9_000 / unit.length)));
        expect(r.status === 200 || r.status === 403).toBe(true);
        await e.del(`/v3/moderation/rules/f${id}`);
      }),
      { numRuns: 40 },
    );
    expect(accepted).toBeGreaterThan(10);
    expect((await e.get("/_emulator/health")).status).toBe(200);
  });

  it("one RE2 set answers as each pattern alone: which labelled lists match, searched or whole, case-insensitive", () => {
    const atom = fc.constantFrom("a", "B", "\\d", "[ab]", ".", "\\b", "^", "$", "\\s", "(?:a|b1)");
    const piece = fc.tuple(atom, fc.constantFrom("", "?", "*", "+", "{1,3}")).map(([a, q]) => (/^(?:\^|\$|\\b)$/.test(a) && q ? a : a + q));
    const source = fc.array(piece, { minLength: 1, maxLength: 4 }).map((p) => p.join(""));
    const lists = fc.array(fc.array(source, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 4 });
    const text = fc.array(fc.constantFrom("a", "A", "b", "B", "1", " ", "\n", "x"), { maxLength: 12 }).map((c) => c.join(""));
    fc.assert(
      fc.property(lists, text, fc.boolean(), (of, t, whole) => {
        const labelled = of.map((patterns, label) => ({ label, patterns }));
        const set = PatternSet.labelled(labelled, { whole });
        const alone = (p: string) => RE2JS.compile(p, RE2JS.CASE_INSENSITIVE);
        const expected = labelled.filter(({ patterns }) => patterns.some((p) => (whole ? alone(p).testExact(t) : alone(p).test(t)))).map(({ label }) => label);
        expect([...(set?.labelsIn(t) ?? [])].sort()).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});
