import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../src/index.js";
import { forwardUrl } from "../src/bridge/record.js";
import { APP_ID, AUTH_KEY, MGMT, REST_KEY } from "./helpers.js";
import { runCli, startCommand } from "./cli.helpers.js";
import { tempDir } from "./tmp.helpers.js";

/**
 * pull, record and compare end to end: the real CLI against a second emulator acting as the platform. Its rules
 * (POST /_emulator/rules) inject the faults, and changes made behind the recorder's back the changed answers, that
 * compare is expected to report.
 */

let platform: RunningEmulator;

beforeAll(async () => {
  platform = await startEmulator({ port: 0, quiet: true });
});
afterAll(() => platform.close());

/** A REST call to the platform, as the app (or on behalf of a user). */
async function rest(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { apikey: REST_KEY, "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as any;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

const control = (path: string, body?: unknown, on: RunningEmulator = platform) =>
  fetch(`${on.url}/_emulator${path}`, { method: body === undefined ? "DELETE" : "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

function pullArgs(out: string, ...more: string[]) {
  return [
    "pull",
    ...["--app-id", APP_ID, "--api-key", REST_KEY, "--base-url", platform.baseUrl(), "--out", out],
    ...["--management-url", platform.management.url, "--management-key", MGMT.key, "--management-secret", MGMT.secret],
    ...more,
  ];
}

describe("chat-emulator pull", () => {
  beforeAll(async () => {
    const base = platform.baseUrl();
    await rest(base, "POST", "/roles", { role: "staff", name: "Staff" });
    await rest(base, "POST", "/users", { uid: "alice", name: "Alice Liddell", role: "staff", metadata: { city: "Oxford" }, tags: ["vip"] });
    await rest(base, "POST", "/users", { uid: "bob", name: "Bob", avatar: "https://example.com/bob.png" });
    await rest(base, "POST", "/groups", { guid: "club", name: "Club", type: "password", password: "s3cret", owner: "alice" });
    await rest(base, "POST", "/groups/club/members", { moderators: ["bob"], participants: ["superhero1"] });
    await rest(base, "POST", "/groups/supergroup/bannedusers/superhero3", {});
    await rest(base, "POST", "/users/alice/friends", { accepted: ["bob", "superhero2"] });
    await rest(base, "POST", "/users/bob/blockedusers", { blockedUids: ["superhero3"] });
    await rest(base, "POST", "/apikeys", { name: "Backend", scope: "fullAccess" });
    await rest(base, "POST", "/moderation/keywords", { id: "banned-words", name: "Banned words", searchTerms: ["darn"] });
    await fetch(`${platform.management.url}/apps/${APP_ID}/webhooks`, {
      method: "POST",
      headers: { ...MGMT, "x-webhook-version": "2", "content-type": "application/json" },
      body: JSON.stringify({ id: "backend", name: "Backend", webhookURL: "https://example.com/hooks", useBasicAuth: true, username: "u", password: "hook-pass" }),
    });
    const sent = await rest(base, "POST", "/messages", { receiver: "bob", receiverType: "user", category: "message", type: "text", data: { text: "Hello Bob" } }, { onBehalfOf: "alice" });
    await rest(base, "POST", `/messages/${sent.data.id}/thread`, { category: "message", type: "text", data: { text: "In a thread" } }, { onBehalfOf: "bob" });
    await rest(base, "POST", `/messages/${sent.data.id}/reactions/%F0%9F%91%8D`, {}, { onBehalfOf: "bob" });
    for (let i = 0; i < 3; i++)
      await rest(base, "POST", "/messages", { receiver: "club", receiverType: "group", category: "message", type: "text", data: { text: `club ${i}` } }, { onBehalfOf: "alice" });
  });

  it("reads the app with GET requests only into a file another emulator loads with the same listings", async () => {
    const dir = tempDir("pull");
    const out = join(dir, "app.json");
    const mark = Date.now();
    const r = await runCli(pullArgs(out), {}, 30_000);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/pulled 62c95aeb231ec058 \(7 users, 2 groups, 19 messages, 1 reactions, 2 friendships, 1 blocks, 1 webhooks\)/);
    expect(r.stderr).toContain('got the password "chat-emulator"');
    expect(existsSync(`${out}.pull-progress`)).toBe(false);
    const journal = platform.journal.list({ since: mark }) as { method: string }[];
    expect(new Set(journal.map((e) => e.method))).toEqual(new Set(["GET"]));
    const text = readFileSync(out, "utf8");
    for (const secret of ["hook-pass", "s3cret", REST_KEY]) expect(text).not.toContain(secret);
    // A state file by its schema, as every state the emulator writes.
    const schema = (name: string) => JSON.parse(readFileSync(new URL(`../schemas/${name}`, import.meta.url), "utf8"));
    const valid = new Ajv2020({ strict: true, allErrors: true }).addSchema(schema("seed.schema.json")).compile(schema("state.schema.json"));
    expect(valid(JSON.parse(text)), JSON.stringify(valid.errors?.slice(0, 3))).toBe(true);

    const copy = await startEmulator({ port: 0, quiet: true, seed: out });
    try {
      const keys = (await (await fetch(`${copy.url}/_emulator/apps`)).json()) as any;
      const copyKey = keys.apps[0].apiKeys.find((k: any) => k.name === "Rest API Key").apiKey;
      expect(keys.apps[0]).toMatchObject({ appId: APP_ID, name: "Default App", region: "us" });
      const list = async (e: RunningEmulator, key: string, path: string, headers: Record<string, string> = {}) =>
        (await (await fetch(`${e.baseUrl()}${path}`, { headers: { apikey: key, ...headers } })).json()) as any;
      for (const path of [
        "/users?perPage=100&withTags=true",
        "/groups?withTags=true",
        "/groups/club/members",
        "/groups/supergroup/bannedusers",
        "/users/alice/friends",
        "/users/bob/blockedusers",
        "/roles",
        "/moderation/keywords",
        "/conversations?unique=1",
        "/messages?limit=100",
      ])
        expect(await list(copy, copyKey, path), path).toEqual(await list(platform, REST_KEY, path));
      const thread = `/messages/${(await list(platform, REST_KEY, "/messages?limit=100")).data.find((m: any) => m.replyCount).id}/thread`;
      expect(await list(copy, copyKey, thread)).toEqual(await list(platform, REST_KEY, thread));
      // Keys: names and scopes, never the platform's secrets.
      const names = (e: any) => e.data.map((k: any) => [k.name, k.scope]).sort();
      expect(names(await list(copy, copyKey, "/apikeys"))).toEqual(names(await list(platform, REST_KEY, "/apikeys")));
      const hooks = await (await fetch(`${copy.management.url}/apps/${APP_ID}/webhooks`, { headers: { ...MGMT, "x-webhook-version": "2" } })).json();
      expect((hooks as any).data).toEqual([expect.objectContaining({ id: "backend", useBasicAuth: true, username: "u" })]);
      // A password group takes the stand-in password.
      const join_ = await fetch(`${copy.baseUrl()}/groups/club/members`, {
        method: "POST",
        headers: { apikey: copyKey, "content-type": "application/json" },
        body: JSON.stringify({ participants: ["superhero5"] }),
      });
      expect(join_.status).toBe(200);
    } finally {
      await copy.close();
    }
  });

  it("waits on a 429 for its Retry-After, leaves a list that went empty, and a failed pull continues from its progress file", async () => {
    const dir = tempDir("pull-resume");
    const out = join(dir, "app.json");
    await control("/rules", { match: { path: "/v3/users/*/friends" }, effect: { status: 429, retryAfter: 1 }, times: 1 });
    await control("/rules", { match: { path: "/v3/users/alice/friends" }, effect: { status: 404 }, times: 1 });
    await control("/rules", { match: { path: "/v3/groups/*/bannedusers" }, effect: { status: 400 }, times: 1 });
    const failed = await runCli(pullArgs(out, "--messages", "5"), {}, 30_000);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("400 ERR_BAD_REQUEST");
    expect(failed.stderr).toContain(`run the same command again to continue`);
    expect(existsSync(`${out}.pull-progress`)).toBe(true);
    expect(existsSync(out)).toBe(false);
    const again = await runCli(pullArgs(out, "--messages", "5"), {}, 30_000);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/waiting 1\.0 s: rate limited \(429\)/);
    expect(again.stderr).toMatch(/, \d+ pieces taken up from the last run\./);
    // A list that answers 404 (its record went while pulling) is left empty, and said.
    expect(again.stderr).toContain("1 list(s) answered 404");
    expect(existsSync(`${out}.pull-progress`)).toBe(false);
    await control("/rules");
  });

  it("--anonymize gives the same stand-ins twice and keeps ids; --out refuses a file that is not ours", async () => {
    const dir = tempDir("pull-anon");
    const [a, b] = [join(dir, "a.json"), join(dir, "b.json")];
    expect((await runCli(pullArgs(a, "--anonymize", "--quiet"), {}, 30_000)).code).toBe(0);
    expect((await runCli(pullArgs(b, "--anonymize", "--quiet"), {}, 30_000)).code).toBe(0);
    expect(readFileSync(a, "utf8")).toBe(readFileSync(b, "utf8"));
    const app = JSON.parse(readFileSync(a, "utf8")).apps[0];
    const alice = app.users.find((u: any) => u.uid === "alice");
    expect(alice.name).not.toBe("Alice Liddell");
    expect(alice.metadata.city).toMatch(/^anon-/);
    expect(app.users.find((u: any) => u.uid === "bob").avatar).toMatch(/chat-emulator\.invalid/);
    const texts = app.messages.map((m: any) => m.data.text).join(" ");
    expect(texts).not.toMatch(/Hello Bob|club \d|In a thread/);

    const foreign = join(dir, "package.json");
    writeFileSync(foreign, '{"name":"mine"}');
    const refused = await runCli(pullArgs(foreign));
    expect([refused.code, refused.stderr]).toEqual([2, expect.stringContaining("is not a chat-emulator seed or state file")]);
    expect(readFileSync(foreign, "utf8")).toBe('{"name":"mine"}');
  });
});

describe("chat-emulator record and compare", () => {
  let target: RunningEmulator;
  beforeAll(async () => {
    target = await startEmulator({ port: 0, quiet: true });
  });
  afterAll(() => target.close());

  /** Records what `drive` sends through the proxy (at the proxy's address), until SIGTERM. */
  async function record(out: string, drive: (proxy: string) => Promise<void>) {
    const proxy = await startCommand(["record", "--target", target.url, "--out", out, "--port", "0"]);
    try {
      await drive(proxy.url);
      // Whole after each exchange, before any stop.
      expect(Array.isArray(JSON.parse(readFileSync(out, "utf8")).log.entries)).toBe(true);
    } finally {
      expect(await proxy.stop("SIGTERM")).toBe(0);
    }
    return proxy;
  }

  /** A session of the REST, client and management planes, with generated ids used in later requests. */
  async function session(proxy: string) {
    const base = `${proxy}/${APP_ID}.api-us/v3`;
    await rest(base, "POST", "/users", { uid: "carol", name: "Carol" });
    const token = (await rest(base, "POST", "/users/carol/auth_tokens", {})).data.authToken;
    const sent = await rest(base, "POST", "/messages", { receiver: "superhero1", receiverType: "user", category: "message", type: "text", data: { text: "hi" } }, { onBehalfOf: "carol" });
    await rest(base, "POST", `/messages/${sent.data.id}/thread`, { category: "message", type: "text", data: { text: "re" } }, { onBehalfOf: "superhero1" });
    await rest(base, "GET", `/messages/${sent.data.id}/thread`);
    await rest(base, "GET", `/users/carol/messages`);
    // Gone for good: the 404's message names the (mapped) id.
    await rest(base, "DELETE", `/messages/${sent.data.id}`, { permanent: true });
    expect((await fetch(`${base}/messages/${sent.data.id}`, { headers: { apikey: REST_KEY } })).status).toBe(404);
    await rest(base, "POST", "/groups", { guid: "secret-club", name: "Secret", type: "password", password: "open-sesame" });
    const me = await fetch(`${proxy}/${APP_ID}.apiclient-us/v3.0/me`, { headers: { appid: APP_ID, authtoken: token } });
    expect(me.status).toBe(200);
    const hooks = await fetch(`${proxy}/apimgmt/apps/${APP_ID}/webhooks`, { headers: { ...MGMT } });
    expect(hooks.status).toBe(200);
  }

  it("records every plane to HAR with secrets redacted, and the emulator compares with itself with no difference", async () => {
    const dir = tempDir("record");
    const har = join(dir, "traffic.har");
    // Messages the recording does not see: the target's ids run ahead of a fresh emulator's, so ids must be mapped.
    for (const text of ["a", "b"]) await rest(target.baseUrl(), "POST", "/messages", { receiver: "superhero5", receiverType: "user", data: { text } }, { onBehalfOf: "superhero4" });
    const proxy = await record(har, session);
    expect(proxy.stdout()).toMatch(/POST \/62c95aeb231ec058\.api-us\/v3\/users 200/);
    const text = readFileSync(har, "utf8");
    const doc = JSON.parse(text);
    expect(doc.log).toMatchObject({ version: "1.2", creator: { name: "chat-emulator record" } });
    expect(doc.log.entries).toHaveLength(11);
    expect(doc.log.entries[0].request.url).toBe(`${target.url}/${APP_ID}.api-us/v3/users`);
    for (const secret of [REST_KEY, MGMT.key, MGMT.secret, "open-sesame"]) expect(text).not.toContain(secret);
    expect(text).toMatch(/"authToken\\":\\"REDACTED-[0-9a-f]{16}\\"/);

    const r = await runCli(["compare", har], {}, 30_000);
    expect(r.stdout).toContain("11 exchanges");
    expect([r.code, r.stdout]).toEqual([0, expect.stringContaining("the emulator answered each as recorded")]);
  });

  it("reports each known change, and nothing else, to the terminal, --report and the step summary", async () => {
    const dir = tempDir("compare");
    const har = join(dir, "traffic.har");
    await target.reset();
    await record(har, async (proxy) => {
      const base = `${proxy}/${APP_ID}.api-us/v3`;
      await rest(base, "GET", "/users/superhero1");
      // Changed behind the recorder's back: a name the fresh emulator does not have.
      await rest(target.baseUrl(), "PUT", "/users/superhero2", { name: "Cap" });
      await rest(base, "GET", "/users/superhero2");
      // A fault: the platform failed this call once.
      await control("/rules", { match: { path: "/v3/groups/supergroup" }, effect: { status: 503 }, times: 1 }, target);
      expect((await fetch(`${base}/groups/supergroup`, { headers: { apikey: REST_KEY } })).status).toBe(503);
      await rest(base, "GET", "/groups/supergroup/members");
    });
    const summary = join(dir, "summary.md");
    const md = join(dir, "report.md");
    const json = join(dir, "report.json");
    const r = await runCli(["compare", har, "--report", md], { GITHUB_STEP_SUMMARY: summary }, 30_000);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toContain("4 exchanges of");
    expect(r.stdout).toContain("3 answered differently");
    const report = readFileSync(md, "utf8");
    expect(report).toContain("#### 2. `GET /v3/users/superhero2`");
    expect(report).toContain('| `data.name` | value | `"Cap"` | `"Captain America"` |');
    expect(report).toContain("| `data.updatedAt` | missing |");
    expect(report).toContain("#### 3. `GET /v3/groups/supergroup`");
    expect(report).toContain("| `status` | status | `503` | `200` |");
    expect(readFileSync(summary, "utf8")).toBe(report + "\n");
    expect((await runCli(["compare", har, "--report", json], {}, 30_000)).code).toBe(1);
    const parsed = JSON.parse(readFileSync(json, "utf8"));
    // The rename shows wherever the user does (and gave the user an updatedAt); the fault once; nothing else.
    expect(parsed.exchanges.map((x: any) => [x.index, x.differences.map((d: any) => d.path)])).toEqual([
      [2, ["data.updatedAt", "data.name"]],
      [3, ["status", "error.code"]],
      [4, ["data[1].name"]],
    ]);
    const bad = await runCli(["compare", har, "--report", join(dir, "r.txt")]);
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining("must end in .json or .md")]);
  });

  it("compares a DevTools HAR of the SDK's traffic: platform host names, HTTP/2 headers, base64 bodies, other entries skipped", async () => {
    const dir = tempDir("devtools");
    await target.reset();
    let token = "";
    /** One exchange with the target, written down as DevTools exports it (platform host names, real secrets). */
    const exchange = async (plane: "api" | "apiclient", method: string, path: string, body?: unknown) => {
      const headers: Record<string, string> =
        plane === "api" ? { apiKey: AUTH_KEY, "content-type": "application/json" } : { appid: APP_ID, authtoken: token, sdk: "javascript@4.0.0", "content-type": "application/json" };
      const res = await fetch(`${target.url}/${APP_ID}.${plane}-us/v3.0${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      return {
        startedDateTime: new Date().toISOString(),
        time: 1,
        _resourceType: "fetch",
        request: {
          method,
          url: `https://${APP_ID}.${plane}-us.cometchat.io/v3.0${path}`,
          httpVersion: "http/2.0",
          headers: [{ name: ":authority", value: `${APP_ID}.${plane}-us.cometchat.io` }, ...Object.entries(headers).map(([name, value]) => ({ name, value }))],
          queryString: [],
          cookies: [],
          headersSize: -1,
          bodySize: -1,
          ...(body === undefined ? {} : { postData: { mimeType: "application/json", text: JSON.stringify(body) } }),
        },
        response: {
          status: res.status,
          statusText: "",
          httpVersion: "http/2.0",
          headers: [],
          cookies: [],
          content: { size: text.length, mimeType: "application/json", text: Buffer.from(text).toString("base64"), encoding: "base64" },
          redirectURL: "",
          headersSize: -1,
          bodySize: -1,
        },
        cache: {},
        timings: { send: 0, wait: 1, receive: 0 },
      };
    };
    const decoded = (x: { response: { content: { text: string } } }) => JSON.parse(Buffer.from(x.response.content.text, "base64").toString());
    // CometChat.login(uid, authKey): a token from the REST host with the auth key, then PUT /me with it.
    const created = await exchange("api", "POST", "/users/superhero1/auth_tokens", {});
    token = decoded(created).data.authToken;
    const login = await exchange("apiclient", "PUT", "/me", { platform: "javascript" });
    const sent = await exchange("apiclient", "POST", "/messages", { receiver: "superhero2", receiverType: "user", category: "message", type: "text", data: { text: "from the SDK" } });
    const edited = await exchange("apiclient", "PUT", `/messages/${decoded(sent).data.id}`, { data: { text: "edited" } });
    const preflight = { ...login, _resourceType: "preflight", request: { ...login.request, method: "OPTIONS" } };
    const page = { ...login, _resourceType: "document", request: { ...login.request, method: "GET", url: "https://app.example.com/index.html" } };
    const socket = { ...login, _resourceType: "websocket", request: { ...login.request, method: "GET", url: `wss://${APP_ID}.websocket-us.cometchat.io/` } };
    const har = join(dir, "devtools.har");
    writeFileSync(har, JSON.stringify({ log: { version: "1.2", creator: { name: "WebInspector", version: "537.36" }, entries: [page, created, preflight, login, socket, sent, edited] } }));
    const r = await runCli(["compare", har], {}, 30_000);
    expect(r.stdout).toContain("4 exchanges of");
    expect([r.code, r.stdout]).toEqual([0, expect.stringContaining("the emulator answered each as recorded")]);
  });
});

