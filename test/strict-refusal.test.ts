import { beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { DECLARED, type Operation } from "../src/http/operation.js";
import type { JsonSchema } from "../src/http/schema.js";
import { APP_ID, emulator, MGMT, type TestEmulator } from "./helpers.js";

/**
 * Strict mode refuses before anything changes (issue: "bad input gets the error and changes nothing"): for every
 * declared write operation of the REST, management, data-import and campaigns APIs, a request that is valid but for one unknown body
 * field (or query parameter) is refused with ERR_EMULATOR_STRICT, and the whole state is byte-identical after it.
 */

let e: TestEmulator;
beforeAll(async () => {
  e = await emulator();
  e.clock.freeze(1_700_000_000_000);
  expect((await e.put("/_emulator/advice", { strict: true }, { key: null })).status).toBe(200);
});

const WRITES = () => DECLARED.filter((op) => op.method !== "GET" && ["rest", "management", "data-import", "campaigns"].includes(op.plane));

/** Path parameters: any value will do, since the refusal comes before the handler looks anything up. */
const PARAMS: Record<string, string> = { uid: "superhero1", guid: "supergroup", appId: APP_ID };
const pathOf = (op: Operation) => op.path.replace(/:(\w+)/g, (_, name: string) => PARAMS[name] ?? "x1");

/** Candidates for a string with a pattern: the first that matches is used. */
const PATTERNED = ["a1", "abc", "1", "a@b.co", "+14155550123", "https://example.com/a", "x_1"];

/** A value the schema takes (only what is required: the smallest valid body). */
function valueOf(s: JsonSchema): unknown {
  if (Array.isArray(s.enum)) return s.enum.find((v) => v !== null);
  if (s["x-type"] === "integer") return 1;
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case "string": {
      if (s["x-url"]) return "https://example.com/a";
      const pattern = typeof s.pattern === "string" ? new RegExp(s.pattern, "u") : undefined;
      return pattern ? (PATTERNED.find((c) => pattern.test(c)) ?? "a1") : "a1";
    }
    case "integer":
    case "number":
      return 1;
    case "object":
      return {};
    case "array":
      return Array.from({ length: Number(s.minItems ?? 0) }, () => valueOf((s.items as JsonSchema | undefined) ?? {}));
    default:
      return "a1";
  }
}

function validBody(op: Operation): Record<string, unknown> {
  const schema = op.bodyJson!;
  const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
  return Object.fromEntries(((schema.required as string[] | undefined) ?? []).map((name) => [name, valueOf(props[name] ?? {})]));
}

async function refused(op: Operation, unknown: string) {
  const before = (await e.get("/_emulator/state", { key: null })).body;
  const base = op.plane === "management" ? `/apimgmt${pathOf(op)}` : op.plane === "campaigns" ? `/v3/campaigns${pathOf(op)}` : `/v3${pathOf(op)}`;
  // Management: the key and secret headers; `/tenants` takes them as HTTP Basic authentication.
  const basic = `Basic ${Buffer.from(`${MGMT.key}:${MGMT.secret}`).toString("base64")}`;
  const headers = op.plane === "management" ? (op.path === "/tenants" ? { authorization: basic } : { ...MGMT }) : {};
  const key = op.plane === "management" ? null : undefined;
  const reply = op.bodyJson
    ? await e.call(op.method, base, { key, headers, body: { ...validBody(op), [unknown]: 1 } })
    : await e.call(op.method, `${base}?${unknown}=1`, { key, headers });
  const after = (await e.get("/_emulator/state", { key: null })).body;
  return { reply, same: JSON.stringify(after) === JSON.stringify(before) };
}

describe("strict mode", () => {
  it("refuses every declared write operation's unknown field before anything changes", async () => {
    const ops = WRITES();
    expect(ops.length).toBeGreaterThan(100);
    const notStrict: string[] = [];
    for (const op of ops) {
      const { reply, same } = await refused(op, "zzNotAField");
      expect(same, `${op.method} ${op.path} changed the state`).toBe(true);
      expect(reply.status, `${op.method} ${op.path}`).toBeGreaterThanOrEqual(400);
      if (reply.body?.error?.code !== "ERR_EMULATOR_STRICT") notStrict.push(`${op.method} ${op.path}: ${reply.status} ${reply.body?.error?.code} ${JSON.stringify(reply.body?.error?.details ?? {})}`);
    }
    // Every one is refused by strict mode itself (not by a check the generated body failed).
    expect(notStrict).toEqual([]);
  });

  it("holds for any unknown name (property)", async () => {
    const ops = WRITES();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ops), fc.stringMatching(/^[a-z][A-Za-z0-9_]{2,20}$/), async (op, name) => {
        fc.pre(!op.bodyNames.has(name) && !op.queryNames.has(name));
        const { reply, same } = await refused(op, name);
        expect(same).toBe(true);
        expect(reply.body.error.code).toBe("ERR_EMULATOR_STRICT");
        expect(reply.body.error.source).toBe("emulator");
      }),
      { numRuns: 60, seed: 54 },
    );
  });
});
