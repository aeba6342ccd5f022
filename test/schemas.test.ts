import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { writeDemo } from "../src/demo/write.js";
import { SEED_SCHEMA_URL, STATE_SCHEMA_URL } from "../src/store/schemas.js";
import { createEmulator } from "../src/index.js";
import { DEFAULT_SEED_PATH, SeedError, checkUnknownFields, documentKind, parseSavedState, parseState, readSeedFile } from "../src/store/seed.js";
import { unknownSeedFields } from "../src/store/unknown-fields.js";
import { tempDir } from "./tmp.helpers.js";
import { round } from "./durability.workload.js";
import { emulator, MGMT, REST_KEY } from "./helpers.js";
import {
  BAD_PATTERNS,
  BAD_SEEDS,
  BAD_STATE_CHANGES,
  GOOD_SEEDS,
  NAMELESS_USER_STATE,
  NOT_IN_SCHEMA,
  SEED_FILE,
  type NotInSchema,
  type RefusedDocument,
} from "./seed-cases.js";

/**
 * The JSON Schemas of seed and state files (schemas/, published for editors) against the loader's validator:
 * what the emulator writes and ships passes both; what the validator's tests refuse, the schema refuses too,
 * unless the rule is one of NOT_IN_SCHEMA (which docs/data-files.md lists as well).
 */

const NOW = 1_700_000_000;
const read = (name: string): Record<string, unknown> => JSON.parse(readFileSync(new URL(`../schemas/${name}`, import.meta.url), "utf8"));
const seedSchema = read("seed.schema.json");
const stateSchema = read("state.schema.json");

// Strict mode: unknown keywords, types missing for type-specific keywords and required properties not defined
// are errors, so a mistake in a schema fails here rather than going unnoticed in an editor.
const ajv = new Ajv2020({ strict: true, allErrors: true });
ajv.addSchema(seedSchema).addSchema(stateSchema);
const seedValid = ajv.getSchema(SEED_SCHEMA_URL) as ValidateFunction;
const stateValid = ajv.getSchema(STATE_SCHEMA_URL) as ValidateFunction;

function passes(validate: ValidateFunction, doc: unknown): boolean {
  return validate(doc) as boolean;
}
function expectPasses(validate: ValidateFunction, doc: unknown): void {
  expect(validate(doc), JSON.stringify(validate.errors?.slice(0, 5), null, 1)).toBe(true);
}

async function demoText(): Promise<string> {
  const out = new PassThrough();
  let text = "";
  out.on("data", (d: Buffer) => (text += d.toString()));
  await writeDemo(out, { users: 40, groups: 6, messages: 800, seed: 3, days: 3, until: 1_790_000_000 });
  return text;
}

/**
 * An export of a running emulator after writes of every kind of state (the durability tests' round) and a few of
 * its own.
 */
