import { beforeEach, describe, expect, it } from "vitest";
import { APP_ID, emulator, expectError, REST_KEY, type TestEmulator } from "./helpers.js";

let e: TestEmulator;
beforeEach(async () => {
  e = await emulator();
});

describe("addressing", () => {
  it("serves the default app at /v3", async () => {
    const r = await e.get("/v3/users/superhero1");
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ uid: "superhero1", name: "Iron Man" });
  });

  it("serves the path label form /{appId}.api-{region}/v3", async () => {
    const r = await e.get(`/${APP_ID}.api-us/v3/users/superhero2`);
    expect(r.status).toBe(200);
    expect(r.body.data.name).toBe("Captain America");
  });

  it("serves the Host label form {appId}.api-{region}.<anything>", async () => {
    const r = await e.get(`http://${APP_ID}.api-us.cometchat.io/v3/users/superhero3`);
    expect(r.status).toBe(200);
    expect(r.body.data.name).toBe("Spiderman");
  });

  it("accepts the SDK's v3.0 version segment", async () => {
    const r = await e.get(`/${APP_ID}.api-us/v3.0/users/superhero4`);
    expect(r.status).toBe(200);
    expect(r.body.data.name).toBe("Wolverine");
  });

  it("answers AUTH_ERR_INVALID_APPID for an unknown app and for the wrong region", async () => {
    const unknown = expectError(await e.get("/0000000000000000.api-us/v3/users"), 401, "AUTH_ERR_INVALID_APPID");
    expect(unknown.source).toBe("chat-api");
    expectError(await e.get(`/${APP_ID}.api-eu/v3/users`), 401, "AUTH_ERR_INVALID_APPID");
    expectError(await e.get(`http://${APP_ID}.api-in.example.test/v3/users`), 401, "AUTH_ERR_INVALID_APPID");
  });

  it("answers ERR_API_NOT_FOUND with the platform's message for unknown routes and methods", async () => {
    const err = expectError(await e.get("/v3/userss"), 404, "ERR_API_NOT_FOUND");
    expect(err.message).toBe("The API endpoint is invalid. Please verify the API call.");
    expectError(await e.call("PATCH", "/v3/users"), 404, "ERR_API_NOT_FOUND");
    expectError(await e.get("/nothing/here"), 404, "ERR_API_NOT_FOUND");
    expectError(await e.get(`/${APP_ID}.api-us/v2/users`), 404, "ERR_API_NOT_FOUND");
  });

  it("treats a trailing slash like none", async () => {
    expect((await e.get("/v3/users/")).status).toBe(200);
  });

  it("reports AUTH_ERR_EMPTY_APPID at /v3 when there are no apps", async () => {
    const empty = await emulator({ seed: "none" });
    expectError(await empty.get("/v3/users", { key: REST_KEY }), 401, "AUTH_ERR_EMPTY_APPID");
  });
});

describe("control: health", () => {
  it("reports ok with version, uptime and apps", async () => {
    const r = await e.get("/_emulator/health", { key: null });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: "ok", defaultAppId: APP_ID });
    expect(typeof r.body.version).toBe("string");
    expect(typeof r.body.uptimeMs).toBe("number");
    expect(r.body.apps).toEqual([{ appId: APP_ID, region: "us", name: "Default App" }]);
  });
});

describe("requestPath: the internal path worked out once per request", () => {
  it("answers what internalPathOf answers for the request's Host and target, the same on every ask", async () => {
    const { internalPathOf, requestPath } = await import("../src/http/addressing.js");
    const cases: [string | undefined, string][] = [
      ["127.0.0.1:4780", "/v3/users?perPage=2"],
      ["127.0.0.1:4780", `/${APP_ID}.api-us/v3/users/`],
      ["127.0.0.1:4780", `/${APP_ID}.apiclient-eu/v3.0/messages`],
      [`${APP_ID}.call-in.localhost:4780`, "/v3/calls"],
      ["apimgmt.localhost", "/apps"],
      ["localhost", "/apimgmt/apps"],
      ["localhost", "/_emulator/health"],
      [undefined, "/v3/users"],
    ];
    for (const [host, url] of cases) {
      const req = { headers: host === undefined ? {} : { host }, url } as unknown as import("node:http").IncomingMessage;
      expect(requestPath(req)).toBe(internalPathOf(host ?? "", url));
      expect(requestPath(req)).toBe(internalPathOf(host ?? "", url));
    }
  });
});

