import { readFileSync } from "node:fs";
import type { Server } from "node:http";
import { fileURLToPath } from "node:url";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../scripts/chromium.mjs";
import { startEmulator, type RunningEmulator } from "../src/index.js";
import { APP_ID, AUTH_KEY, REST_KEY } from "./helpers.js";
import { buildUikitPage, serveDir } from "./uikit.helpers.js";

/**
 * The official React UI kit (`@cometchat/chat-uikit-react`, a dev dependency) with its components' default props, in
 * Chromium against the emulator with `--https`, as a frontend team runs it: a page bundled by vite (test/uikit/) on
 * a local origin, the kit's client and admin hosts pointed at the emulator. Each step checks what the user sees, and
 * afterwards that no request of the page failed and nothing was logged as an error. The steps build on each other.
 * UIKIT_SCREENSHOTS=1 writes the docs' screenshots (docs/uikit-*.png) on the way.
 */

let emu: RunningEmulator;
let site: { server: Server; url: string };
let exampleSite: { server: Server; url: string };
let example: Page;
let browser: Browser;
let page: Page;
/** Failed requests and logged errors of the pages since the last step. */
const problems: string[] = [];
const ids: Record<string, number> = {};

// The bundled app without its sample users (whose avatars live on the internet), so the lists hold this file's users.
const seed = JSON.parse(readFileSync(new URL("../fixtures/seed.json", import.meta.url), "utf8"));
seed.apps[0].sampleData = false;

/** A tenth of a second of silence (WAV, 8 kHz, 8 bit). */
const SILENCE = (() => {
  const wav = Buffer.alloc(44 + 800, 0x80);
  wav.write("RIFF", 0);
  wav.writeUInt32LE(36 + 800, 4);
  wav.write("WAVEfmt ", 8);
  wav.set([16, 0, 0, 0, 1, 0, 1, 0], 16);
  wav.writeUInt32LE(8000, 24);
  wav.writeUInt32LE(8000, 28);
  wav.set([1, 0, 8, 0], 32);
  wav.write("data", 36);
  wav.writeUInt32LE(800, 40);
  return wav;
})();

/** A 64×40 PNG of one colour, as a user's picture. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAEAAAAAoCAIAAADBrGu+AAAAPUlEQVR42u3PQQkAAAgEsGtoLxvaxgw+hcEKLNXzWgQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQELhbFAPTxrw9RawAAAABJRU5ErkJggg==",
  "base64",
);

async function rest(method: string, path: string, body?: unknown, onBehalfOf?: string) {
  const headers: Record<string, string> = { apikey: REST_KEY, "content-type": "application/json" };
  if (onBehalfOf) headers.onbehalfof = onBehalfOf;
  const res = await emu.app.request(`http://localhost/v3${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return (await res.json()) as any;
}

async function say(from: string, to: string, text: string, receiverType = "user"): Promise<number> {
  const body = { receiver: to, receiverType, category: "message", type: "text", data: { text } };
  return Number((await rest("POST", "/messages", body, from)).data.id);
}

/** A page in a browser context of its own whose failed requests and logged errors land in `problems`. */
async function watched(width = 960): Promise<Page> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width, height: 640 } });
  // The kit plays its notification sounds from CometChat's CDN; a silent one stands in (the tests run offline).
  await context.route("https://*/uikits/static/audio/*", (route) => route.fulfill({ contentType: "audio/wav", body: SILENCE }));
  const p = await context.newPage();
  // Generous: with two test files at once on two cores, the kit can take seconds to render a list.
  p.setDefaultTimeout(15_000);
  p.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  // A failed request is logged as "Failed to load resource"; it is caught below with its address.
  p.on("console", (m) => m.type() === "error" && !m.text().startsWith("Failed to load resource") && problems.push(`console: ${m.text()}`));
  p.on("response", (r) => r.status() >= 400 && problems.push(`${r.status()} ${r.request().method()} ${r.url()}`));
  p.on("requestfailed", (r) => problems.push(`failed ${r.method()} ${r.url()}: ${r.failure()?.errorText}`));
  return p;
}

/** The test page (test/uikit/main.tsx) with the kit initialised against the emulator and `uid` logged in. */
async function loggedIn(uid: string): Promise<Page> {
  const p = await watched();
  await p.goto(site.url);
  const who = await p.evaluate(([a, k, h, u]) => (window as any).harness.login(a, k, h, u), [APP_ID, AUTH_KEY, new URL(emu.url).host, uid]);
  expect(who).toBe(uid);
  return p;
}

