import { afterEach, describe, expect, it, vi } from "vitest";
import { startEmulator, type RunningEmulator } from "../src/index.js";
import { APP_ID, AUTH_KEY, emulator, expectError, MGMT, REST_KEY } from "./helpers.js";

/** The web inspector's server side: its page and files, the sign-in with a control token, and what it reads. */

const TOKEN = "s3cret-token";
const raw = (e: Awaited<ReturnType<typeof emulator>>, path: string, init: RequestInit = {}) => e.app.request(`http://127.0.0.1:4780${path}`, init);

/** The asset paths index.html names. */
function assets(html: string): string[] {
  return [...html.matchAll(/(?:src|href)="(\/_emulator\/ui\/assets\/[^"]+)"/g)].map((m) => m[1]);
}

describe("inspector page and files", () => {
  it("serves the built page at /_emulator/ui (and /ui/) with its scripts and styles, each with its content type", async () => {
    const e = await emulator();
    for (const path of ["/_emulator/ui", "/_emulator/ui/"]) {
      const page = await raw(e, path);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(page.headers.get("cache-control")).toBe("no-store");
      expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
      expect(page.headers.get("x-content-type-options")).toBe("nosniff");
      const html = await page.text();
      expect(html).toContain('<div id="root">');
      const files = assets(html);
      expect(files.some((f) => f.endsWith(".js"))).toBe(true);
      expect(files.some((f) => f.endsWith(".css"))).toBe(true);
      for (const f of files) {
        const res = await raw(e, f);
        expect(res.status).toBe(200);
        expect(res.headers.get("content-type")).toBe(f.endsWith(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8");
        expect(res.headers.get("cache-control")).toContain("immutable");
        expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(100);
      }
    }
  });

  it("references nothing outside the emulator", async () => {
    const e = await emulator();
    const html = await (await raw(e, "/_emulator/ui")).text();
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    for (const f of assets(html)) expect(await (await raw(e, f)).text()).not.toMatch(/(src|href)=["'](https?:)?\/\/|@import\s+url\(["']?https?:/);
  });

  it("answers an unknown file with the control API's 404", async () => {
    const e = await emulator();
    const res = await raw(e, "/_emulator/ui/assets/nope.js");
    expect(res.status).toBe(404);
    expect((await res.json()).error).toMatchObject({ code: "ERR_API_NOT_FOUND", source: "emulator" });
  });
});

describe("inspector sign-in with a control token", () => {
  const signIn = async (e: Awaited<ReturnType<typeof emulator>>) => {
    const res = await raw(e, `/_emulator/ui?token=${TOKEN}`);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/_emulator/ui");
    return res.headers.get("set-cookie")!;
  };
  const withCookie = (cookie: string, site = "same-origin") => ({ headers: { cookie: cookie.split(";")[0], "sec-fetch-site": site } });

  it("shows a sign-in page without a session, and again (401) for a wrong token", async () => {
    const e = await emulator({ controlToken: TOKEN });
    const page = await raw(e, "/_emulator/ui");
    expect(page.status).toBe(401);
    expect(page.headers.get("content-type")).toContain("text/html");
    const html = await page.text();
    expect(html).toContain('<form method="post" action="/_emulator/ui">');
    expect(html).not.toContain("<script");
    const wrong = await raw(e, "/_emulator/ui?token=guess");
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("set-cookie")).toBeNull();
    expect(await wrong.text()).toContain("That is not the control token.");
    // The files need the session too.
    expect((await raw(e, "/_emulator/ui/assets/any.js")).status).toBe(401);
  });

  it("trades ?token=T for an HttpOnly SameSite=Strict cookie that stands for x-emulator-token", async () => {
    const e = await emulator({ controlToken: TOKEN });
    const cookie = await signIn(e);
    expect(cookie).toMatch(/^chat_emulator_ui_4780=[\w-]+; Path=\/_emulator; HttpOnly; SameSite=Strict$/);
    expect(cookie).not.toContain(TOKEN);
    const page = await raw(e, "/_emulator/ui", withCookie(cookie));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
    expect((await e.get("/_emulator/rules", withCookie(cookie))).status).toBe(200);
    const added = await e.post("/_emulator/rules", { effect: { latencyMs: 1 } }, withCookie(cookie));
    expect(added.status).toBe(201);
    // A typed address (Sec-Fetch-Site: none) and a browser without Sec-Fetch-* whose Origin is the emulator's.
    expect((await e.get("/_emulator/rules", withCookie(cookie, "none"))).status).toBe(200);
    const legacy = await e.call("DELETE", "/_emulator/rules", { headers: { cookie: cookie.split(";")[0], origin: "http://localhost" } }); // e.call addresses http://localhost
    expect(legacy.status).toBe(200);
  });

  it("signs in through the form as well", async () => {
    const e = await emulator({ controlToken: TOKEN });
    const res = await raw(e, "/_emulator/ui", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `token=${TOKEN}`,
    });
    expect(res.status).toBe(303);
    expect(res.headers.get("set-cookie")).toContain("HttpOnly");
    const bad = await raw(e, "/_emulator/ui", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "token=x" });
    expect(bad.status).toBe(401);
  });

  it("refuses the cookie from other sites and origins (other ports of the host included), and a forged cookie", async () => {
    const e = await emulator({ controlToken: TOKEN });
    const cookie = await signIn(e);
    // Refused before the token is even looked at (see safety.test.ts).
    for (const site of ["same-site", "cross-site"])
      expectError(await e.post("/_emulator/reset", {}, withCookie(cookie, site)), 403, "ERR_CROSS_ORIGIN_REQUEST");
    const otherPort = { headers: { cookie: cookie.split(";")[0], origin: "http://127.0.0.1:3000" } };
    expectError(await e.post("/_emulator/reset", {}, otherPort), 403, "ERR_CROSS_ORIGIN_REQUEST");
    expectError(await e.get("/_emulator/state", withCookie("chat_emulator_ui_4780=forged")), 401, "AUTH_ERR_EMPTY_EMULATOR_TOKEN");
    expect((await raw(e, "/_emulator/ui", withCookie("chat_emulator_ui_4780=forged"))).status).toBe(401);
  });

  it("opens the page for a caller that sends the header", async () => {
    const e = await emulator({ controlToken: TOKEN });
    expect((await raw(e, "/_emulator/ui", { headers: { "x-emulator-token": TOKEN } })).status).toBe(200);
  });

  it("redirects ?token= away when no token is set", async () => {
    const e = await emulator();
    const res = await raw(e, "/_emulator/ui?token=anything");
    expect(res.status).toBe(303);
    expect(res.headers.get("set-cookie")).toBeNull();
  });
});

describe("GET /_emulator/apps", () => {
  it("lists every app with its base paths and keys, the default app and the management credentials", async () => {
    const e = await emulator();
    const created = await e.mgmt("POST", "/apps", { name: "Second", region: "eu", skipSampleData: true });
    const r = await e.get("/_emulator/apps", { key: null });
    expect(r.status).toBe(200);
    expect(r.body.defaultAppId).toBe(APP_ID);
    expect(r.body.management).toEqual({ path: "/apimgmt", ...MGMT });
    expect(r.body.apps).toHaveLength(2);
    expect(r.body.apps[0]).toEqual({
      appId: APP_ID,
      name: expect.any(String),
      region: "us",
      default: true,
      restPath: `/${APP_ID}.api-us/v3`,
      callsPath: `/${APP_ID}.call-us/v3`,
      apiKeys: [
        { apiKey: REST_KEY, name: expect.any(String), scope: "fullAccess" },
        { apiKey: AUTH_KEY, name: expect.any(String), scope: "authOnly" },
      ],
    });
    expect(r.body.apps[1]).toMatchObject({ appId: created.body.data.id, region: "eu", default: false });
  });

  it("needs the control token when one is set", async () => {
    const e = await emulator({ controlToken: TOKEN });
    expectError(await e.get("/_emulator/apps", { key: null }), 401, "AUTH_ERR_EMPTY_EMULATOR_TOKEN");
    expect((await e.get("/_emulator/apps", { key: null, headers: { "x-emulator-token": TOKEN } })).status).toBe(200);
  });
});

describe("the inspector's reads (x-emulator-inspector)", () => {
  it("are not journaled and rules do not touch them; its writes are ordinary calls", async () => {
    const e = await emulator();
    const inspector = { headers: { "x-emulator-inspector": "1" } };
    e.rules.add({ match: { path: "/v3/users*" }, effect: { status: 503 }, times: 1 });
    expect((await e.get("/v3/users", inspector)).status).toBe(200);
    expect(e.journal.list()).toEqual([]);
    expect(e.rules.list()[0]).toMatchObject({ hits: 0, times: 1 });
    // A write with the header is the user driving the emulator: journaled, and the rule applies.
    const write = await e.post("/v3/users", { uid: "ann", name: "Ann" }, inspector);
    expectError(write, 503, "ERR_OPERATION_FAILED");
    expect(e.journal.list().map((r) => [r.method, r.path, r.status, r.rules])).toEqual([["POST", "/v3/users", 503, ["r1"]]]);
  });
});

describe("request log", () => {
  let running: RunningEmulator | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });

  it("leaves out the inspector's reads and hides a token in the query", async () => {
    const lines: string[] = [];
    running = await startEmulator({ controlToken: TOKEN, requestLog: (l) => lines.push(l) });
    await fetch(`${running.url}/v3/users`, { headers: { apikey: REST_KEY, "x-emulator-inspector": "1" } });
    await fetch(`${running.url}/_emulator/ui?token=${TOKEN}`, { redirect: "manual" });
    await fetch(`${running.url}/v3/users/superhero1`, { headers: { apikey: REST_KEY } });
    await vi.waitFor(() => expect(lines).toHaveLength(2));
    expect(lines[0]).toMatch(/GET +- \/_emulator\/ui\?token=\*\*\* 303 /);
    expect(lines[1]).toMatch(/GET +62c95aeb231ec058 \/v3\/users\/superhero1 200 /);
    expect(lines.join("\n")).not.toContain(TOKEN);
  });
});