describe("unknown routes: the plane's credentials first, then 404, alike on every plane", () => {
  it("answers 401 without credentials and 404 ERR_API_NOT_FOUND with them, on REST, calls, client and management", async () => {
    const e = await emulator();
    const token = (await e.post("/v3/users/superhero1/auth_tokens", {})).body.data.authToken as string;
    const planes: [string, Record<string, string>, string][] = [
      [`/${APP_ID}.api-us/v3/nothing`, { apikey: REST_KEY }, "AUTH_ERR_EMPTY_APIKEY"],
      [`/${APP_ID}.call-us/v3/nothing`, { apikey: REST_KEY }, "AUTH_ERR_EMPTY_APIKEY"],
      [`/${APP_ID}.apiclient-us/v3.0/nothing`, { appid: APP_ID, authtoken: token }, "AUTH_ERR_EMPTY_AUTH_TOKEN"],
      ["/apimgmt/nothing", { key: "chat-emulator-management-key", secret: "chat-emulator-management-secret" }, "AUTH_ERR_EMPTY_AUTH_HEADER"],
    ];
    for (const [path, credentials, missing] of planes) {
      expectError(await e.call("GET", path, { key: null }), 401, missing);
      expectError(await e.call("GET", path, { key: null, headers: credentials }), 404, "ERR_API_NOT_FOUND");
    }
  });
});

describe("near misses of an unknown route", () => {
  const hintOf = async (r: Promise<{ status: number; body: any }>) => {
    const err = expectError(await r, 404, "ERR_API_NOT_FOUND");
    expect(err.message).toBe("The API endpoint is invalid. Please verify the API call.");
    return err.devMessage as string;
  };

  it("names the served path within a typo or two, with the same method", async () => {
    expect(await hintOf(e.get("/v3/user/alice"))).toContain("did you mean GET /v3/users/{uid}?");
    expect(await hintOf(e.post("/v3/group", { guid: "g", name: "G", type: "public" }))).toContain("did you mean POST /v3/groups?");
  });

  it("names the methods a served path answers to a wrong method", async () => {
    expect(await hintOf(e.call("PATCH", "/v3/users"))).toContain("Hint: /v3/users answers POST, GET, PUT, DELETE, not PATCH.");
  });

  it("names the plane that serves a path called on another", async () => {
    expect(await hintOf(e.get("/v3/apps"))).toContain("GET /apimgmt/apps is served on the management plane, not the REST plane.");
  });

  it("names the REST plane for a REST operation the SDK does not call on the client plane", async () => {
    const token = (await e.post("/v3/users/superhero1/auth_tokens", {})).body.data.authToken as string;
    const hint = await hintOf(e.get(`/${APP_ID}.apiclient-us/v3.0/apikeys`, { key: null, headers: { authtoken: token } }));
    expect(hint).toContain("GET /v3/apikeys is served on the REST plane, not the client plane.");
  });

  it("journals and logs the hint, and says nothing for a path far from any route", async () => {
    await e.get("/v3/user/alice");
    const journal = await e.get("/_emulator/requests?limit=1");
    expect(journal.status).toBe(200);
    expect(JSON.stringify(journal.body)).toContain("did you mean GET /v3/users/{uid}?");
    const far = await hintOf(e.get("/v3/nothing/like/this/at/all"));
    expect(far).not.toContain("Hint:");
  });
});
