import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../src/index.js";
import { launchChromium } from "../scripts/chromium.mjs";
import { APP_ID, MGMT, REST_KEY } from "./helpers.js";

/** The inspector's Extensions view in Chromium: an app's extensions, switched on and off, and what that does. */

let emulator: RunningEmulator;
let browser: Browser;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  emulator = await startEmulator({ quiet: true });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on("pageerror", (e) => problems.push(String(e)));
  page.setDefaultTimeout(5000);
});

afterAll(async () => {
  await browser?.close();
  await emulator?.close();
});

const send = async (text: string) => {
  const res = await fetch(`${emulator.baseUrl()}/messages`, {
    method: "POST",
    headers: { apikey: REST_KEY, onBehalfOf: "superhero1", "content-type": "application/json" },
    body: JSON.stringify({ receiver: "superhero2", receiverType: "user", category: "message", type: "text", data: { text } }),
  });
  return (await res.json()).data;
};

describe("inspector: extensions", () => {
  it("lists the app's extensions and turns one on and off", async () => {
    await page.goto(`${emulator.url}/_emulator/ui#/app/${APP_ID}/extensions`);
    const row = page.locator('tr[data-extension="xss-filter"]');
    const box = row.locator('input[type="checkbox"]');
    await row.waitFor();
    expect(await box.isChecked()).toBe(false);
    await box.click();
    await row.getByText("enabled", { exact: true }).waitFor();
    const listed = await fetch(`${emulator.management.url}/apps/${APP_ID}/extensions?perPage=1000`, { headers: { ...MGMT } });
    expect((await listed.json()).data.find((e: any) => e.id === "xss-filter").isActive).toBe(true);
    expect((await send("<b>hi</b>")).data.metadata["@injected"].extensions["xss-filter"].sanitized_message).toBe("&lt;b&gt;hi&lt;/b&gt;");

    await row.click();
    await page.locator(".drawer", { hasText: APP_ID }).waitFor();
    await page.click('.drawer button[aria-label="Close"]');

    await box.click();
    await row.getByText("disabled", { exact: true }).waitFor();
    expect((await send("<b>hi</b>")).data.metadata).toBeUndefined();
    expect(problems).toEqual([]);
  });
});