async function exported(): Promise<any> {
  const e = await emulator();
  const ids: Record<string, string> = {};
  for (const w of round("sc")) {
    const r = w.request(ids);
    const headers: Record<string, string> = r.path.startsWith("/apimgmt") ? { ...MGMT } : { apikey: REST_KEY };
    const reply = await e.call(r.method, r.path, { body: r.body, key: null, headers, onBehalfOf: r.onBehalfOf });
    expect(reply.status, `${w.name}: ${JSON.stringify(reply.body)}`).toBeLessThan(300);
    w.keep?.(reply.body, ids);
  }
  await e.post("/v3/roles", { role: "staff", name: "Staff" });
  await e.post("/v3/users", { uid: "ann", name: "Ann", role: "staff", tags: ["t"], metadata: { a: 1 } });
  await e.post("/v3/groups", { guid: "pw", name: "Pw", type: "password", password: "secret", owner: "ann" });
  const sent = await e.post("/v3/messages", { receiver: "superhero2", receiverType: "user", data: { text: "hi" } }, { onBehalfOf: "ann" });
  await e.post(`/v3/messages/${sent.body.data.id}/reactions/👍`, undefined, { onBehalfOf: "superhero2" });
  await e.post("/v3/moderation/keywords", { id: "pats", name: "Pats", category: "pattern", searchTerms: ["\\d{3}"] });
  await campaignsState(e);
  const state = (await e.get("/_emulator/state", { key: null })).body;
  // What the writes above leave empty, as the emulator writes it (the loader's tests spoil some of these).
  const [app] = state.apps;
  const messageId = app.messages[0].id;
  expect(app.notifications.tokens.length + app.bots.length + app.calls.length).toBeGreaterThan(0);
  // The campaigns service's records as its operations leave them, every kind of them.
  expect(Object.keys(app.campaigns).sort()).toEqual(["campaigns", "categories", "channels", "eventCount", "events", "items", "lastId", "pushes", "templates", "uploads"]);
  app.webhooks.push({ id: "wh1", name: "Hook", webhookURL: "https://example.com/hook", useBasicAuth: false, enabled: true, retryOnFailure: false, version: 2, triggers: ["message_sent"], createdAt: NOW, updatedAt: NOW });
  app.agents.push({ uid: "superhero3", kind: "builder", fields: { name: "Helper" }, createdAt: NOW * 1000, updatedAt: NOW * 1000 });
  app.authTokens.push({ uid: "superhero1", authToken: "superhero1_token", createdAt: NOW, platform: "web" });
  app.threadSubscriptions.push({ uid: "superhero1", messageId, at: NOW });
  app.interactions.push({ uid: "superhero2", messageId, elementId: "button1", interactedAt: NOW });
  app.pinnedConversations.push({ guid: app.groups[0].guid, pinnedAt: NOW }, { uid: "superhero2", pinnedAt: NOW });
  return state;
}

/** Writes every kind of the campaigns service's records (docs/campaigns.md). */
async function campaignsState(e: Awaited<ReturnType<typeof emulator>>): Promise<void> {
  const B = "/v3/campaigns";
  const ok = async (method: string, path: string, body?: unknown, headers?: Record<string, string>) => {
    const r = await e.call(method, B + path, { body, headers });
    expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
    return r.body?.data;
  };
  await ok("POST", "/templates/categories", { name: "kept", description: "Kept" });
  await ok("POST", "/channels", { name: "Inbox", type: "in_app", enabled: true, metadata: { a: 1 } });
  const channels = [
    { channelType: "in_app", content: { title: "Hi {{name}}" }, sequenceOrder: 1, stopCondition: "read", waitMinutes: 5, messageRetentionHours: 24, dataType: "ui_template", categoryFilterEnabled: true },
    { channelType: "push", content: { title: "Hey {{name}}" }, sequenceOrder: 2 },
  ];
  const t = await ok("POST", "/templates", { name: "Kept", templateCategory: "kept", status: "approved", label: "L", alternativeText: "A", tags: ["t"], variableSchema: [{ key: "name", default: "you" }, "code"], channels, config: { c: 1 } });
  const cam = await ok("POST", "/campaigns", { name: "Now", templateId: t.id, templateVersion: 1, variables: { code: "X" } });
  const up = await ok("POST", `/campaigns/${cam.id}/recipients/upload-url`);
  await e.call("PUT", up.uploadUrl, { key: null, raw: "uid,name\nsuperhero1,Tony\nghost,G\n" });
  await ok("POST", `/campaigns/${cam.id}/import-csv`, { s3Key: up.s3Key });
  await ok("POST", `/campaigns/${cam.id}/send`);
  const later = await ok("POST", "/campaigns", { name: "Later", templateId: t.id, templateVersion: 1 });
  await ok("POST", `/campaigns/${later.id}/recipients`, { userIds: ["superhero2"], userVariables: { superhero2: { name: "Steve" } } });
  await ok("POST", `/campaigns/${later.id}/schedule`, { scheduledAt: Math.floor(Date.now() / 1000) + 86_400 });
  const pending = await ok("POST", "/campaigns", { name: "Pending upload", templateId: t.id, templateVersion: 1 });
  const file = await ok("POST", `/campaigns/${pending.id}/recipients/upload-url`);
  await e.call("PUT", file.uploadUrl, { key: null, raw: "uid\nsuperhero3\n" });
  await ok("POST", "/notifications/messages", { templateId: t.id, receivers: ["superhero1"], variables: { superhero1: { name: "T" } } });
  const [item] = await ok("GET", "/notification-feed?limit=1", undefined, { onbehalfof: "superhero1" });
  await ok("POST", `/notification-feed/${item.id}/read`, undefined, { onbehalfof: "superhero1" });
  await ok("POST", `/notification-feed/${item.id}/engagement`, { topic: "clicked" }, { onbehalfof: "superhero1" });
  const [push] = await ok("GET", "/push-notifications?limit=1", undefined, { onbehalfof: "superhero1" });
  await ok("PUT", `/push-notifications/${push.id}/clicked`, undefined, { onbehalfof: "superhero1" });
  await ok("POST", `/push-notifications/${push.id}/engagement`, { topic: "dismissed" }, { onbehalfof: "superhero1" });
  await ok("DELETE", `/notification-feed/${item.id}`);
}