describe("compare without the recorded app", () => {
  it("replays against the seed's default app, and says so", async () => {
    const dir = tempDir("other-app");
    const answer = await (await fetch(`${platform.baseUrl()}/users/superhero1`, { headers: { apikey: REST_KEY } })).text();
    const entry = (url: string) => ({
      startedDateTime: new Date().toISOString(),
      time: 1,
      request: { method: "GET", url, httpVersion: "HTTP/1.1", headers: [{ name: "apikey", value: "REDACTED-0123456789abcdef" }], queryString: [], cookies: [], headersSize: -1, bodySize: 0 },
      response: { status: 200, statusText: "OK", httpVersion: "HTTP/1.1", headers: [], cookies: [], content: { size: answer.length, mimeType: "application/json", text: answer }, redirectURL: "", headersSize: -1, bodySize: -1 },
      cache: {},
      timings: { send: 0, wait: 1, receive: 0 },
    });
    const har = join(dir, "other.har");
    writeFileSync(har, JSON.stringify({ log: { version: "1.2", creator: { name: "x", version: "1" }, entries: [entry("https://abc123.api-eu.cometchat.io/v3/users/superhero1")] } }));
    const r = await runCli(["compare", har], {}, 30_000);
    expect([r.code, r.stdout]).toEqual([0, expect.stringContaining("The recording's app abc123 is not in the emulator's seed: it was replayed against 62c95aeb231ec058")]);
  });
});

describe("record's forwarding", () => {
  it("keeps the path for an emulator target and folds a path label into a platform domain's host", () => {
    expect(forwardUrl("http://127.0.0.1:4780", "/62c95aeb231ec058.api-us/v3/users")).toBe("http://127.0.0.1:4780/62c95aeb231ec058.api-us/v3/users");
    expect(forwardUrl("https://cometchat.io", "/62c95aeb231ec058.apiclient-eu/v3.0/me?x=1")).toBe("https://62c95aeb231ec058.apiclient-eu.cometchat.io/v3.0/me?x=1");
    expect(forwardUrl("https://cometchat.io", "/apimgmt/apps")).toBe("https://apimgmt.cometchat.io/apps");
    expect(forwardUrl("https://62c95aeb231ec058.api-us.cometchat.io", "/v3/users")).toBe("https://62c95aeb231ec058.api-us.cometchat.io/v3/users");
  });
});