/** Shows one of the page's views (test/uikit/main.tsx). */
const show = (view: Record<string, unknown>, p = page) => p.evaluate((v) => (window as any).harness.show(v), view);

/** With UIKIT_SCREENSHOTS set, docs/uikit-{name}.png of the page or of one element. */
async function shot(name: string, target: Page | Locator = page) {
  if (process.env.UIKIT_SCREENSHOTS) await target.screenshot({ path: `docs/uikit-${name}.png` });
}

beforeAll(async () => {
  const [dir, exampleDir, emulator, chromium] = await Promise.all([
    buildUikitPage(),
    buildUikitPage(fileURLToPath(new URL("../examples/react-uikit/", import.meta.url))),
    startEmulator({ https: true, quiet: true, seed }),
    launchChromium(),
  ]);
  [emu, browser] = [emulator, chromium];
  [site, exampleSite] = await Promise.all([serveDir(dir), serveDir(exampleDir)]);
  for (const [uid, name] of [["alice", "Alice"], ["bob", "Bob"], ["carol", "Carol"]]) await rest("POST", "/users", { uid, name });
  await rest("POST", "/groups", { guid: "team", name: "Team", type: "public", owner: "alice", members: { participants: ["bob", "carol"] } });
  ids.hi = await say("alice", "bob", "Hi Bob, is the release notes draft ready?");
  await rest("POST", `/users/alice/conversation/read`, { messageId: ids.hi }, "bob");
  await rest("POST", `/messages/${ids.hi}/reactions/👍`, {}, "bob");
  await say("bob", "alice", "Almost, sending it after lunch");
  await say("carol", "team", "Standup moves to 10:30 today", "group");
  page = await loggedIn("alice");
}, 60_000);

afterEach(() => {
  expect(problems.splice(0)).toEqual([]);
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => site?.server.close(resolve));
  await new Promise((resolve) => exampleSite?.server.close(resolve));
  await emu?.close();
});

/** The conversation row of `name` in CometChatConversations. */
const row = (name: string) => page.locator(".cometchat-conversations__item", { hasText: name });