/** The docs' illustrative seed (docs/data-files.md, "Seed files"). */
function docsSeed(): unknown {
  const page = readFileSync(new URL("../docs/data-files.md", import.meta.url), "utf8");
  const block = /## Seed files[\s\S]*?```json\n([\s\S]*?)```/.exec(page);
  return JSON.parse(block![1]);
}

describe("the schemas", () => {
  it("compile in strict mode, with the addresses the written files name", () => {
    expect(seedSchema.$id).toBe(SEED_SCHEMA_URL);
    expect(stateSchema.$id).toBe(STATE_SCHEMA_URL);
    expect(seedSchema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(stateSchema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(typeof seedValid).toBe("function");
    expect(typeof stateValid).toBe("function");
  });

  it("ship in the package", () => {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    expect(pkg.files).toContain("schemas");
  });
});

describe("valid files pass the validator and the schema, and name the schema", () => {
  it("the bundled seed (fixtures/seed.json), read as --seed reads it", async () => {
    const seed = JSON.parse(readFileSync(DEFAULT_SEED_PATH, "utf8"));
    expect(seed.$schema).toBe(SEED_SCHEMA_URL);
    expect((await readSeedFile(DEFAULT_SEED_PATH, NOW))[0].users.length).toBeGreaterThan(0);
    expectPasses(seedValid, seed);
  });

  it("the seed of docs/data-files.md", () => {
    const seed = docsSeed() as { $schema?: string };
    expect(seed.$schema).toBe(SEED_SCHEMA_URL);
    expect(() => parseState(seed, NOW, "docs")).not.toThrow();
    expectPasses(seedValid, seed);
  });

  for (const [name, seed] of Object.entries(GOOD_SEEDS))
    it(`the seeds the loader's tests load: ${name}`, () => {
      expect(() => parseState(seed, NOW, "seed")).not.toThrow();
      expectPasses(seedValid, seed);
    });

  it("what `demo` writes", async () => {
    const doc = JSON.parse(await demoText());
    expect(doc.$schema).toBe(STATE_SCHEMA_URL);
    expect(documentKind(doc)).toBe("state");
    expect(parseSavedState(doc, NOW, "demo").apps[0].messages.length).toBe(800);
    expectPasses(stateValid, doc);
  });

  it("what `export` writes (GET /_emulator/state), with campaigns and notifications", async () => {
    const state = await exported();
    expect(state.$schema).toBe(STATE_SCHEMA_URL);
    expect(() => parseSavedState(state, NOW, "state")).not.toThrow();
    expectPasses(stateValid, state);
  });

  it("a state's apps are valid seed apps, and a seed file is no state file", () => {
    expectPasses(seedValid, SEED_FILE);
    expect(documentKind(SEED_FILE)).toBe("seed");
    expect(passes(stateValid, SEED_FILE)).toBe(false);
    expect(passes(seedValid, { ...SEED_FILE, format: "chat-emulator/state@1" })).toBe(false);
  });
});

/** A validator's path (`apps[0].users[2].uid`) as a JSON pointer (`/apps/0/users/2/uid`). */
const pointer = (path: string) => `/${path.replace(/\[(\d+)\]/g, ".$1")}`.replaceAll(".", "/");

/**
 * The validator refuses `c`; the schema refuses it too, in the record whose field the validator names, or lets it
 * through for the reason `c` names.
 */
function checkRefused(c: RefusedDocument, parse: (doc: unknown) => unknown, validate: ValidateFunction): void {
  let refusal: SeedError | undefined;
  try {
    parse(c.doc);
  } catch (e) {
    refusal = e as SeedError;
  }
  expect(refusal, `${c.name}: the validator should refuse it`).toBeInstanceOf(SeedError);
  expect(refusal!.message).toContain(c.error);
  const schemaPasses = passes(validate, c.doc);
  expect(schemaPasses, `${c.name}: ${c.notInSchema ? `the schema cannot tell (${c.notInSchema})` : "the schema should refuse it"}`).toBe(c.notInSchema !== undefined);
  if (schemaPasses) return;
  // The record that holds the field the validator names (the document, for a missing apps).
  const at = pointer(refusal!.path!);
  const record = at.slice(0, at.lastIndexOf("/"));
  const places = validate.errors!.map((e) => ("missingProperty" in e.params ? `${e.instancePath}/${String(e.params.missingProperty)}` : e.instancePath));
  expect(
    places.some((p) => p === record || p.startsWith(`${record}/`)),
    `${c.name}: the schema refuses it in ${record || "the document"}, not only at ${places.join(", ")}`,
  ).toBe(true);
}

describe("files the validator refuses fail the schema, unless the rule is one it cannot express", () => {
  const seeds: RefusedDocument[] = [...Object.values(BAD_SEEDS), ...Object.values(BAD_PATTERNS)];
  for (const c of seeds) it(`seed: ${c.name}`, () => checkRefused(c, (doc) => parseState(doc, NOW, "seed"), seedValid));

  it("state: a user without a name", () => checkRefused({ name: "nameless", ...NAMELESS_USER_STATE }, (doc) => parseSavedState(doc, NOW, "state"), stateValid));

  it("state: exports spoiled as the loader's tests spoil them", async () => {
    const state = await exported();
    for (const c of Object.values(BAD_STATE_CHANGES)) {
      const doc = structuredClone(state);
      c.change(doc);
      checkRefused({ name: c.name, doc, error: c.error }, (d) => parseSavedState(d, NOW, "state"), stateValid);
    }
  });

  it("docs/data-files.md lists the rules the schemas leave out, as the cases name them", () => {
    const page = readFileSync(new URL("../docs/data-files.md", import.meta.url), "utf8");
    for (const key of Object.keys(NOT_IN_SCHEMA) as NotInSchema[]) expect(page, `docs/data-files.md lists ${key}`).toContain(NOT_IN_SCHEMA[key]);
  });
});

describe("rules of one record the schema holds beyond the loader's tests", () => {
  const app = (extra: object) => ({ apps: [{ app: { appId: "a1", name: "A" }, users: [{ uid: "u1", name: "U1" }, { uid: "u2", name: "U2" }], ...extra }] });
  const cases: RefusedDocument[] = [
    {
      name: "the data-masking extension without enabled",
      doc: app({ management: { extensions: { "data-masking": { settings: {} } } } }),
      error: "apps[0].management.extensions.data-masking must be an object with a boolean enabled",
    },
    {
      name: "a recording of a call that never started",
      doc: app({ calls: [{ initiator: "u1", receiver: "u2", status: "rejected", hasRecording: true }] }),
      error: "apps[0].calls[0].recordings must be empty: the call never started",
    },
    {
      name: "a pinned message without pinnedAt",
      doc: app({ messages: [{ sender: "u1", receiver: "u2", pinnedBy: "u1" }] }),
      error: "apps[0].messages[0].pinnedAt goes with pinnedBy: give both or neither",
    },
    {
      name: "a conversation pinned for everyone naming both a user and a group",
      doc: app({ groups: [{ guid: "g", name: "G" }], pinnedConversations: [{ uid: "u1", guid: "g" }] }),
      error: "apps[0].pinnedConversations[0] must name exactly one of uid and guid",
    },
  ];
  for (const c of cases) it(c.name, () => checkRefused(c, (doc) => parseState(doc, NOW, "seed"), seedValid));
});

describe("a top-level $schema", () => {
  it("is accepted by the loader in a seed and a state, and changes nothing", () => {
    const seed = { format: "chat-emulator/seed@1", apps: [{ app: { appId: "a1", name: "A" }, users: [{ uid: "u1", name: "U" }] }] };
    const named = { $schema: SEED_SCHEMA_URL, ...seed };
    expect(parseState(named, NOW, "seed")).toEqual(parseState(seed, NOW, "seed"));
    const state = { $schema: STATE_SCHEMA_URL, format: "chat-emulator/state@1", apps: [{ app: { appId: "a1", name: "A" } }] };
    expect(documentKind(state)).toBe("state");
    expect(() => parseSavedState(state, NOW, "state")).not.toThrow();
  });
});

describe("unknown fields of a seed", () => {
  // Typos the loader would otherwise drop without a word, and a key inside open content (metadata), which is data.
  const typos = {
    apps: [
      {
        app: { appId: "typo1", name: "Typos" },
        gropus: [{ guid: "g", name: "G" }],
        users: [
          { uid: "ann", name: "Ann", metaData: { plan: "pro" } },
          { uid: "bob", name: "Bob", metadata: { anyKey: { atAll: 1 } } },
        ],
        messages: [{ sender: "ann", receiver: "bob", data: { text: "hi" }, sentAT: 1_700_000_000 }],
      },
    ],
  };
  const named = [
    "apps[0].gropus (did you mean groups?)",
    "apps[0].users[0].metaData (did you mean metadata?)",
    "apps[0].messages[0].sentAT (did you mean sentAt?)",
  ].join(", ");

  it("are named at load with the nearest known field, ignored, and the rest loads", async () => {
    const lines: string[] = [];
    const e = await createEmulator({ seed: typos, log: (l) => lines.push(l) });
    try {
      expect(lines).toEqual([`chat-emulator: warning: seed: unknown fields, ignored (--strict refuses them): ${named}`]);
      expect(e.emulator.store.apps.get("typo1")!.users.get("ann")!.metadata).toBeUndefined();
    } finally {
      await e.persistence?.close();
    }
  });

  it("refuse the start with --strict, from a file as from a document", async () => {
    await expect(createEmulator({ seed: typos, strict: true, quiet: true })).rejects.toThrow(new SeedError(`seed: unknown fields, refused with --strict: ${named}`));
    const file = join(tempDir("typos"), "seed.json");
    writeFileSync(file, JSON.stringify(typos));
    await expect(readSeedFile(file, NOW, { strict: true, warn: () => {} })).rejects.toThrow(`${file}: unknown fields, refused with --strict: ${named}`);
  });

  it("are flagged by the seed schema in the same places, and nowhere in what the emulator ships or the loader's good seeds", () => {
    expect(seedValid(typos)).toBe(false);
    const flagged = seedValid.errors!.filter((x) => x.keyword === "additionalProperties").map((x) => `${x.instancePath}/${(x.params as { additionalProperty: string }).additionalProperty}`);
    expect(flagged).toEqual(["/apps/0/gropus", "/apps/0/users/0/metaData", "/apps/0/messages/0/sentAT"]);
    for (const doc of [SEED_FILE, ...Object.values(GOOD_SEEDS), JSON.parse(readFileSync(DEFAULT_SEED_PATH, "utf8"))]) expect(unknownSeedFields(doc)).toEqual([]);
  });

  it("of a state document are not looked for (the emulator wrote it)", () => {
    const warned: string[] = [];
    checkUnknownFields({ format: "chat-emulator/state@1", apps: [{ app: { appId: "a1", name: "A" }, gropus: [] }] }, "state", { warn: (l) => warned.push(l) });
    expect(warned).toEqual([]);
  });
});
