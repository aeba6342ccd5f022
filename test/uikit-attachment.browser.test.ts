import type { Server } from "node:http";
import { readFileSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../scripts/chromium.mjs";
import { startEmulator, type RunningEmulator } from "../src/index.js";
import { APP_ID, AUTH_KEY, REST_KEY } from "./helpers.js";
import { buildUikitPage, serveDir } from "./uikit.helpers.js";

/**
 * The React UI kit's composer with its default props (test/uikit/, as uikit.browser.test.ts runs it): an image
 * attached through the kit's own flow (`files/upload-url`, the upload, the message referring to the file) is sent
 * and rendered in the message list from the emulator's URL, with no failed request.
 */

let emu: RunningEmulator;
let site: { server: Server; url: string };
let browser: Browser;
let page: Page;
const problems: string[] = [];
const seed = JSON.parse(readFileSync(new URL("../fixtures/seed.json", import.meta.url), "utf8"));
seed.apps[0].sampleData = false;

async function rest(method: string, path: string, body?: unknown, onBehalfOf?: string) {
  const headers: Record<string, string> = { apikey: REST_KEY, "content-type": "application/json" };
  if (onBehalfOf) headers.onbehalfof = onBehalfOf;
  const res = await emu.app.request(`http://localhost/v3${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return (await res.json()) as any;
}

beforeAll(async () => {
  const [dir, emulator, chromium] = await Promise.all([buildUikitPage(), startEmulator({ https: true, quiet: true, seed }), launchChromium()]);
  [emu, browser] = [emulator, chromium];
  site = await serveDir(dir);
  for (const [uid, name] of [["alice", "Alice"], ["bob", "Bob"]]) await rest("POST", "/users", { uid, name });
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 960, height: 640 } });
  await context.route("https://*/uikits/static/audio/*", (route) => route.fulfill({ contentType: "audio/wav", body: Buffer.alloc(0) }));
  page = await context.newPage();
  page.setDefaultTimeout(8000);
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("response", (r) => r.status() >= 400 && problems.push(`${r.status()} ${r.request().method()} ${r.url()}`));
  page.on("requestfailed", (r) => problems.push(`failed ${r.method()} ${r.url()}: ${r.failure()?.errorText}`));
  await page.goto(site.url);
  await page.evaluate(([a, k, h, u]) => (window as any).harness.login(a, k, h, u), [APP_ID, AUTH_KEY, new URL(emu.url).host, "alice"]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => site?.server.close(resolve));
  await emu?.close();
});

/** A 1×1 PNG. */
const PIXEL = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

describe("the UI kit's composer with an attachment", () => {
  it("uploads an image through files/upload-url, sends it, and the message list renders it from the emulator", async () => {
    await rest("POST", "/messages", { receiver: "alice", receiverType: "user", category: "message", type: "text", data: { text: "Send me the logo?" } }, "bob");
    await page.evaluate((v) => (window as any).harness.show(v), { name: "chat", uid: "bob" });
    await page.getByText("Send me the logo?").waitFor();
    await page.locator(".cometchat-message-composer__attachment-button").first().click();
    const chooser = page.waitForEvent("filechooser");
    await page.getByText("Attach Image").click();
    await (await chooser).setFiles({ name: "logo.png", mimeType: "image/png", buffer: PIXEL });
    // The kit stages the file once its upload is done, then sends on the send button.
    await page.locator(".cometchat-message-composer__tray-tile--success").waitFor();
    await page.locator(".cometchat-message-composer__send-button").click();
    const image = page.locator(".cometchat-images-bubble__image").last();
    await image.waitFor();
    await page.waitForFunction((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0, await image.elementHandle());
    const src = await image.getAttribute("src");
    expect(src).toMatch(new RegExp(`^${emu.url}/${APP_ID}\\.apiclient-us/v3\\.0/media/[0-9a-f]{32}\\.png$`));
    expect(await image.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(1);

    // Bob reads the same message, with the attachment the kit's upload made.
    const list = await rest("GET", "/users/alice/messages", undefined, "bob");
    expect(list.data.find((m: any) => m.type === "image")).toMatchObject({ type: "image", sender: "alice", data: { url: src, attachments: [{ name: "logo.png", mimeType: "image/png", size: PIXEL.length }] } });
    expect(problems).toEqual([]);
  });
});