describe("the React UI kit with default props against the emulator", () => {
  it("lists conversations with their last message and unread badges, updated in real time", async () => {
    await show({ name: "conversations" });
    await row("Bob").getByText("Almost, sending it after lunch").waitFor();
    await row("Team").getByText("Standup moves to 10:30 today").waitFor();
    expect(await row("Bob").locator(".cometchat-conversations__item-unread-badge").innerText()).toBe("1");
    expect(await row("Team").locator(".cometchat-conversations__item-unread-badge").innerText()).toBe("1");
    // A message Bob's backend sends reaches the list over the WebSocket: new last message, badge 2.
    await say("bob", "alice", "Draft is in the shared folder");
    await row("Bob").getByText("Draft is in the shared folder").waitFor();
    await row("Bob").locator(".cometchat-conversations__item-unread-badge", { hasText: "2" }).waitFor();
    await shot("conversations");
  });

  it("shows the kit's users, groups and a group's members", async () => {
    await show({ name: "users" });
    await page.locator(".cometchat-users").getByText("Carol").waitFor();
    await page.locator(".cometchat-users").getByText("Bob").waitFor();
    await shot("users");
    await show({ name: "groups" });
    await page.locator(".cometchat-groups").getByText("Team").waitFor();
    await page.locator(".cometchat-groups").getByText("3 Members").waitFor();
    await shot("groups");
    await show({ name: "members", guid: "team" });
    const members = page.locator(".cometchat-group-members");
    for (const name of ["Alice", "Bob", "Carol"]) await members.getByText(name, { exact: true }).waitFor();
    await members.getByText("Owner").waitFor();
    await shot("group-members");
  });

  it("opens a one-on-one chat: header, messages with reactions and receipts, composer; the chat is marked read", async () => {
    await show({ name: "chat", uid: "bob" });
    const list = page.locator(".cometchat-message-list");
    await page.locator(".cometchat-message-header").getByText("Bob").waitFor();
    await list.getByText("Draft is in the shared folder").waitFor();
    await list.locator(".cometchat-reactions__chip", { hasText: "1" }).waitFor();
    await page.getByRole("textbox").fill("Thanks, reading it now");
    await page.getByRole("textbox").press("Enter");
    await list.getByText("Thanks, reading it now").waitFor();
    const sent = (await rest("GET", "/users/bob/messages?per_page=1&affix=prepend", undefined, "alice")).data;
    expect(sent.at(-1)).toMatchObject({ sender: "alice", receiver: "bob", data: { text: "Thanks, reading it now" } });
    // Opening the chat marked Bob's messages read.
    await expect.poll(async () => Number((await rest("GET", "/users/bob/conversation", undefined, "alice")).data.unreadMessageCount)).toBe(0);
    await shot("chat");
  });

  it("acts on a message from its menu and bar: reacts, edits, deletes", async () => {
    const list = page.locator(".cometchat-message-list");
    const bubble = list.locator(".cometchat-message-bubble-outgoing", { hasText: "Thanks, reading it now" });
    const id = Number((await rest("GET", "/users/bob/messages?per_page=1&affix=prepend", undefined, "alice")).data.at(-1).id);
    await bubble.hover();
    await page.getByRole("button", { name: "React" }).last().click();
    await page.getByText("😂").first().click();
    await list.locator(".cometchat-reactions__chip", { hasText: "😂" }).waitFor();
    await expect.poll(async () => (await rest("GET", `/messages/${id}/reactions`, undefined, "alice")).data).toMatchObject([{ reaction: "😂", uid: "alice" }]);
    const menu = async (item: string) => {
      await list.locator(".cometchat-message-bubble-outgoing").last().hover();
      await page.getByRole("button", { name: "More options" }).last().click();
      await page.getByText(item, { exact: true }).click();
    };
    await menu("Edit");
    await page.getByRole("textbox").fill("Thanks, reading it this afternoon");
    await page.getByRole("textbox").press("Enter");
    await list.getByText("Edited").waitFor();
    await expect.poll(async () => (await rest("GET", `/messages/${id}`, undefined, "alice")).data.data.text).toBe("Thanks, reading it this afternoon");
    await menu("Delete");
    await page.getByRole("button", { name: "Delete" }).last().click();
    await list.getByText("This message was deleted").waitFor();
    expect((await rest("GET", `/messages/${id}`, undefined, "alice")).data.deletedAt).toBeGreaterThan(0);
  });

  it("shows Bob online and typing in the chat's header", async () => {
    const bob = await loggedIn("bob");
    const header = page.locator(".cometchat-message-header");
    await header.getByText("Online").waitFor();
    await bob.evaluate(() => {
      const C = (window as any).CometChat;
      C.startTyping(new C.TypingIndicator("alice", C.RECEIVER_TYPE.USER));
    });
    await header.getByText("Typing", { exact: false }).waitFor();
    await bob.evaluate(() => {
      const C = (window as any).CometChat;
      C.endTyping(new C.TypingIndicator("alice", C.RECEIVER_TYPE.USER));
    });
    await header.getByText("Online").waitFor();
    await bob.context().close();
    await expect.poll(() => header.locator(".cometchat-message-header__subtitle").innerText()).toMatch(/^(Offline|Last seen\s+just now)$/i);
  });

  it("opens a group chat: header with the member count, messages with senders, composer", async () => {
    await show({ name: "chat", guid: "team" });
    await page.locator(".cometchat-message-header").getByText("3 Members").waitFor();
    const list = page.locator(".cometchat-message-list");
    await list.getByText("Standup moves to 10:30 today").waitFor();
    await list.getByText("Carol").first().waitFor();
    await page.getByRole("textbox").fill("Works for me");
    await page.getByRole("textbox").press("Enter");
    await list.getByText("Works for me").waitFor();
    await shot("group-chat");
  });

  it("shows the thread of a message and sends a reply from its composer", async () => {
    await rest("POST", `/messages/${ids.hi}/thread`, { receiver: "alice", receiverType: "user", category: "message", type: "text", data: { text: "Which version, 2.3 or 2.4?" } }, "bob");
    await show({ name: "thread", messageId: ids.hi });
    await page.getByText("Which version, 2.3 or 2.4?").waitFor();
    await page.locator(".cometchat-thread-header").getByText("Hi Bob, is the release notes draft ready?").waitFor();
    await page.getByRole("textbox").fill("2.4, the one with the new importer");
    await page.getByRole("textbox").press("Enter");
    await page.locator(".cometchat-message-list").getByText("2.4, the one with the new importer").waitFor();
    await expect.poll(async () => (await rest("GET", `/messages/${ids.hi}`, undefined, "alice")).data.replyCount).toBe(2);
    await shot("thread");
  });

  it("uploads an image from the composer (files/upload-url, the upload, the message) and shows it in the chat", async () => {
    await show({ name: "chat", uid: "bob" });
    await page.locator(".cometchat-message-composer__attachment-button").click();
    const chooser = page.waitForEvent("filechooser");
    await page.getByText("Attach Image").click();
    await (await chooser).setFiles({ name: "whiteboard.png", mimeType: "image/png", buffer: PNG });
    // The kit stages the file once its upload is done, then sends on the send button.
    await page.locator(".cometchat-message-composer__tray-tile--success").waitFor();
    await page.locator(".cometchat-message-composer__send-button").click();
    // The picture as the user sees it: loaded from the emulator's URL, its real size.
    const image = page.locator(".cometchat-message-list .cometchat-images-bubble__image").last();
    await image.waitFor();
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(64);
    const src = await image.getAttribute("src");
    expect(src).toMatch(new RegExp(`^${emu.url}/${APP_ID}\\.apiclient-us/v3\\.0/media/[0-9a-f]{32}\\.png$`));
    // Bob reads the same message, with the attachment the kit's upload made.
    const sent = (await rest("GET", "/users/alice/messages?per_page=1&affix=prepend", undefined, "bob")).data.at(-1);
    expect(sent).toMatchObject({ sender: "alice", type: "image", data: { url: src, attachments: [{ name: "whiteboard.png", mimeType: "image/png", size: PNG.length }] } });
    await shot("attachment");
  });

  it("shows a message's receipts in the message information, one-on-one and in a group", async () => {
    await show({ name: "information", messageId: ids.hi });
    const info = page.locator(".cometchat-message-information");
    await info.getByText("Hi Bob, is the release notes draft ready?").waitFor();
    await info.getByText("Read", { exact: true }).waitFor();
    await info.getByText("Delivered", { exact: true }).waitFor();
    // In a group, each member's receipt: Bob read it, Carol got it.
    const id = await say("alice", "team", "Retro notes are up", "group");
    await rest("POST", "/groups/team/conversation/delivered", { messageId: id }, "carol");
    await rest("POST", "/groups/team/conversation/read", { messageId: id }, "bob");
    await show({ name: "information", messageId: id });
    await info.getByText("Retro notes are up").waitFor();
    await info.getByText("Bob").waitFor();
    await info.getByText("Carol").waitFor();
    await shot("message-information", info);
  });

  it("shows who reacted with what", async () => {
    await show({ name: "reactions", messageId: ids.hi });
    const list = page.locator(".cometchat-reaction-list");
    // The kit's list can race its first fetch against its scroll sentinel's fetch (the SDK refuses the second with
    // REQUEST_IN_PROGRESS) and then shows its error state; a user clicks Retry.
    const [bob, retry] = [list.getByText("Bob"), list.getByText("Retry")];
    await bob.or(retry).waitFor();
    if (await retry.isVisible()) await retry.click();
    await bob.waitFor();
    await list.getByText("👍").first().waitFor();
    await shot("reactions", list);
  });

  it("rings for a call Bob starts with the SDK, and Alice declines it", async () => {
    await show({ name: "incoming-call" });
    const bob = await loggedIn("bob");
    const sessionId = await bob.evaluate(async () => {
      const C = (window as any).CometChat;
      return (await C.initiateCall(new C.Call("alice", C.CALL_TYPE.VIDEO, C.RECEIVER_TYPE.USER))).getSessionId();
    });
    const card = page.locator(".cometchat-incoming-call");
    await card.getByText("Bob").waitFor();
    await card.getByText("Incoming Video Call").waitFor();
    await card.getByRole("button", { name: "Accept" }).waitFor();
    await shot("incoming-call", card);
    await card.getByRole("button", { name: "Decline" }).click();
    await card.waitFor({ state: "detached" });
    const calls = await emu.app.request(`http://localhost/${APP_ID}.call-us/v3/calls/${sessionId}`, { headers: { apikey: REST_KEY } });
    expect((await calls.json()).data).toMatchObject({ sessionId, status: "rejected" });
    await bob.context().close();
  });

  it("runs the example app (examples/react-uikit) as built by vite: its conversations", async () => {
    example = await watched(1200);
    await example.goto(`${exampleSite.url}?emulator=${new URL(emu.url).host}&uid=alice`);
    await example.locator(".cometchat-conversations").getByText("Team").waitFor();
    await example.getByText("Signed in as alice. Pick a conversation.").waitFor();
  });

  it("the example app opens the conversation a user clicks", async () => {
    await example.locator(".cometchat-conversations__item", { hasText: "Bob" }).click();
    await example.locator(".cometchat-message-header").getByText("Bob").waitFor();
    await example.locator(".cometchat-message-list").getByText("Draft is in the shared folder").waitFor();
    await example.locator(".cometchat-reactions__chip", { hasText: "1" }).waitFor();
    await shot("example", example);
  });
});

