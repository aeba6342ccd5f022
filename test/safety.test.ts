import { describe, expect, it } from "vitest";
import { APP_ID, emulator, expectError, MGMT } from "./helpers.js";

/** A JSON array nested `depth` deep, about 2 × depth bytes. */
const deep = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

describe("control plane: same-origin requests only", () => {
  it("refuses cross-site and same-site browser requests and other origins, reads included, changing nothing", async () => {
    const e = await emulator();
    await e.post("/v3/messages", { receiver: "superhero2", receiverType: "user", data: { text: "keep me" } }, { onBehalfOf: "superhero1" });
    for (const headers of [{ "sec-fetch-site": "cross-site" }, { "sec-fetch-site": "same-site" }, { origin: "http://evil.example" }, { origin: "http://localhost:3000" }, { origin: "null" }]) {
      const reset = expectError(await e.call("POST", "/_emulator/reset", { headers }), 403, "ERR_CROSS_ORIGIN_REQUEST");
      expect(reset.source).toBe("emulator");
      expectError(await e.call("POST", "/_emulator/rules", { body: { effect: { status: 500 } }, headers }), 403, "ERR_CROSS_ORIGIN_REQUEST");
      expectError(await e.get("/_emulator/apps", { headers }), 403, "ERR_CROSS_ORIGIN_REQUEST");
      expectError(await e.get("/_emulator/state", { headers }), 403, "ERR_CROSS_ORIGIN_REQUEST");
    }
    expect((await e.get("/_emulator/rules")).body.rules).toEqual([]);
    const list = await e.get("/v3/users/superhero1/conversation?conversationType=user", { onBehalfOf: "superhero1" });
    expect((await e.get("/_emulator/state")).body.apps[0].messages.some((m: any) => m.data?.text === "keep me")).toBe(true);
    void list;
  });

  it("answers same-origin browsers, typed addresses and tools that send neither header", async () => {
    const e = await emulator();
    expect((await e.get("/_emulator/apps", { headers: { "sec-fetch-site": "same-origin", origin: "http://localhost" } })).status).toBe(200);
    expect((await e.get("/_emulator/apps", { headers: { "sec-fetch-site": "none" } })).status).toBe(200);
    expect((await e.post("/_emulator/reset", {})).status).toBe(200);
    expect((await e.call("POST", "/_emulator/reset")).status).toBe(200); // no body at all
  });

  it("accepts control bodies only as application/json (parameters allowed)", async () => {
    const e = await emulator();
    for (const type of ["text/plain;a=json", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonp", "application/vnd.x+json"])
      expectError(await e.call("POST", "/_emulator/rules", { raw: '{"effect":{"status":500}}', headers: { "content-type": type } }), 415, "ERR_UNSUPPORTED_MEDIA_TYPE");
    // A body with no type at all (what a Blob without type sends) is refused too.
    expectError(await e.call("POST", "/_emulator/reset", { raw: "{}" }), 415, "ERR_UNSUPPORTED_MEDIA_TYPE");
    expect((await e.get("/_emulator/rules")).body.rules).toEqual([]);
    const ok = await e.call("POST", "/_emulator/rules", { raw: '{"effect":{"status":500}}', headers: { "content-type": "Application/JSON; charset=utf-8" } });
    expect(ok.status).toBe(201);
  });
});

describe("control plane: allowed hosts (DNS rebinding)", () => {
  const at = (host: string) => `http://${host}/_emulator/apps`;

  it("answers IP literals, localhost and single-label names", async () => {
    const e = await emulator();
    for (const host of ["127.0.0.1:4780", "[::1]:4780", "localhost:4780", "LOCALHOST", "10.1.2.3", "chat-emulator:4780", "emulator"])
      expect([host, (await e.get(at(host))).status]).toEqual([host, 200]);
  });

  it("refuses other names, the inspector included, with a message that names --allowed-host", async () => {
    const e = await emulator();
    for (const host of ["evil.example", "evil.example:4780", "127.0.0.1.nip.io", "a.localhost"]) {
      const err = expectError(await e.get(at(host)), 403, "ERR_HOST_NOT_ALLOWED");
      expect(err.message).toContain("--allowed-host");
    }
    expectError(await e.get("http://evil.example/_emulator/ui"), 403, "ERR_HOST_NOT_ALLOWED");
    expectError(await e.get("http://evil.example/_emulator/state"), 403, "ERR_HOST_NOT_ALLOWED");
    expectError(await e.call("POST", "http://evil.example/_emulator/reset"), 403, "ERR_HOST_NOT_ALLOWED");
  });

  it("answers names given with allowedHosts, and the platform planes answer every Host label", async () => {
    const e = await emulator({ allowedHosts: ["Emulator.CI.internal"] });
    expect((await e.get(at("emulator.ci.internal:4780"))).status).toBe(200);
    expectError(await e.get(at("other.ci.internal")), 403, "ERR_HOST_NOT_ALLOWED");
    expect((await e.get(`http://${APP_ID}.api-us.cometchat.io/v3/users/superhero1`)).status).toBe(200);
    expect((await e.get("http://evil.example/v3/users/superhero1")).status).toBe(200);
  });
});

describe("JSON nesting limit", () => {
  const refusedDeep = (r: Awaited<ReturnType<Awaited<ReturnType<typeof emulator>>["get"]>>) => {
    const err = expectError(r, 400, "ERR_BAD_REQUEST");
    expect(err.details).toEqual({ body: ["The request body may not be nested more than 64 levels deep."] });
  };

  it("refuses a message whose data nests 5,000 deep before storing it; reads and exports keep working", async () => {
    const e = await emulator();
    const raw = `{"receiver":"superhero2","receiverType":"user","category":"custom","type":"x","data":{"customData":{"v":${deep(5000)}}}}`;
    refusedDeep(await e.call("POST", "/v3/messages", { raw, onBehalfOf: "superhero1", headers: { "content-type": "application/json" } }));
    const conversation = await e.get("/v3/users/superhero2/messages", { onBehalfOf: "superhero1" });
    expect(conversation.status).toBe(200);
    expect(conversation.body.data.some((m: any) => m.type === "x")).toBe(false);
    expect((await e.get("/_emulator/state")).status).toBe(200);
    expect((await e.get("/_emulator/requests")).status).toBe(200);
  });

  it("takes 64 levels and refuses 65, on every plane", async () => {
    const e = await emulator();
    const at = (depth: number) => `{"uid":"deep${depth}","name":"n","metadata":{"x":${deep(depth - 2)}}}`;
    const create = (depth: number) => e.call("POST", "/v3/users", { raw: at(depth), headers: { "content-type": "application/json" } });
    expect((await create(64)).status).toBe(200);
    refusedDeep(await create(65));
    expectError(await e.get("/v3/users/deep65"), 404, "ERR_UID_NOT_FOUND");
    const mgmt = await e.call("POST", "/apimgmt/apps", { raw: `{"name":"x","region":"us","extra":${deep(100)}}`, key: null, headers: { ...MGMT, "content-type": "application/json" } });
    refusedDeep(mgmt);
    refusedDeep(await e.call("POST", "/_emulator/rules", { raw: `{"effect":${deep(100)}}`, headers: { "content-type": "application/json" } }));
    const token = (await e.post("/v3/users/superhero1/auth_tokens", {})).body.data.authToken;
    const client = { key: null, headers: { appid: APP_ID, authtoken: token, "content-type": "application/json" } };
    refusedDeep(await e.call("PUT", `/${APP_ID}.apiclient-us/v3.0/me`, { ...client, raw: `{"appInfo":{"x":${deep(100)}}}` }));
    refusedDeep(await e.call("POST", `/${APP_ID}.apiclient-us/v3.0/messages`, { ...client, raw: `{"receiver":"superhero2","receiverType":"user","data":{"text":"x","metadata":${deep(100)}}}` }));
    // Brackets inside strings are text, not nesting.
    const text = "[".repeat(200);
    expect((await e.post("/v3/users", { uid: "brackets", name: text.slice(0, 100) })).status).toBe(200);
  });
});
