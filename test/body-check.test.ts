import { describe, expect, it } from "vitest";
import { checkBody, checkFields } from "../src/http/body-check.js";
import { bodySchema, type Schema } from "../src/http/schema.js";

/**
 * The one validator's caches (http/body-check.ts): a field map is compiled once per object and once per content,
 * and past a bound of contents compiled for the call alone. Each path answers as a plain check does.
 */

const detailsOf = (fn: () => void) => {
  try {
    fn();
    return "ok";
  } catch (e) {
    return (e as { details?: unknown }).details;
  }
};

const fields = (max: number): Schema => ({
  uid: { required: true, type: "string", max, pattern: /^[a-z0-9-]+$/, patternMessage: "The uid may only contain letters, numbers, and dashes." },
  tags: { type: "array", max: 2, items: { required: true, type: "string", max: 5 } },
  flag: { type: "boolean" },
});
const BODIES = [{ uid: "ok-1" }, { uid: "" }, { uid: "Bad Id", tags: ["a", "toolong", 3] }, { uid: 5, flag: "yes" }, { tags: [], flag: 1 }];

describe("the validator's caches", () => {
  it("answer as a plain check, for maps made once, written inline, and past the bound of contents", () => {
    const made = fields(10);
    for (const body of BODIES) {
      const plain = detailsOf(() => checkBody(body, bodySchema(fields(10))));
      expect(detailsOf(() => checkFields(body, made))).toEqual(plain);
      expect(detailsOf(() => checkFields(body, fields(10)))).toEqual(plain); // inline: cached by content
    }
    // More distinct contents than are kept: the later ones are compiled for the call and answer the same.
    for (let max = 3; max < 700; max++) {
      const body = BODIES[max % BODIES.length];
      expect(detailsOf(() => checkFields(body, fields(max)))).toEqual(detailsOf(() => checkBody(body, bodySchema(fields(max)))));
    }
  });
});
