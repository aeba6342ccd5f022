import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { startEmulator, type RunningEmulator } from "../src/index.js";
import { launchChromium } from "../scripts/chromium.mjs";
import { APP_ID, REST_KEY } from "./helpers.js";

/**
 * The emulator with `--https`, Chromium, and a local origin whose page loads an official SDK's own bundle (`pkg`, a
 * dev dependency) and points its host overrides at the emulator, as docs/frontends.md says; listeners keep every
 * event in `window.events`.
 */
export class SdkSite {
  readonly contexts: BrowserContext[] = [];
  readonly problems: string[] = [];
  private constructor(
    private readonly server: Server,
    readonly browser: Browser,
    readonly emu: RunningEmulator,
  ) {}

  static async start(pkg: string, chromiumArgs: string[] = []): Promise<SdkSite> {
    const emu = await startEmulator({ https: true, quiet: true });
    const source = readFileSync(createRequire(import.meta.url).resolve(pkg), "utf8");
    const html = `<!doctype html><meta charset="utf-8"><title>SDK test</title><script src="/sdk.js"></script>`;
    const server = createServer((req, res) => {
      if (req.url === "/sdk.js") res.writeHead(200, { "content-type": "text/javascript" }).end(source);
      else res.writeHead(200, { "content-type": "text/html" }).end(html);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return new SdkSite(server, await launchChromium(chromiumArgs), emu);
  }

  /** A REST-plane call, in-process (the server's certificate is self-signed): the same app and events the pages reach. */
  async rest(method: string, path: string, body?: unknown, onBehalfOf?: string): Promise<any> {
    const headers: Record<string, string> = { apikey: REST_KEY, "content-type": "application/json" };
    if (onBehalfOf) headers.onbehalfof = onBehalfOf;
    const res = await this.emu.app.request(`http://localhost/v3${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return res.json();
  }

  /** A page of the site (in its own browser context: its own user) with the SDK's bundle loaded. */
  async page(): Promise<Page> {
    const context = await this.browser.newContext({ ignoreHTTPSErrors: true });
    this.contexts.push(context);
    const page = await context.newPage();
    page.on("pageerror", (e) => this.problems.push(e.message || JSON.stringify(e)));
    page.setDefaultTimeout(5000);
    await page.goto(`http://127.0.0.1:${(this.server.address() as AddressInfo).port}/`);
    return page;
  }

  /** A page with the chat SDK initialised against the emulator. */
  async open(messageListeners: string[]): Promise<Page> {
    const page = await this.page();
    const host = new URL(this.emu.url).host;
    await page.evaluate(
      async ({ appId, host, names }) => {
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
        CometChat.addMessageListener("test", new CometChat.MessageListener(Object.fromEntries(names.map((n) => [n, keep(n)]))));
        CometChat.addUserListener("test", new CometChat.UserListener({ onUserOnline: keep("onUserOnline"), onUserOffline: keep("onUserOffline") }));
        CometChat.addGroupListener("test", new CometChat.GroupListener({ onMemberAddedToGroup: keep("onMemberAddedToGroup") }));
      },
      { appId: APP_ID, host, names: messageListeners },
    );
    return page;
  }

  async close(): Promise<void> {
    for (const c of this.contexts) await c.close();
    await this.browser.close();
    await new Promise((resolve) => this.server.close(resolve));
    await this.emu.close();
  }
}

/** Resolves once the page's SDK is logged in and its socket authenticated. */
export const connected = (page: Page) => page.waitForFunction(() => (window as any).CometChat.getConnectionStatus() === "connected");

/** The first event `name` on `page` whose payload passes `test` (evaluated in the page). */
export async function event(page: Page, name: string, test = "true"): Promise<any> {
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
