import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../src/index.js";
import { launchChromium } from "../scripts/chromium.mjs";
import { watchedPage } from "./browser.helpers.js";
import { APP_ID, REST_KEY } from "./helpers.js";

/**
 * The web inspector in a real browser: Debian's Chromium, headless, driven by playwright-core (installed by
 * .ci/run; CHROMIUM_PATH names another). No browser is a failure, not a skip: CI must run this.
 * One emulator with a control token (so the sign-in is exercised too), one browser, one page, steps in order.
 */

const TOKEN = "browser-test-token";
let emulator: RunningEmulator;
let browser: Browser;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  emulator = await startEmulator({ controlToken: TOKEN, quiet: true });
  browser = await launchChromium();
  page = await watchedPage(browser, problems);
});

afterAll(async () => {
  await browser?.close();
  await emulator?.close();
});

const sendAs = async (uid: string, text: string) => {
  await page.selectOption('.chat select[aria-label="Send as"]', uid);
  await page.fill('.chat input[aria-label="Message text"]', text);
  await page.click('.chat button[type="submit"]');
};

describe("web inspector in Chromium", () => {
  it("signs in with ?token=, picks the default app and opens the supergroup conversation", async () => {
    await page.goto(`${emulator.url}/_emulator/ui?token=${TOKEN}`);
    expect(new URL(page.url()).search).toBe(""); // the token left the address bar
    const card = page.locator(`.app-card[data-app="${APP_ID}"]`);
    await card.getByText("default", { exact: true }).waitFor();
    await card.locator("h2 a").click();
    await page.click('[data-conversation="group_supergroup"]');
    await page.locator(".chat .message", { hasText: "Welcome to the Comic Heros' Hangout!" }).waitFor();
    expect(await page.locator(".chat-head h2").textContent()).toBe("Comic Heros' Hangout");
  });

  it("sends a message as superhero2: the REST API has it and the live journal shows the call", async () => {
    const text = `Hello from the inspector ${Date.now()}`;
    await sendAs("superhero2", text);
    await page.locator(".chat .message", { hasText: text }).waitFor();

    const res = await fetch(`${emulator.baseUrl()}/groups/supergroup/messages?affix=prepend&limit=1`, { headers: { apikey: REST_KEY } });
    const [last] = (await res.json()).data;
    expect(last).toMatchObject({ sender: "superhero2", receiver: "supergroup", data: { text } });

    await page.click('.sidebar a[href="#/requests"]');
    const row = page.locator("tr[data-request]", { hasText: "/v3/messages" }).first();
    await row.getByText("200").waitFor();
    expect(await row.locator(".method").textContent()).toBe("POST");
    await row.click();
    await page.locator(".drawer", { hasText: text }).waitFor();
    await page.click('.drawer button[aria-label="Close"]');
  });

  it("adds a fault rule, and the next send fails with its error", async () => {
    await page.click('.sidebar a[href="#/rules"]');
    await page.getByRole("button", { name: "Next message send fails (503)" }).click(); // a preset adds its rule
    await page.locator('tr[data-rule="r1"]').waitFor();

    await page.goBack(); // the journal
    await page.goBack(); // the conversation
    await sendAs("superhero2", "this one fails");
    const error = await page.locator(".composer-error").textContent();
    expect(error).toContain("503 ERR_OPERATION_FAILED");

    const journal = emulator.journal.list({ method: "POST", path: "/v3/messages" });
    expect(journal.map((r) => [r.status, r.rules])).toEqual([
      [200, []],
      [503, ["r1"]],
    ]);
    await page.click('.sidebar a[href="#/requests"]');
    await page.locator("tr[data-request]", { hasText: "503" }).getByText("r1").waitFor();
    expect(problems).toEqual([]);
  });

  it("shows the notification outbox live: a push computed for a message, with its payload", async () => {
    const rest = (path: string, body: unknown, extra: Record<string, string> = {}) =>
      fetch(`${emulator.baseUrl()}${path}`, { method: "POST", headers: { apikey: REST_KEY, "content-type": "application/json", ...extra }, body: JSON.stringify(body) }).then((r) => r.json());
    await rest("/notifications/push/v1/providers/fcm", { providerId: "fcm", serviceAccountCreds: { project_id: "p", client_email: "c@p.test", private_key: "k" } });
    const { data } = await rest("/users/superhero3/auth_tokens", {});
    await rest("/notifications/push/v1/tokens", { platform: "fcm_web", fcmToken: "spidey-web", authToken: data.authToken });
    await page.click('.sidebar a[href="#/notifications"]');
    await rest("/messages", { receiver: "supergroup", receiverType: "group", data: { text: "Notify Spidey" } }, { onBehalfOf: "superhero1" });
    const row = page.locator("tr", { hasText: "Notify Spidey" }).filter({ hasText: "superhero3" });
    await row.getByText("sent").waitFor();
    await row.click();
    await page.locator(".drawer", { hasText: "spidey-web" }).waitFor();
    expect(problems).toEqual([]);
  });

  it("moderation: a rule switched on in the view holds a message; Approve delivers it; Disapprove withdraws a flagged one", async () => {
    const call = (method: string, path: string, body: unknown, extra: Record<string, string> = {}) =>
      fetch(`${emulator.baseUrl()}${path}`, { method, headers: { apikey: REST_KEY, "content-type": "application/json", ...extra }, body: JSON.stringify(body) }).then((r) => r.json());
    await page.goto(`${emulator.url}/_emulator/ui#/app/${APP_ID}/moderation`);
    const rule = page.locator('tr[data-rule="text-profanity-filter"]');
    await rule.locator("input[type=checkbox]").click(); // a controlled switch: it turns once the PUT is done
    await rule.getByText("enabled", { exact: true }).waitFor();
    const sent = await call("POST", "/messages", { receiver: "superhero2", receiverType: "user", data: { text: "oh shit" } }, { onBehalfOf: "superhero1" });
    expect(sent.data.data.moderation.status).toBe("disapproved");
    const held = page.locator(`tr[data-blocked="${sent.data.id}"]`);
    await held.getByText("oh shit").waitFor();
    await held.getByRole("button", { name: "Approve" }).click();
    await held.waitFor({ state: "detached" });
    const got = await fetch(`${emulator.baseUrl()}/messages/${sent.data.id}`, { headers: { apikey: REST_KEY } }).then((r) => r.json());
    expect(got.data.data.moderation.status).toBe("approved");

    // A user flags it; Disapprove withdraws it and moves it to the reviewed list.
    await call("POST", `/messages/${sent.data.id}/flagged`, { id: "spam", remark: "rude" }, { onBehalfOf: "superhero2" });
    await page.goto(`${emulator.url}/_emulator/ui#/app/${APP_ID}/moderation`);
    const flagged = page.locator(`tr[data-flagged="${sent.data.id}"]`);
    await flagged.getByText("superhero2: Spam / Unwanted Content (rude)").waitFor();
    await flagged.getByRole("button", { name: "Disapprove" }).click();
    await flagged.waitFor({ state: "detached" });
    const reviewed = await fetch(`${emulator.baseUrl()}/moderation/reviewed-messages`, { headers: { apikey: REST_KEY } }).then((r) => r.json());
    expect(reviewed.data.map((m: any) => [m.id, m.status])).toEqual([[sent.data.id, "disapproved"]]);
    expect(problems).toEqual([]);
  });

  it("home: counts, addresses and keys of each app, the latest requests and errors with their codes; one-line header at 1,000 px", async () => {
    await fetch(`${emulator.baseUrl()}/users/nobody-here`, { headers: { apikey: REST_KEY } });
    await page.setViewportSize({ width: 1000, height: 700 });
    await page.goto(`${emulator.url}/_emulator/ui#/`);
    const card = page.locator(`.app-card[data-app="${APP_ID}"]`);
    await card.locator(".counts", { hasText: /^\d+ users? · \d+ groups? · 2 API keys$/ }).waitFor();
    for (const text of [`/${APP_ID}.api-us/v3`, `/${APP_ID}.call-us/v3`, `${APP_ID}.apiclient-us/v3.0`, REST_KEY, "/apimgmt", "chat-emulator-management-key"])
      await card.getByText(text, { exact: false }).first().waitFor();
    const errors = page.locator(".card", { hasText: "Recent errors" });
    await errors.locator("tr", { hasText: "/v3/users/nobody-here" }).getByText("ERR_UID_NOT_FOUND").waitFor();
    const header = await page.locator(".topbar").boundingBox();
    expect(header!.height).toBe(48);
    const tops = await page.locator(".topbar > *").evaluateAll((els) => els.filter((e) => (e as HTMLElement).offsetWidth > 0).map((e) => e.getBoundingClientRect().top));
    expect(Math.max(...tops) - Math.min(...tops)).toBeLessThan(16); // one line
    // The header links the control API's OpenAPI description, which the signed-in browser may read.
    await page.locator('.topbar a[href="/_emulator/openapi.json"]').waitFor();
    expect(await page.evaluate(() => fetch("/_emulator/openapi.json").then(async (r) => [r.status, (await r.json()).openapi]))).toEqual([200, "3.1.0"]);

    await page.click('.sidebar a[href="#/requests"]');
    const row = page.locator("tr[data-request]", { hasText: "/v3/users/nobody-here" }).first();
    await row.locator("td.code").getByText("ERR_UID_NOT_FOUND").waitFor();
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(problems).toEqual([]);
  });
  it("coverage: the operations called first (above the fold) with their statuses and codes, then the areas and those not called", async () => {
    await page.goto(`${emulator.url}/_emulator/ui#/coverage`);
    const area = page.locator("tr", { hasText: "Messages" }).first();
    await area.waitFor();
    // The sends above: one answered 200, one failed by the rule; the inspector's own reads are not counted.
    const send = page.locator('section[aria-label="Called"] tr[data-operation="send-message"]');
    await send.getByText("ERR_OPERATION_FAILED ×1").waitFor();
    await send.getByText("503 ×1").waitFor();
    // Most called first, and within the first screen (800 px high).
    const called = await page.locator('section[aria-label="Called"] tr[data-operation]').evaluateAll((rows) => rows.map((r) => Number(r.children[3].textContent)));
    expect(called.length).toBeGreaterThan(0);
    expect(called).toEqual([...called].sort((a, b) => b - a));
    expect((await send.boundingBox())!.y + (await send.boundingBox())!.height).toBeLessThan(800);
    expect(await page.locator('section[aria-label="Not called"] tr[data-operation="send-message"]').count()).toBe(0);
    await page.selectOption('select[aria-label="Show"]', "missing");
    await page.locator('tr[data-operation="delete-apikey"]').waitFor();
    expect(await page.locator('tr[data-operation="send-message"]').count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it("campaigns: templates, campaigns with their state and analytics, and a user's feed", async () => {
    const B = `${emulator.baseUrl()}/campaigns`;
    const send = async (method: string, path: string, body?: unknown) =>
      (await (await fetch(B + path, { method, headers: { apikey: REST_KEY, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) })).json()).data;
    const t = await send("POST", "/templates", { name: "Welcome", status: "approved", channels: [{ channelType: "in_app", content: { title: "Hi {{name}}" } }], variableSchema: [{ key: "name", default: "there" }] });
    const cam = await send("POST", "/campaigns", { name: "Welcome wave", templateId: t.id, templateVersion: 1 });
    await send("POST", `/campaigns/${cam.id}/recipients`, { userIds: ["superhero4"] });
    await send("POST", `/campaigns/${cam.id}/send`);
    await page.goto(`${emulator.url}/_emulator/ui#/app/${APP_ID}/campaigns`);
    await page.locator("tr", { hasText: "Welcome" }).filter({ hasText: "approved" }).first().waitFor();
    const row = page.locator("tr", { hasText: "Welcome wave" });
    await row.getByText("completed").waitFor();
    await row.click();
    await page.locator(".drawer", { hasText: '"sent": 1' }).waitFor();
    await page.click('.drawer button[aria-label="Close"]');
    await page.fill('input[placeholder="uid"]', "superhero4");
    await page.locator("tr", { hasText: "Hi there" }).waitFor();
    expect(problems).toEqual([]);
  });
});

