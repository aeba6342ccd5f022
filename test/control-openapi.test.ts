import { readFileSync } from "node:fs";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { beforeAll, describe, expect, it } from "vitest";
import { OPENAPI } from "../src/control/openapi.js";
import { control } from "../src/control/routes.js";
import { APP_ID, emulator, expectError, MGMT, REST_KEY, type Reply, type TestEmulator } from "./helpers.js";
import { startReceiver } from "./receiver.helpers.js";

/**
 * `GET /_emulator/openapi.json` (src/control/openapi.ts): it describes exactly the routes the control router
 * serves; its schemas are valid JSON Schema 2020-12 (ajv, strict); the examples of docs/control-api.md fit them
 * (its ```json blocks marked `<!-- tested: test/control-openapi.test.ts -->` and named by a `<!-- schema: Name -->`
 * line above, the bodies its curl commands send, and its inline `METHOD /_emulator/... {body}` examples); and so
 * do live answers (every operation that answers JSON is called once).
 */

const PAGE = "docs/control-api.md";
const ID = "urn:chat-emulator:control-openapi";

interface Operation {
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { $ref?: string; content?: Record<string, { schema: unknown }> }>;
}
type Doc = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };
const doc = OPENAPI as unknown as Doc;

const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
ajv.addFormat("date-time", { type: "string", validate: (s: string) => !Number.isNaN(Date.parse(s)) });
// The document's own fields are no schema keywords: known, so that strict mode lets refs reach inside it.
ajv.addVocabulary(["openapi", "jsonSchemaDialect", "info", "servers", "tags", "security", "paths", "components"]);
ajv.addSchema({ $id: ID, ...OPENAPI });

/** A validator for the schema at this JSON pointer of the document (its `#/components/...` refs resolve in it). */
const compiled = new Map<string, ValidateFunction>();
function validatorAt(...parts: string[]): ValidateFunction {
  const pointer = parts.map((p) => `/${encodeURIComponent(p.replace(/~/g, "~0").replace(/\//g, "~1"))}`).join("");
  let v = compiled.get(pointer);
  if (!v) compiled.set(pointer, (v = ajv.compile({ $ref: `${ID}#${pointer}` })));
  return v;
}

function expectValid(v: ValidateFunction, value: unknown, what: string): void {
  const ok = v(value);
  expect(ok ? [] : v.errors?.map((e) => `${e.instancePath || "(root)"} ${e.message} ${JSON.stringify(e.params)}`), what).toEqual([]);
}

