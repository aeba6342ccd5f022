import { beforeAll, describe, expect, it } from "vitest";
import { Ajv2020 } from "ajv/dist/2020.js";
import { APP_ID, emulator, type TestEmulator } from "./helpers.js";

/** GET /_emulator/openapi/{plane}.json: what each plane serves, generated from the declared operations. */

let e: TestEmulator;
beforeAll(async () => {
  e = await emulator();
});

const PLANES = ["rest", "management", "calls", "data-import", "campaigns", "client"];
const doc = async (plane: string) => {
  const r = await e.get(`/_emulator/openapi/${plane}.json`, { key: null });
  expect(r.status).toBe(200);
  expect(r.headers.get("content-type")).toMatch(/^application\/json/);
  return r.body;
};

describe("the served OpenAPI descriptions", () => {
  it("are linked from the control API's index, one per plane", async () => {
    const index = (await e.get("/_emulator", { key: null, headers: { accept: "application/json" } })).body;
    expect(index.served).toEqual(Object.fromEntries(PLANES.map((p) => [p, `/_emulator/openapi/${p}.json`])));
  });

  it("are OpenAPI 3.1 whose schemas compile as JSON Schema 2020-12", async () => {
    const ajv = new Ajv2020({ strict: false });
    for (const plane of PLANES) {
      const d = await doc(plane);
      expect(d.openapi).toBe("3.1.0");
      for (const [path, ops] of Object.entries<any>(d.paths))
        for (const [method, op] of Object.entries<any>(ops)) {
          expect(typeof op.operationId, `${method} ${path}`).toBe("string");
          const schema = op.requestBody?.content?.["application/json"]?.schema;
          if (schema) expect(() => ajv.compile(schema), `${method} ${path}`).not.toThrow();
        }
    }
  });

  it("describe each operation's body, query parameters and limits as declared", async () => {
    const rest = await doc("rest");
    const create = rest.paths["/users"].post;
    expect(create.operationId).toBe("create-user");
    const body = create.requestBody.content["application/json"].schema;
    expect(body.required).toEqual(["uid", "name"]);
    expect(body.properties.uid).toMatchObject({ type: "string", maxLength: 100, pattern: "^[A-Za-z0-9-]+$" });
    expect(body.properties.tags).toMatchObject({ type: ["array", "null"], maxItems: 25, items: { type: "string", maxLength: 100 } });
    const list = rest.paths["/users"].get;
    expect(list.parameters).toContainEqual({ name: "perPage", in: "query", schema: { type: "integer", default: 100, minimum: 1, maximum: 1000 } });
    expect(list.parameters).toContainEqual({ name: "createdAt[from]", in: "query", schema: { type: "integer" } });
    expect(rest.paths["/users/{uid}"].get.parameters).toContainEqual({ name: "uid", in: "path", required: true, schema: { type: "string" } });
  });

  it("name the address the request came to, with the default app as the server variables' defaults", async () => {
    const rest = await doc("rest");
    expect(rest.servers).toEqual([
      {
        url: "http://localhost/{appId}.api-{region}/v3",
        variables: { appId: { default: APP_ID, description: expect.any(String) }, region: { default: "us", description: expect.any(String) } },
      },
    ]);
    expect((await doc("management")).servers[0].url).toBe("http://localhost/apimgmt");
  });

  it("answer an unknown plane with the control plane's not-found", async () => {
    const r = await e.get("/_emulator/openapi/graphql.json", { key: null });
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe("ERR_API_NOT_FOUND");
  });
});
