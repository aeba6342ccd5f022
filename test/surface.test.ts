import { describe, expect, it } from "vitest";
// Importing the app imports every route module, so every operation is declared (DECLARED) before the checks run.
import "../src/app.js";
import { DECLARED } from "../src/http/operation.js";
import { key, pathScore, published, skeletons, surface, type Surface } from "./surface.lib.js";

// The served surface against the platform's published operations (docs/coverage.md, "The published surface").
// `node scripts/surface-review.mjs` prints what these checks find as JSON to paste into the reviewed lists.
const s = surface();
const REVIEW = process.env.SURFACE_REVIEW === "1";
if (REVIEW) process.stdout.write(`\n<<<surface-review\n${JSON.stringify({ ...skeletons(s), stale: s.stale, staleNotServed: s.staleNotServed, todo: s.todo, wrongIds: s.wrongIds }, null, 2)}\nsurface-review>>>\n`);

/** Fails listing `lines`, one a line, with what to do about them. */
function none(lines: string[], what: string) {
  if (lines.length > 0) throw new Error(`${lines.length} ${what} (node scripts/surface-review.mjs prints them as JSON to paste):\n  ${lines.join("\n  ")}`);
}
const diffLine = (d: Surface["unreviewed"][number]) => `${d.key}: ${d.in} ${d.name} (${d.side === "published" ? "published, not declared" : "declared, not published"})`;

describe("served surface against the published API", () => {
  it("matches paths by shape: parameters of any name, a declared parameter standing for a published literal", () => {
    expect(pathScore("/users/:uid", "/users/{uid}")).toBe(1);
    expect(pathScore("/apps/:appId/extensions/:id/v1/settings", "/apps/{appId}/extensions/gifs-giphy/v1/settings")).toBe(4);
    expect(pathScore("/users/me", "/users/{uid}")).toBeUndefined();
    expect(pathScore("/users/:uid", "/users/{uid}/friends")).toBeUndefined();
  });

  it("the catalogue holds the five published APIs and the app declares operations", () => {
    expect([...new Set(published().map((p) => p.api))].sort()).toEqual(["calls", "campaigns", "chat", "data-import", "management"]);
    expect(DECLARED.length).toBeGreaterThan(0);
  });

  it.skipIf(REVIEW)("every published operation is declared or listed in catalogue/not-served.json", () => {
    none(s.missing.map((p) => `${key(p)}  (${p.id ?? "no operationId"})`), "published operations are neither declared nor listed as not served");
  });

  it.skipIf(REVIEW)("no not-served entry is declared after all or names no published operation", () => {
    none(s.staleNotServed.map(key), "entries of catalogue/not-served.json are stale: remove them");
  });

  it.skipIf(REVIEW)("declared ids are the published operationIds (or the difference is reviewed)", () => {
    none(s.wrongIds.map((w) => `${w.key}: declared ${w.declared}, published ${w.published}`), "declared ids are not the published operationId");
  });

  it.skipIf(REVIEW)("body fields and query parameters: every difference is reviewed, every reviewed one still differs", () => {
    none(s.unreviewed.map(diffLine), "differences are not reviewed in catalogue/differences.json");
    none(s.stale, "entries of catalogue/differences.json are stale: remove them");
  });

  it.skipIf(REVIEW)("every reviewed entry gives its reason", () => {
    none(s.todo, "reviewed entries have no reason yet (empty or TODO)");
  });
});
