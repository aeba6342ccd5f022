import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APP_ID, REST_KEY } from "./helpers.js";
import { connected, SdkSite } from "./sdk-browser.helpers.js";

/**
 * The unmodified SDK in Chromium (see sdk-browser.helpers.ts): its default calling flow between two users, each
 * listener on the side it belongs to, and a MediaMessage with a File (the SDK's multipart send) whose image the
 * receiver's page loads from the emulator's URL.
 */

let site: SdkSite;
let alice: Page;
let bob: Page;

/** A 1×1 PNG. */
const PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/** A page logged in as `uid`, its call and media listeners keeping every event in `window.events`. */
async function loggedIn(uid: string): Promise<Page> {
  const page = await site.open(["onMediaMessageReceived"]);
  const token = (await site.rest("POST", `/users/${uid}/auth_tokens`, {})).data.authToken;
  await page.evaluate(async (token) => {
    const w = window as any;
    const C = w.CometChat;
    const keep = (name: string) => (x: any) => w.events.push({ name, x: JSON.parse(JSON.stringify(x)) });
    const calls = ["onIncomingCallReceived", "onOutgoingCallAccepted", "onOutgoingCallRejected", "onIncomingCallCancelled", "onCallEndedMessageReceived"];
    C.addCallListener("test", new C.CallListener(Object.fromEntries(calls.map((n) => [n, keep(n)]))));
    await C.login(token);
  }, token);
  await connected(page);
  return page;
}

/** The first event `name` on `page` for the call `sessionId`. */
async function callEvent(page: Page, name: string, sessionId: string): Promise<any> {
  const handle = await page.waitForFunction(
    ({ name, sessionId }) => (window as any).events.find((e: any) => e.name === name && e.x.sessionId === sessionId)?.x,
    { name, sessionId },
  );
  return handle.jsonValue();
}

const initiate = (page: Page, type: "audio" | "video") =>
  page.evaluate((type) => {
    const C = (window as any).CometChat;
    return C.initiateCall(new C.Call("bob", type, C.RECEIVER_TYPE.USER)).then((call: any) => call.getSessionId() as string);
  }, type);

beforeAll(async () => {
  site = await SdkSite.start("@cometchat/chat-sdk-javascript");
  for (const [uid, name] of [["alice", "Alice"], ["bob", "Bob"]]) await site.rest("POST", "/users", { uid, name });
  alice = await loggedIn("alice");
  bob = await loggedIn("bob");
});

afterAll(async () => {
  await site?.close();
});

describe("the SDK's default calling flow", () => {
  it("initiate -> incoming on the callee -> accept -> accepted on the caller -> end -> ended on the caller; the calls plane shows it", async () => {
    const sessionId = await initiate(alice, "video");
    const incoming = await callEvent(bob, "onIncomingCallReceived", sessionId);
    expect(incoming).toMatchObject({ sessionId, status: "initiated", type: "video", receiverType: "user" });
    await bob.evaluate((s) => (window as any).CometChat.acceptCall(s), sessionId);
    expect(await callEvent(alice, "onOutgoingCallAccepted", sessionId)).toMatchObject({ sessionId, status: "ongoing" });
    const ended = await bob.evaluate((s) => (window as any).CometChat.endCall(s).then((c: any) => c.getStatus()), sessionId);
    expect(ended).toBe("ended");
    expect(await callEvent(alice, "onCallEndedMessageReceived", sessionId)).toMatchObject({ sessionId, status: "ended" });

    const res = await site.emu.app.request(`http://localhost/${APP_ID}.call-us/v3/calls/${sessionId}`, { headers: { apikey: REST_KEY } });
    expect((await res.json()).data).toMatchObject({ sessionId, status: "ended", initiator: "alice", receiver: "bob", type: "video", totalParticipants: 2 });
  });

  it("reject reaches the caller; the caller's cancel reaches the callee", async () => {
    const rejected = await initiate(alice, "audio");
    await callEvent(bob, "onIncomingCallReceived", rejected);
    await bob.evaluate((s) => {
      const C = (window as any).CometChat;
      return C.rejectCall(s, C.CALL_STATUS.REJECTED);
    }, rejected);
    expect(await callEvent(alice, "onOutgoingCallRejected", rejected)).toMatchObject({ status: "rejected" });

    const cancelled = await initiate(alice, "audio");
    await callEvent(bob, "onIncomingCallReceived", cancelled);
    await alice.evaluate((s) => {
      const C = (window as any).CometChat;
      return C.rejectCall(s, C.CALL_STATUS.CANCELLED);
    }, cancelled);
    expect(await callEvent(bob, "onIncomingCallCancelled", cancelled)).toMatchObject({ status: "cancelled" });
    expect(site.problems).toEqual([]);
  });
});

describe("a MediaMessage with a File", () => {
  it("goes up as multipart, reaches the receiver with its attachment, and the image loads from the emulator's URL", async () => {
    const sent = await alice.evaluate(async (pixel) => {
      const C = (window as any).CometChat;
      const bytes = Uint8Array.from(atob(pixel), (ch) => ch.charCodeAt(0));
      const file = new File([bytes], "pixel.png", { type: "image/png" });
      const m = await C.sendMediaMessage(new C.MediaMessage("bob", file, C.MESSAGE_TYPE.IMAGE, C.RECEIVER_TYPE.USER));
      return { id: m.getId(), url: m.getAttachment()?.getUrl() as string, type: m.getType() };
    }, PIXEL);
    expect(sent.type).toBe("image");
    expect(sent.url).toMatch(/\/media\/[0-9a-f]{32}\.png$/);
    const got = await bob.waitForFunction((id) => (window as any).events.find((e: any) => e.name === "onMediaMessageReceived" && e.x.id === id)?.x, sent.id);
    expect((await got.jsonValue()) as any).toMatchObject({ type: "image", data: { url: sent.url } });
    const width = await bob.evaluate(
      (url) =>
        new Promise<number>((resolve, reject) => {
          const img = new Image();
          img.onload = () => resolve(img.naturalWidth);
          img.onerror = () => reject(new Error(`the image at ${url} did not load`));
          img.src = url;
        }),
      sent.url,
    );
    expect(width).toBe(1);
  });
});
