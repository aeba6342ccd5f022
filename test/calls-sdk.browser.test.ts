import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APP_ID } from "./helpers.js";
import { SdkSite } from "./sdk-browser.helpers.js";

/**
 * The calls SDK (@cometchat/calls-sdk-javascript 4.2.6, unmodified, in Chromium, as its docs use it) against the
 * calls plane, up to the media boundary (docs/calls.md, "Where the emulation stops"): init, call tokens, call logs,
 * call details, and startSession, whose token check passes, whose call screen renders and whose media client then
 * starts joining its conference (XMPP at xmpp.{WEBRTC_HOST}), which the emulator does not serve.
 */

let site: SdkSite;
let page: Page;
let sessionId: string;
let authToken: string;
/** Every URL the page asked for, WebSockets included (said when a step fails). */
const asked: string[] = [];

beforeAll(async () => {
  // A microphone and a camera that Chromium fakes, granted without asking: the SDK's call screen wants them first.
  site = await SdkSite.start("cometchat-calls-sdk-4", ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"]);
  authToken = (await site.rest("POST", "/users/superhero1/auth_tokens", {})).data.authToken;
  // A call between superhero1 and superhero2, answered: what the chat SDK's signalling leaves for the calls SDK.
  const call = await site.emu.app.request(`http://localhost/_emulator/apps/${APP_ID}/calls`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ initiator: "superhero1", receiver: "superhero2", receiverType: "user", status: "ended" }),
  });
  sessionId = ((await call.json()) as any).call.sessionId;
  page = await site.page();
  page.on("request", (r) => asked.push(r.url()));
  page.on("websocket", (ws) => asked.push(ws.url()));
  const host = `${site.emu.url}/${APP_ID}.call-us/v3.0/`;
  await page.evaluate(
    async ({ appId, host }) => {
      const { CometChatCalls } = window as any;
      const settings = new CometChatCalls.CallAppSettingsBuilder().setAppId(appId).setRegion("us").setHost(host).build();
      await CometChatCalls.init(settings);
    },
    { appId: APP_ID, host },
  );
}, 60_000);

afterAll(async () => {
  await site?.close();
});

describe("the calls SDK in Chromium", () => {
  it("generates a call token whose payload startSession accepts", async () => {
    const token = await page.evaluate(({ sessionId, authToken }) => (window as any).CometChatCalls.generateToken(sessionId, authToken), { sessionId, authToken });
    expect(token.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const payload = JSON.parse(Buffer.from(token.token.split(".")[1], "base64url").toString());
    expect(payload.data).toMatchObject({ appId: APP_ID, region: "us", sessionId, user: { uid: "superhero1" } });
  });

  it("lists the user's call logs and reads one call's details as CallLog objects", async () => {
    const got = await page.evaluate(
      async ({ sessionId, authToken }) => {
        const { CometChatCalls } = window as any;
        const request = new CometChatCalls.CallLogRequestBuilder().setLimit(10).setAuthToken(authToken).setCallCategory("call").build();
        const logs = await request.fetchNext();
        const details = await CometChatCalls.getCallDetails(sessionId, authToken);
        return {
          logs: logs.map((l: any) => l.getSessionID()),
          details: details.map((l: any) => ({ sessionId: l.getSessionID(), initiator: l.getInitiator().getUid(), status: l.getStatus() })),
        };
      },
      { sessionId, authToken },
    );
    expect(got.logs).toContain(sessionId);
    expect(got.details).toEqual([{ sessionId, initiator: "superhero1", status: "ended" }]);
  });

  it("startSession verifies its token on the emulator, renders its call screen and hands over to its media client", async () => {
    const errors = await page.evaluate(
      async ({ sessionId, authToken }) => {
        const { CometChatCalls } = window as any;
        const w = window as any;
        w.callErrors = [];
        const { token } = await CometChatCalls.generateToken(sessionId, authToken);
        const element = document.createElement("div");
        element.id = "call-screen";
        element.style.cssText = "width:640px;height:480px";
        document.body.appendChild(element);
        const listener = new CometChatCalls.OngoingCallListener({ onError: (e: any) => w.callErrors.push({ code: e?.code, message: e?.message }) });
        const settings = new CometChatCalls.CallSettingsBuilder().enableDefaultLayout(true).setIsAudioOnlyCall(true).setCallListener(listener).build();
        await CometChatCalls.startSession(token, settings, element);
        return w.callErrors;
      },
      { sessionId, authToken },
    );
    expect(errors).toEqual([]);
    // The token check: GET call_tokens with the callToken header, answered by the emulator.
    const journal = await site.emu.app.request("http://localhost/_emulator/requests/wait?method=GET&path=*call_tokens&timeoutMs=10000");
    const verified = ((await journal.json()) as any).request;
    expect(verified, JSON.stringify(asked)).toMatchObject({ method: "GET", status: 200 });
    // Its call screen is in the element, past the devices (Chromium's fake ones), and its media client is joining
    // the conference (XMPP at xmpp.{WEBRTC_HOST}): the media boundary, where the emulation stops.
    await page.waitForFunction(() => /Joining/.test(document.getElementById("call-screen")?.textContent ?? ""), undefined, { timeout: 15_000 });
    expect(await page.evaluate(() => (window as any).callErrors)).toEqual([]);
  });
});