/** The documented path a concrete `/_emulator/...` path is an instance of. */
function templateOf(path: string): string {
  const bare = path.split("?")[0];
  const exact = Object.keys(doc.paths).find((t) => t === bare);
  if (exact) return exact;
  const found = Object.keys(doc.paths).find((t) => new RegExp(`^${t.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(bare));
  if (!found) throw new Error(`no documented path for ${path}`);
  return found;
}

function requestValidator(method: string, path: string): ValidateFunction {
  const template = templateOf(path);
  const m = method.toLowerCase();
  expect(doc.paths[template][m]?.requestBody, `${method} ${template} documents a JSON body`).toBeDefined();
  return validatorAt("paths", template, m, "requestBody", "content", "application/json", "schema");
}

/** Checks a live answer against the response schema its status documents. */
function expectDocumented(method: string, path: string, reply: Reply): void {
  const template = templateOf(path);
  const m = method.toLowerCase();
  const response = doc.paths[template][m]?.responses[String(reply.status)];
  expect(response, `${method} ${template} documents ${reply.status}`).toBeDefined();
  if (response!.$ref) return expectValid(validatorAt("components", "schemas", "Error"), reply.body, `${method} ${path} ${reply.status}`);
  expect(response!.content?.["application/json"], `${method} ${template} ${reply.status} is JSON`).toBeDefined();
  expectValid(validatorAt("paths", template, m, "responses", String(reply.status), "content", "application/json", "schema"), reply.body, `${method} ${path} ${reply.status}`);
}

describe("the description", () => {
  it("names exactly the routes the control plane serves", () => {
    const served = new Set(
      control.routes
        .filter((r) => r.method !== "ALL")
        .map((r) => {
          const path = r.path
            .replace(/:(\w+)(\{[^}]*\})?/g, "{$1}")
            .replace(/\/\*$/, "/{file}")
            .replace(/\/$/, "");
          return `${r.method} /_emulator${path}`;
        }),
    );
    const documented = new Set(
      Object.entries(doc.paths).flatMap(([path, ops]) =>
        Object.keys(ops)
          .filter((m) => ["get", "put", "post", "delete", "patch", "head", "options"].includes(m))
          .map((m) => `${m.toUpperCase()} ${path}`),
      ),
    );
    expect([...served].filter((r) => !documented.has(r)), "served but not described").toEqual([]);
    expect([...documented].filter((r) => !served.has(r)), "described but not served").toEqual([]);
    expect(served.has("GET /_emulator/openapi.json")).toBe(true);
  });

  it("is OpenAPI 3.1 whose schemas compile as JSON Schema 2020-12 in strict mode", () => {
    expect(OPENAPI.openapi).toMatch(/^3\.1\./);
    const ids: string[] = [];
    for (const name of Object.keys(doc.components.schemas)) validatorAt("components", "schemas", name);
    for (const [path, ops] of Object.entries(doc.paths))
      for (const [method, o] of Object.entries(ops)) {
        for (const [type, media] of Object.entries(o.requestBody?.content ?? {})) if (media.schema) validatorAt("paths", path, method, "requestBody", "content", type, "schema");
        for (const [status, r] of Object.entries(o.responses)) {
          expect(status, `${method} ${path}`).toMatch(/^[1-5]\d\d$/);
          for (const [type, media] of Object.entries(r.content ?? {})) validatorAt("paths", path, method, "responses", status, "content", type, "schema");
        }
        ids.push((o as { operationId?: string }).operationId ?? `${method} ${path} has no operationId`);
        const params = (o as { parameters?: { in: string; name: string }[] }).parameters ?? [];
        params.forEach((p, i) => validatorAt("paths", path, method, "parameters", String(i), "schema"));
        // Path parameters are declared, and only those.
        const inPath = [...path.matchAll(/\{(\w+)\}/g)].map((x) => x[1]).sort();
        expect(params.filter((p) => p.in === "path").map((p) => p.name).sort(), `${method} ${path}`).toEqual(inPath);
      }
    expect(ids.filter((id, i) => !/^[a-z]+[A-Z]\w*$/.test(id) || ids.indexOf(id) !== i), "operationIds, unique").toEqual([]);
  });

  it("resolves every $ref inside itself", () => {
    const refs: string[] = [];
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (typeof v === "object" && v !== null)
        for (const [k, x] of Object.entries(v)) {
          if (k === "$ref" && typeof x === "string") refs.push(x);
          else walk(x);
        }
    };
    walk(OPENAPI);
    expect(refs.length).toBeGreaterThan(0);
    for (const r of refs) {
      expect(r, "a local ref").toMatch(/^#\//);
      const target = r
        .slice(2)
        .split("/")
        .reduce<unknown>((at, part) => (at as Record<string, unknown> | undefined)?.[part.replace(/~1/g, "/").replace(/~0/g, "~")], OPENAPI);
      expect(target, r).toBeDefined();
    }
  });

  it("shares the error envelope", () => {
    const error = validatorAt("components", "schemas", "Error");
    expectValid(error, { error: { message: "m", devMessage: "d", source: "emulator", code: "ERR_BAD_REQUEST", details: { to: ["x"] } } }, "envelope");
    expect(error({ error: { message: "m", source: "emulator", code: "X" } })).toBe(false);
  });
});

describe(`the examples of ${PAGE}`, () => {
  const text = readFileSync(new URL(`../${PAGE}`, import.meta.url), "utf8");
  const lines = text.split("\n");

  it("fit the schemas they are marked with (```json blocks)", () => {
    let n = 0;
    for (let i = 0; i < lines.length; i++) {
      if (!/^\s*```json\s*$/.test(lines[i])) continue;
      expect(lines[i - 1]?.trim(), `${PAGE}:${i + 1}`).toBe("<!-- tested: test/control-openapi.test.ts -->");
      const schema = /^<!--\s*schema:\s*(\w+)\s*-->$/.exec(lines[i - 2]?.trim() ?? "");
      expect(schema, `${PAGE}:${i + 1} names its schema (<!-- schema: Name --> above the tested mark)`).not.toBeNull();
      const end = lines.findIndex((l, j) => j > i && /^\s*```\s*$/.test(l));
      const example = JSON.parse(lines.slice(i + 1, end).join("\n"));
      expectValid(validatorAt("components", "schemas", schema![1]), example, `${PAGE}:${i + 1}`);
      n++;
    }
    expect(n).toBeGreaterThan(0);
  });

  it("send bodies that fit the request schemas (curl -d)", () => {
    const commands = text
      .replace(/\\\n/g, " ")
      .split("\n")
      .filter((l) => /^\s*curl\b/.test(l) && / -d /.test(l));
    for (const cmd of commands) {
      const url = /(?:https?:\/\/)?(?:127\.0\.0\.1|localhost):4780(\/_emulator\/\S+)/.exec(cmd);
      const body = / -d '([^']*)'/.exec(cmd);
      expect(url && body, cmd).toBeTruthy();
      const method = / -X\s*(\w+)/.exec(cmd)?.[1] ?? "POST";
      expectValid(requestValidator(method, url![1]), JSON.parse(body![1]), cmd);
    }
    expect(commands.length).toBeGreaterThanOrEqual(2);
  });

  it("name bodies that fit the request schemas (`METHOD /_emulator/... {body}`)", () => {
    const spans = [...text.matchAll(/`(GET|POST|PUT|DELETE) (\/_emulator\/\S+) (\{[^`]*\})`/g)];
    for (const [span, method, path, body] of spans) expectValid(requestValidator(method, path), JSON.parse(body), span);
    expect(spans.length).toBeGreaterThanOrEqual(2);
  });
});

describe("live answers", () => {
  let e: TestEmulator;
  beforeAll(async () => {
    e = await emulator();
  });

  /** The operations answered with a 2xx and checked (`GET /_emulator/rules/{id}`). */
  const exercised = new Set<string>();
  async function call(method: string, path: string, body?: unknown): Promise<Reply> {
    const reply = await e.call(method, path, { key: null, body, headers: { accept: "application/json" } });
    expectDocumented(method, path, reply);
    if (reply.status < 300) exercised.add(`${method} ${templateOf(path)}`);
    return reply;
  }

  it("serves the description itself, as built", async () => {
    const r = await call("GET", "/_emulator/openapi.json");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^application\/json/);
    // Its server is the address it was fetched from, whatever the port or the name.
    const described = (url: string) => JSON.parse(JSON.stringify({ ...OPENAPI, servers: [{ url, description: "the address this description was fetched from" }] }));
    expect(r.body).toEqual(described("http://localhost"));
    expect((await e.get("http://127.0.0.1:5703/_emulator/openapi.json", { key: null })).body).toEqual(described("http://127.0.0.1:5703"));
    expect((await call("GET", "/_emulator")).body.openapi).toBe("/_emulator/openapi.json");
  });

  it("serves the package's JSON Schemas, without the control token (editors send none), and names the two for another name", async () => {
    for (const name of ["seed.schema.json", "state.schema.json"]) {
      const r = await e.get(`/_emulator/schemas/${name}`, { key: null });
      expect([r.status, r.headers.get("content-type")]).toEqual([200, "application/schema+json"]);
      expect(r.body).toEqual(JSON.parse(readFileSync(new URL(`../schemas/${name}`, import.meta.url), "utf8")));
    }
    const missing = await call("GET", "/_emulator/schemas/seed.json");
    expectError(missing, 404, "ERR_SCHEMA_NOT_FOUND");
    expect(missing.body.error.message).toBe("The schema seed.json does not exist. The schemas are /_emulator/schemas/seed.schema.json and /_emulator/schemas/state.schema.json.");
    const guarded = await emulator({ controlToken: "t" });
    expect((await guarded.get("/_emulator/schemas/seed.schema.json", { key: null })).status).toBe(200);
    expectError(await guarded.get("/_emulator/schemas/nope.json", { key: null }), 404, "ERR_SCHEMA_NOT_FOUND");
    expectError(await guarded.get("/_emulator/apps", { key: null }), 401, "AUTH_ERR_EMPTY_EMULATOR_TOKEN");
  });

  it("fit their response schemas, for every operation that answers JSON", async () => {
    expect((await e.get("/v3/users", { key: REST_KEY })).status).toBe(200);
    for (const path of ["/_emulator/health", "/_emulator/apps", "/_emulator/requests?limit=5", "/_emulator/requests/wait?path=/v3/users", "/_emulator/clock", "/_emulator/rate-limits"])
      expect((await call("GET", path)).status, path).toBe(200);
    // A delivered webhook call, so that the delivery log's entries (and their attempts) are checked too.
    const rx = await startReceiver("/hook", (_, res) => res.end("ok"));
    try {
      const mgmt = (path: string, body: unknown) =>
        e.call("POST", `/apimgmt/apps/${APP_ID}${path}`, { body, key: null, headers: { ...MGMT, "x-webhook-version": "2" } });
      expect((await mgmt("/webhooks", { id: "hook1", name: "Hook", webhookURL: rx.url })).status).toBe(200);
      expect((await mgmt("/webhooks/hook1/triggers", { triggerIds: ["message_sent"] })).status).toBe(200);
      const sent = await e.post("/v3/messages", { receiver: "superhero2", receiverType: "user", data: { text: "hi" } }, { onBehalfOf: "superhero1" });
      expect(sent.status).toBe(200);
      const delivered = await call("GET", "/_emulator/webhooks/deliveries?status=delivered&wait=10000");
      expect(delivered.body.deliveries[0]).toMatchObject({ kind: "webhook", webhook: "hook1", status: "delivered" });
    } finally {
      e.emulator.webhooks.close();
      await rx.close();
    }
    for (const path of ["/_emulator/webhooks/deliveries", "/_emulator/bots/deliveries", "/_emulator/notifications", "/_emulator/sessions", "/_emulator/extensions/calls"]) {
      expect((await call("GET", path)).status, path).toBe(200);
      expect((await call("DELETE", path)).status, path).toBe(200);
    }
    await call("GET", "/_emulator/realtime/frames?afterId=0");
    await call("DELETE", "/_emulator/requests");

    const rule = await call("POST", "/_emulator/rules", { match: { method: "POST", path: "/v3/messages*" }, effect: { status: 503, latencyMs: 300 }, times: 2 });
    expect(rule.status).toBe(201);
    await call("GET", "/_emulator/rules");
    await call("GET", `/_emulator/rules/${rule.body.id}`);
    await call("DELETE", `/_emulator/rules/${rule.body.id}`);
    await call("POST", "/_emulator/rules", { effect: { latencyMs: 1 }, probability: 0 });
    await call("DELETE", "/_emulator/rules");

    await call("PUT", "/_emulator/clock", { mode: "frozen", now: 1_700_000_000 });
    await call("POST", "/_emulator/clock/advance", { seconds: 1.5 });
    expect((await call("POST", "/_emulator/snapshots/before")).status).toBe(201);
    await call("GET", "/_emulator/snapshots");
    await call("POST", "/_emulator/snapshots/before/restore");
    await call("DELETE", "/_emulator/snapshots/before");
    await call("PUT", `/_emulator/rate-limits/${APP_ID}`, { core: 500, standard: null });
    await call("DELETE", `/_emulator/rate-limits/${APP_ID}`);
    await call("PUT", "/_emulator/rate-limits", { enabled: false });
    await call("DELETE", "/_emulator/rate-limits");
    await call("GET", "/_emulator/coverage");
    await call("GET", `/_emulator/coverage?app=${APP_ID}`);
    await call("DELETE", "/_emulator/coverage");
    await call("GET", "/_emulator/advice");
    await call("PUT", "/_emulator/advice", { header: false, strict: false });
    expect((await call("GET", "/_emulator/openapi/rest.json")).status).toBe(200);
    expect((await call("GET", "/_emulator/openapi/nope.json")).status).toBe(404);

    const recorded = await call("POST", `/_emulator/apps/${APP_ID}/calls`, {
      initiator: "superhero1",
      receiver: "superhero2",
      type: "video",
      initiatedAt: 1700000000,
      startedAt: 1700000005,
      endedAt: 1700000125,
    });
    expect(recorded.status).toBe(201);
    await call("PUT", `/_emulator/apps/${APP_ID}/ai`, { between: ["superhero1", "superhero2"], answers: { "conversation-starter": ["Hi"], "smart-replies": { reply_positive: "Yes" } } });
    await call("GET", `/_emulator/apps/${APP_ID}/ai`);
    await call("DELETE", `/_emulator/apps/${APP_ID}/ai`);
    const feed = await call("POST", `/_emulator/apps/${APP_ID}/notification-feed`, { receivers: ["superhero1"], content: { text: "Sale" }, channelId: "c1" });
    expect(feed.status).toBe(201);
    await call("GET", `/_emulator/apps/${APP_ID}/notification-feed?uid=superhero1`);
    const push = await call("POST", `/_emulator/apps/${APP_ID}/push-notifications`, { receiver: "superhero1", campaignId: "spring" });
    expect(push.status).toBe(201);
    await call("GET", `/_emulator/apps/${APP_ID}/push-notifications/${push.body.pushNotification.id}`);
    expect((await call("POST", `/_emulator/apps/${APP_ID}/template-categories`, { name: "offers" })).status).toBe(201);

    const state = await call("GET", "/_emulator/state");
    expect((await call("PUT", "/_emulator/state", state.body)).status).toBe(200);
    expect((await call("POST", "/_emulator/reset", { to: "empty" })).body).toMatchObject({ to: "empty" });

    // Every operation that answers JSON was called here or above (the page, its files and the streams aside).
    const jsonOps = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, o]) => Object.entries(o.responses).some(([status, r]) => status.startsWith("2") && r.content?.["application/json"]))
        .map(([m]) => `${m.toUpperCase()} ${path}`),
    );
    expect(jsonOps.filter((x) => !exercised.has(x))).toEqual([]);
  });

  it("answer errors in the shared envelope", async () => {
    expectError(await call("GET", "/_emulator/rules/r999"), 404, "ERR_RULE_NOT_FOUND");
    expectError(await call("POST", "/_emulator/reset", { app: APP_ID }), 400, "ERR_BAD_REQUEST");
    expectError(await call("POST", "/_emulator/snapshots/nope/restore"), 404, "ERR_SNAPSHOT_NOT_FOUND");
    expectError(await call("DELETE", "/_emulator/rate-limits/nope"), 404, "ERR_APP_NOT_FOUND");
  });

  it("keeps the control plane's guards on the description", async () => {
    expectError(await e.get("http://evil.example/_emulator/openapi.json", { key: null }), 403, "ERR_HOST_NOT_ALLOWED");
    expectError(await e.get("/_emulator/openapi.json", { key: null, headers: { "sec-fetch-site": "cross-site" } }), 403, "ERR_CROSS_ORIGIN_REQUEST");
    const guarded = await emulator({ controlToken: "t" });
    const refused = await guarded.get("/_emulator/openapi.json", { key: null });
    expectError(refused, 401, "AUTH_ERR_EMPTY_EMULATOR_TOKEN");
    expectDocumented("GET", "/_emulator/openapi.json", refused);
    expect((await guarded.get("/_emulator/openapi.json", { key: null, headers: { "x-emulator-token": "t" } })).status).toBe(200);
  });
});
