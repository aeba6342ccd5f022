import { beforeEach, describe, expect, it } from "vitest";
import { APP_ID, emulator, expectError, type TestEmulator } from "./helpers.js";

let e: TestEmulator;
beforeEach(async () => {
  e = await emulator();
});

const ext = (path: string) => `/apps/${APP_ID}/extensions${path}`;
const turn = (on: boolean, ...ids: string[]) => e.mgmt("POST", ext(""), on ? { enabled: ids } : { disabled: ids });
const send = (text: string, extra: Record<string, unknown> = {}) =>
  e.post("/v3/messages", { receiver: "superhero2", receiverType: "user", category: "message", type: "text", data: { text, ...extra } }, { onBehalfOf: "superhero1" });
const injected = (r: { body: any }) => r.body.data.data.metadata?.["@injected"]?.extensions;

describe("extension effects on messages", () => {
  it("data masking masks emails, phone numbers, SSNs and custom patterns; dropMessage drops; off stops it", async () => {
    await turn(true, "data-masking");
    const r = await send("mail me at jane.doe@example.com or call 415-555-0199");
    expect(r.status).toBe(200);
    expect(r.body.data.data.text).toBe("mail me at jane.doe@example.com or call 415-555-0199");
    expect(injected(r)["data-masking"]).toEqual({
      data: { sensitive_data: "yes", message_masked: "mail me at ******************** or call ************" },
    });
    expect(injected(await send("nothing to hide"))["data-masking"].data.sensitive_data).toBe("no");
    // The stored message (and what others read) carries the same result.
    const stored = await e.get(`/v3/messages/${r.body.data.id}`);
    expect(stored.body.data.data.metadata["@injected"].extensions["data-masking"].data.sensitive_data).toBe("yes");

    await e.mgmt("PUT", ext("/data-masking/v1/settings"), {
      settings: { dropMessage: false, defaultRegexData: [{ id: "2", enableFlag: false }], customregexData: [{ name: "order", regex: "ORD-\\d{4}" }] },
    });
    const custom = injected(await send("order ORD-1234 for jane@example.com"))["data-masking"].data;
    expect(custom.message_masked).toBe("order ******** for jane@example.com");

    await e.mgmt("PUT", ext("/data-masking/v1/settings"), { settings: { dropMessage: true } });
    const dropped = expectError(await send("ORD-9999"), 403, "ERR_BLOCKED_BY_EXTENSION");
    expect(dropped.message).toContain("data-masking");
    await turn(false, "data-masking");
    const off = await send("ORD-9999");
    expect(off.status).toBe(200);
    expect(off.body.data.data.metadata).toBeUndefined();
  });

  it("profanity filter masks the configured words (whole words, any case, emoji too); dropMessage drops; off stops it", async () => {
    await turn(true, "profanity-filter");
    expect(injected(await send("darn it"))["profanity-filter"]).toEqual({ profanity: "no", message_clean: "darn it" });
    await e.mgmt("POST", ext("/profanity-filter/v1/settings"), { settings: { dropMessage: false, badwords: ["darn", "👎"] } });
    const r = await send("Darn it, darnation 👎");
    expect(injected(r)["profanity-filter"]).toEqual({ profanity: "yes", message_clean: "**** it, darnation *" });
    await e.mgmt("PUT", ext("/profanity-filter/v1/settings"), { settings: { dropMessage: true } });
    expectError(await send("darn"), 403, "ERR_BLOCKED_BY_EXTENSION");
    expect((await send("fine")).status).toBe(200);
    await turn(false, "profanity-filter");
    expect(injected(await send("darn"))).toBeUndefined();
  });

  it("XSS filter flags scripts and gives the sanitized text; dropMessage drops; off stops it", async () => {
    await turn(true, "xss-filter");
    const r = await send(`<img src=x onerror="alert(1)"> hi`);
    expect(injected(r)["xss-filter"]).toEqual({ hasXSS: "yes", sanitized_message: "&lt;img src=x onerror=&quot;alert(1)&quot;&gt; hi" });
    expect(injected(await send("a < b"))["xss-filter"]).toEqual({ hasXSS: "no", sanitized_message: "a &lt; b" });
    await e.mgmt("POST", ext("/xss-filter/v1/settings"), { settings: { dropMessage: true } });
    expectError(await send("<script>x()</script>"), 403, "ERR_BLOCKED_BY_EXTENSION");
    await turn(false, "xss-filter");
    expect(injected(await send("<script>x()</script>"))).toBeUndefined();
  });

  it("link preview lists the links and records the fetch it would have made instead of making it", async () => {
    await turn(true, "link-preview", "url-shortener-bitly");
    const r = await send("see https://example.com/a?b=1, and https://example.org.", { metadata: { mine: 1 } });
    expect(r.body.data.data.metadata).toEqual({
      mine: 1,
      "@injected": { extensions: { "link-preview": { links: [{ url: "https://example.com/a?b=1" }, { url: "https://example.org" }] } } },
    });
    const calls = (await e.call("GET", `/_emulator/extensions/calls?messageId=${r.body.data.id}`, { key: null })).body.calls;
    expect(calls.map((c: any) => [c.extension, c.service, c.input])).toEqual([
      ["link-preview", "the linked web page", "https://example.com/a?b=1"],
      ["link-preview", "the linked web page", "https://example.org"],
      ["url-shortener-bitly", "Bitly", "https://example.com/a?b=1"],
      ["url-shortener-bitly", "Bitly", "https://example.org"],
    ]);
    expect(calls[0]).toMatchObject({ appId: APP_ID, messageId: r.body.data.id, action: expect.any(String), at: expect.any(Number) });
    await turn(false, "link-preview", "url-shortener-bitly");
    const off = await send("https://example.net");
    expect(off.body.data.data.metadata).toBeUndefined();
    expect((await e.call("GET", `/_emulator/extensions/calls?messageId=${off.body.data.id}`, { key: null })).body.calls).toEqual([]);
    expect((await e.call("DELETE", "/_emulator/extensions/calls", { key: null })).body).toEqual({ cleared: true });
    expect((await e.call("GET", "/_emulator/extensions/calls", { key: null })).body.calls).toEqual([]);
  });

  it("records outside calls for media and sentiment, and leaves message translation to the clients", async () => {
    await turn(true, "image-moderation", "sentiment-analysis", "message-translation");
    const image = await e.post(
      "/v3/messages",
      { receiver: "superhero2", receiverType: "user", category: "message", type: "image", data: { attachments: [{ url: "https://cdn.example.com/a.png" }] } },
      { onBehalfOf: "superhero1" },
    );
    expect(image.status).toBe(200);
    const translated = await send("hello", { metadata: { "message-translation": { fr: "bonjour" } } });
    expect(translated.body.data.data.metadata).toEqual({ "message-translation": { fr: "bonjour" } });
    const calls = (await e.call("GET", "/_emulator/extensions/calls", { key: null })).body.calls;
    expect(calls.map((c: any) => [c.extension, c.input])).toEqual([
      ["image-moderation", "https://cdn.example.com/a.png"],
      ["sentiment-analysis", "hello"],
    ]);
  });

  it("re-applies on edit: results follow the new text, and disappear once the extension is off", async () => {
    await turn(true, "profanity-filter");
    await e.mgmt("POST", ext("/profanity-filter/v1/settings"), { settings: { dropMessage: false, badwords: ["darn"] } });
    const id = (await send("hello")).body.data.id;
    const edited = await e.put(`/v3/messages/${id}`, { data: { text: "darn" } }, { onBehalfOf: "superhero1" });
    expect(edited.status).toBe(200);
    let m = (await e.get(`/v3/messages/${id}`)).body.data;
    expect(m.data.metadata["@injected"].extensions["profanity-filter"]).toEqual({ profanity: "yes", message_clean: "****" });
    await e.mgmt("PUT", ext("/profanity-filter/v1/settings"), { settings: { dropMessage: true } });
    expectError(await e.put(`/v3/messages/${id}`, { data: { text: "darn darn" } }, { onBehalfOf: "superhero1" }), 403, "ERR_BLOCKED_BY_EXTENSION");
    expect((await e.get(`/v3/messages/${id}`)).body.data.data.text).toBe("darn");
    await turn(false, "profanity-filter");
    await e.put(`/v3/messages/${id}`, { data: { text: "darn again" } }, { onBehalfOf: "superhero1" });
    m = (await e.get(`/v3/messages/${id}`)).body.data;
    expect(m.data.metadata).toBeUndefined();
  });
});
