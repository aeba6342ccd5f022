import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../src/index.js";
import { launchChromium } from "../scripts/chromium.mjs";
import { APP_ID, AUTH_KEY, REST_KEY } from "./helpers.js";

/**
 * The unmodified official SDK (`@cometchat/chat-sdk-javascript`, a dev dependency) in Chromium against the
 * emulator with `--https`: pages of a local origin load the SDK's own bundle and point its host overrides at the
 * emulator, as the README's recipe says. Alice logs in with an auth token, Bob with uid + Auth Key in a second
 * browser context, Carol (not in the group) in a third. Steps in order.
 */

let emu: RunningEmulator;
let site: Server;
let browser: Browser;
const contexts: BrowserContext[] = [];
const problems: string[] = [];
let alice: Page;
let bob: Page;
let carol: Page;

const sdkSource = readFileSync(createRequire(import.meta.url).resolve("@cometchat/chat-sdk-javascript"), "utf8");

async function rest(method: string, path: string, body?: unknown, onBehalfOf?: string) {
  const headers: Record<string, string> = { apikey: REST_KEY, "content-type": "application/json" };
  if (onBehalfOf) headers.onbehalfof = onBehalfOf;
  // In-process (the server's certificate is self-signed): the same app and event stream as the browsers reach.
  const res = await emu.app.request(`http://localhost/v3${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return (await res.json()) as any;
}

/** A page with the SDK initialised against the emulator and listeners that keep every event in `window.events`. */
async function open(): Promise<Page> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  contexts.push(context);
  const page = await context.newPage();
  page.on("pageerror", (e) => problems.push(e.message || JSON.stringify(e)));
  page.setDefaultTimeout(5000);
  await page.goto(`http://127.0.0.1:${(site.address() as AddressInfo).port}/`);
  const host = new URL(emu.url).host;
  await page.evaluate(
    async ({ appId, host }) => {
      const w = window as any;
      const CometChat = w.CometChat;
      w.events = [];
      const keep = (name: string) => (x: any) => w.events.push({ name, x: JSON.parse(JSON.stringify(x)) });
      const settings = new CometChat.AppSettingsBuilder()
        .subscribePresenceForAllUsers()
        .setRegion("us")
        .overrideClientHost(`${host}/${appId}.apiclient-us/v3.0`)
        .overrideAdminHost(`${host}/${appId}.api-us/v3.0`)
        .autoEstablishSocketConnection(true)
        .build();
      await CometChat.init(appId, settings);
      const names = ["onTextMessageReceived", "onMessageEdited", "onMessageDeleted", "onMessageReactionAdded", "onMessagesRead", "onTypingStarted"];
      CometChat.addMessageListener("test", new CometChat.MessageListener(Object.fromEntries(names.map((n) => [n, keep(n)]))));
      CometChat.addUserListener("test", new CometChat.UserListener({ onUserOnline: keep("onUserOnline"), onUserOffline: keep("onUserOffline") }));
    },
    { appId: APP_ID, host },
  );
  return page;
}

/** Resolves once the page's SDK is logged in and its socket authenticated. */
const connected = (page: Page) => page.waitForFunction(() => (window as any).CometChat.getConnectionStatus() === "connected");

/** The first event `name` on `page` whose payload passes `test` (evaluated in the page). */
async function event(page: Page, name: string, test = "true"): Promise<any> {
  try {
    const handle = await page.waitForFunction(
      ({ name, test }) => (window as any).events.find((e: any) => e.name === name && new Function("x", `return ${test}`)(e.x))?.x,
      { name, test },
    );
    return await handle.jsonValue();
  } catch (e) {
    const seen = await page.evaluate(() => (window as any).events.map((e: any) => e.name));
    throw new Error(`no ${name} event (${test}); the page saw ${JSON.stringify(seen)}`, { cause: e });
  }
}

beforeAll(async () => {
  emu = await startEmulator({ https: true, quiet: true });
  const html = `<!doctype html><meta charset="utf-8"><title>SDK test</title><script src="/sdk.js"></script>`;
  site = createServer((req, res) => {
    if (req.url === "/sdk.js") res.writeHead(200, { "content-type": "text/javascript" }).end(sdkSource);
    else res.writeHead(200, { "content-type": "text/html" }).end(html);
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  browser = await launchChromium();
  for (const [uid, name] of [["alice", "Alice"], ["bob", "Bob"], ["carol", "Carol"]]) await rest("POST", "/users", { uid, name });
  await rest("POST", "/groups", { guid: "team", name: "Team", type: "private", owner: "alice", members: { participants: ["bob"] } });
});

afterAll(async () => {
  for (const c of contexts) await c.close();
  await browser?.close();
  await new Promise((resolve) => site?.close(resolve));
  await emu?.close();
});

describe("the official JavaScript SDK against the emulator", () => {
  it("logs in with an auth token and with uid + Auth Key, and chats in real time", async () => {
    alice = await open();
    bob = await open();
    const token = (await rest("POST", "/users/alice/auth_tokens", {})).data.authToken;
    const who = await alice.evaluate((t) => (window as any).CometChat.login(t).then((u: any) => u.getUid()), token);
    expect(who).toBe("alice");
    await bob.evaluate((key) => (window as any).CometChat.login("bob", key), AUTH_KEY);
    await Promise.all([connected(alice), connected(bob)]);

    await alice.evaluate(() => {
      const C = (window as any).CometChat;
      return C.sendMessage(new C.TextMessage("bob", "hello bob", C.RECEIVER_TYPE.USER));
    });
    const got = await event(bob, "onTextMessageReceived", "x.text === 'hello bob'");
    expect(got).toMatchObject({ text: "hello bob", sender: { uid: "alice" }, receiverId: "bob" });

    // A backend's send on the REST plane reaches both sides.
    await rest("POST", "/messages", { receiver: "bob", receiverType: "user", category: "message", type: "text", data: { text: "from the backend" } }, "alice");
    await event(bob, "onTextMessageReceived", "x.text === 'from the backend'");
    await event(alice, "onTextMessageReceived", "x.text === 'from the backend'");
  });

  it("walks two pages back with fetchPrevious, then stops", async () => {
    for (const text of ["one", "two"]) await rest("POST", "/messages", { receiver: "alice", receiverType: "user", category: "message", type: "text", data: { text } }, "bob");
    const pages = await bob.evaluate(async () => {
      const C = (window as any).CometChat;
      const request = new C.MessagesRequestBuilder().setUID("alice").setLimit(2).build();
      const out: string[][] = [];
      for (let i = 0; i < 3; i++) out.push((await request.fetchPrevious()).map((m: any) => m.getText()));
      return out;
    });
    expect(pages).toEqual([["one", "two"], ["hello bob", "from the backend"], []]);
  });

  it("edits, deletes, reacts, reads and types across the two sides", async () => {
    const id = await alice.evaluate(async () => {
      const C = (window as any).CometChat;
      const sent = await C.sendMessage(new C.TextMessage("bob", "to be changed", C.RECEIVER_TYPE.USER));
      const edit = new C.TextMessage("bob", "changed", C.RECEIVER_TYPE.USER);
      edit.setId(sent.getId());
      await C.editMessage(edit);
      return sent.getId();
    });
    expect((await event(bob, "onMessageEdited", `x.id == ${id}`)).text).toBe("changed");
    await bob.evaluate((id) => (window as any).CometChat.addReaction(id, "👍"), id);
    expect(await event(alice, "onMessageReactionAdded")).toMatchObject({ reaction: { reaction: "👍", uid: "bob" } });
    const read = await bob.evaluate(async (id) => {
      const C = (window as any).CometChat;
      const message = await C.getMessageDetails(id);
      await C.markAsRead(message);
      return message.getId();
    }, id);
    expect((await event(alice, "onMessagesRead")).messageId).toBe(String(read));
    await alice.evaluate((id) => (window as any).CometChat.deleteMessage(id), id);
    await event(bob, "onMessageDeleted", `x.id == ${id}`);
    await alice.evaluate(() => {
      const C = (window as any).CometChat;
      C.startTyping(new C.TypingIndicator("bob", C.RECEIVER_TYPE.USER));
    });
    expect(await event(bob, "onTypingStarted")).toMatchObject({ sender: { uid: "alice" }, receiverId: "bob" });
  });

  it("delivers a group message to members, not to outsiders, and tells Alice when Bob logs out", async () => {
    carol = await open();
    const token = (await rest("POST", "/users/carol/auth_tokens", {})).data.authToken;
    await carol.evaluate((t) => (window as any).CometChat.login(t), token);
    await connected(carol);
    await alice.evaluate(() => {
      const C = (window as any).CometChat;
      return C.sendMessage(new C.TextMessage("team", "team only", C.RECEIVER_TYPE.GROUP));
    });
    await event(bob, "onTextMessageReceived", "x.text === 'team only'");
    await carol.waitForTimeout(200);
    expect(await carol.evaluate(() => (window as any).events.filter((e: any) => e.name === "onTextMessageReceived").length)).toBe(0);

    await event(alice, "onUserOnline", "x.uid === 'carol'");
    await bob.evaluate(() => (window as any).CometChat.logout());
    expect(await event(alice, "onUserOffline", "x.uid === 'bob'")).toMatchObject({ uid: "bob", status: "offline" });
    expect((await rest("GET", "/users/bob")).data.status).toBe("offline");
    expect(problems).toEqual([]);
  });

  it("shows who is online and the frames in the inspector's Realtime view", async () => {
    const inspector = await (await browser.newContext({ ignoreHTTPSErrors: true })).newPage();
    contexts.push(inspector.context());
    inspector.setDefaultTimeout(5000);
    await inspector.goto(`${emu.url}/_emulator/ui#/realtime`);
    await inspector.locator('tr[data-session="alice"]').waitFor();
    await inspector.locator('tr[data-session="carol"]').waitFor();
    expect(await inspector.locator('tr[data-session="bob"]').count()).toBe(0);
    await inspector.locator('tr[data-frame="typing_indicator"]').first().click();
    await inspector.locator(".drawer", { hasText: "started" }).waitFor();
  });
});
