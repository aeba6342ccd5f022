import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../src/index.js";
import { launchChromium } from "../scripts/chromium.mjs";
import { watchedPage } from "./browser.helpers.js";
import { APP_ID, REST_KEY } from "./helpers.js";

/**
 * The inspector's rough edges, in Chromium: "Send as" in a group, rule presets, a long app name in the sidebar,
 * and "copy as curl" / "replay" on a journaled request.
 */

let emulator: RunningEmulator;
let browser: Browser;
let page: Page;
const problems: string[] = [];
const LONG_NAME = "Customer Support Escalations Sandbox for the Northern Europe Region";
let longNamed: string;

const api = (path: string, body?: unknown, onBehalfOf?: string) =>
  fetch(`${emulator.baseUrl()}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { apikey: REST_KEY, "content-type": "application/json", ...(onBehalfOf ? { onBehalfOf } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

beforeAll(async () => {
  emulator = await startEmulator({ quiet: true });
  longNamed = emulator.createApp({ name: LONG_NAME }).appId; // before the page loads the list of apps
  browser = await launchChromium();
  page = await watchedPage(browser, problems);
});

afterAll(async () => {
  await browser?.close();
  await emulator?.close();
});

describe("inspector rough edges in Chromium", () => {
  it("offers a group's members only under Send as", async () => {
    expect((await api("/groups", { guid: "pair", name: "Pair", type: "private", owner: "superhero1", members: { participants: ["superhero4"] } })).status).toBe(200);
    expect((await api("/messages", { receiver: "pair", receiverType: "group", data: { text: "just us" } }, "superhero1")).status).toBe(200);
    await page.goto(`${emulator.url}/_emulator/ui#/app/${APP_ID}/conversations/group_pair`);
    await page.locator(".chat .message", { hasText: "just us" }).waitFor();
    const select = page.locator('.chat select[aria-label="Send as"]');
    await expect.poll(() => select.locator("option").allTextContents()).toEqual(["Send as…", "Iron Man (superhero1)", "Wolverine (superhero4)"]);
  });

  it("shows a long app name whole in the sidebar", async () => {
    await page.goto(`${emulator.url}/_emulator/ui#/app/${longNamed}/users`);
    const heading = page.locator(".sidebar h3.app-name");
    await heading.waitFor();
    expect(await heading.textContent()).toBe(LONG_NAME);
    const fits = await heading.evaluate((h) => h.scrollWidth <= h.clientWidth && getComputedStyle(h).textOverflow !== "ellipsis");
    expect(fits).toBe(true);
  });

  it("adds a rule from a preset at once", async () => {
    await page.goto(`${emulator.url}/_emulator/ui#/rules`);
    await page.getByRole("button", { name: "Rate limited (429) ×3" }).click();
    await page.locator("tr[data-rule]", { hasText: "429" }).waitFor();
    expect(emulator.rules.list().map((r) => [r.match.path, r.effect.status, r.times])).toEqual([["/v3/*", 429, 3]]);
    emulator.rules.clear();
    // Socket logins: a rule for the WebSocket's auth frames (method WS, any path), for testing reconnects.
    await page.getByRole("button", { name: "Socket logins dropped ×3 (reconnects)" }).click();
    await page.locator("tr[data-rule]", { hasText: "WS" }).waitFor();
    expect(emulator.rules.list().map((r) => [r.match.method, r.match.path, r.effect.reset, r.times])).toEqual([["WS", undefined, true, 3]]);
    emulator.rules.clear();
  });

  it("copies a journaled request as curl (keys only when asked) and replays it", async () => {
    emulator.journal.clear();
    const body = { receiver: "superhero2", receiverType: "user", data: { text: "say it twice" } };
    expect((await api("/messages", body, "superhero1")).status).toBe(200);
    const [sentFirst] = emulator.journal.list();
    await page.goto(`${emulator.url}/_emulator/ui#/requests`);
    await page.locator(`tr[data-request="${sentFirst.id}"]`).click();
    const curl = page.locator(".drawer pre.curl");
    const masked = await curl.textContent();
    expect(masked).toContain(`curl -sS -X POST '${emulator.url}/${APP_ID}.api-us/v3/messages'`);
    expect(masked).toContain("-H 'apikey: <apikey>'");
    expect(masked).toContain("-H 'onbehalfof: superhero1'");
    expect(masked).toContain(`--data-raw '${JSON.stringify(body)}'`);
    expect(masked).not.toContain(REST_KEY);
    await page.locator(".drawer label.check", { hasText: "include keys" }).locator("input").check();
    await expect.poll(() => curl.textContent()).toContain(`-H 'apikey: ${REST_KEY}'`);

    await page.getByRole("button", { name: "Replay" }).click();
    await page.getByText("Replayed POST /v3/messages: 200").waitFor();
    const sent = emulator.journal.list({ method: "POST", path: "/v3/messages" });
    expect(sent.map((e) => [e.status, e.requestBody])).toEqual([
      [200, body],
      [200, body],
    ]);
    const texts = (await (await api("/messages?conversationId=superhero1_user_superhero2&affix=prepend&limit=2")).json()).data.map((m: { data: { text: string } }) => m.data.text);
    expect(texts).toEqual(["say it twice", "say it twice"]);
    expect(problems).toEqual([]);
  });
});
