import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { compileGlob } from "../src/control/glob.js";
import { emulator, expectError } from "./helpers.js";

/** The reference meaning of a glob, for small inputs only (this regex does backtrack). */
function slowGlob(glob: string): (path: string) => boolean {
  const source = [...glob].map((ch) => (ch === "*" ? ".*" : ch === "?" ? "." : ch.replace(/[.+^${}()|[\]\\]/g, "\\$&"))).join("");
  const re = new RegExp(`^${source}$`, "is");
  return (path) => re.test(path);
}

describe("globs", () => {
  it("match like *, ? and literal characters should, case-insensitively", () => {
    const cases: [string, string, boolean][] = [
      ["/v3/users*", "/v3/users/superhero1", true],
      ["/v3/users*", "/V3/USERS", true],
      ["/v3/users/?/auth_tokens", "/v3/users/a/auth_tokens", true],
      ["/v3/users/?/auth_tokens", "/v3/users/ab/auth_tokens", false],
      ["*members", "/v3/groups/g/members", true],
      ["*members", "/v3/groups/g/members/x", false],
      ["/v3/messages", "/v3/messages", true],
      ["/v3/messages", "/v3/messages/1", false],
      ["*", "", true],
      ["a*b*c", "abc", true],
      ["a*b*c", "acb", false],
      ["a*a", "a", false],
      ["*a?", "ba", false],
    ];
    for (const [glob, path, want] of cases) expect([glob, path, compileGlob(glob)(path)]).toEqual([glob, path, want]);
  });

  it("agree with the regular-expression meaning on random globs and paths", () => {
    const alphabet = fc.constantFrom("a", "b", "/", "*", "?");
    fc.assert(
      fc.property(fc.string({ unit: alphabet, maxLength: 8 }), fc.string({ unit: fc.constantFrom("a", "b", "/", "A"), maxLength: 12 }), (glob, path) => {
        expect(compileGlob(glob)(path)).toBe(slowGlob(glob)(path));
      }),
      { numRuns: 3000 },
    );
  });

  it("never backtrack: a pathological pattern against a 2,000-character path is immediate", () => {
    const path = "/" + "a".repeat(2000);
    const started = performance.now();
    for (const glob of ["/*a*a*a*a*a*b", "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", "*?*?*?*?*?*?*?*?*b"])
      expect(compileGlob(glob)(path)).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000); // the regex version takes minutes
  });

  it("a pathological rule and journal filter leave the emulator answering", async () => {
    const e = await emulator();
    const long = `/v3/users/${"a".repeat(2000)}`;
    expect((await e.post("/_emulator/rules", { match: { path: "/*a*a*a*a*a*a*a*b" }, effect: { status: 500 } })).status).toBe(201);
    expectError(await e.get(long), 404, "ERR_UID_NOT_FOUND");
    const r = await e.get(`/_emulator/requests?path=${encodeURIComponent("/*a*a*a*a*a*a*a*a*a*b")}`);
    expect(r.status).toBe(200);
    expect(r.body.requests).toEqual([]);
  });
});
