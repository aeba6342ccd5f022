import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import { WebSocket } from "ws";
import { startEmulator, type RunningEmulator } from "../src/index.js";
import { APP_ID, REST_KEY } from "./helpers.js";

/** A plain WebSocket client of a running emulator, logged in as the SDK does (frame by frame), and its REST calls. */

export interface Client {
  uid: string;
  token: string;
  jwt: string;
  deviceId: string;
  ws: WebSocket;
  frames: any[];
  /** The first frame (already received or coming) that passes `test`. */
  next(test: (f: any) => boolean, timeoutMs?: number): Promise<any>;
  /** Sends on the client plane as this session (its `resource` header). */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  closed: Promise<number>;
}

/** A `message` frame with this text. */
export const text = (t: string) => (f: any) => f.type === "message" && f.body?.data?.text === t;

/** Clients of the emulator at `url()` (read on each call: the server may start after this is set up). */
export function socketClients(url: () => string) {
  const CLIENT = () => `${url()}/${APP_ID}.apiclient-us/v3.0`;
  let devices = 0;

  async function rest(method: string, path: string, body?: unknown, onBehalfOf?: string) {
    const headers: Record<string, string> = { apikey: REST_KEY, "content-type": "application/json" };
    if (onBehalfOf) headers.onbehalfof = onBehalfOf;
    const res = await fetch(`${url()}/v3${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: await res.json() };
  }

  async function connect(uid: string, opts: { presence?: string; roles?: string[] } = {}): Promise<Client> {
    const minted = await rest("POST", `/users/${uid}/auth_tokens`, { force: true });
    const token = minted.body.data.authToken as string;
    const deviceId = `WEB-4_2_0-device${++devices}`;
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${CLIENT()}${path}`, {
        method,
        headers: { appid: APP_ID, authtoken: token, resource: deviceId, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    };
    const me = await api("PUT", "/me", { platform: "WEB", deviceId: `${APP_ID}_${deviceId}` });
    const jwt = me.body.data.jwt as string;
    const ws = new WebSocket(url().replace(/^http/, "ws"));
    const frames: any[] = [];
    const waiters: { test: (f: any) => boolean; resolve: (f: any) => void }[] = [];
    ws.on("message", (data) => {
      const f = JSON.parse(data.toString());
      frames.push(f);
      for (const w of [...waiters]) if (w.test(f)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(f);
      }
    });
    const closed = new Promise<number>((resolve) => ws.on("close", (code) => resolve(code)));
    const next = (test: (f: any) => boolean, timeoutMs = 2000) =>
      new Promise<any>((resolve, reject) => {
        const found = frames.find(test);
        if (found) return resolve(found);
        const timer = setTimeout(() => reject(new Error(`no matching frame for ${uid}; got ${JSON.stringify(frames)}`)), timeoutMs);
        waiters.push({ test, resolve: (f) => (clearTimeout(timer), resolve(f)) });
      });
    await new Promise((resolve) => ws.once("open", resolve));
    ws.send(JSON.stringify({ appId: APP_ID, deviceId, type: "auth", sender: uid, body: { auth: jwt, deviceId, presenceSubscription: opts.presence ?? "ALL_USERS", ...(opts.roles ? { roles: opts.roles } : {}) } }));
    const auth = await next((f) => f.type === "auth");
    expect(auth).toEqual({ appId: APP_ID, type: "auth", sender: uid, deviceId, body: { status: "OK", code: "200" } });
    return { uid, token, jwt, deviceId, ws, frames, next, api, closed };
  }

  /** No frame of this kind arrives within a short while (frames of one event go out together). */
  async function none(c: Client, test: (f: any) => boolean) {
    await new Promise((r) => setTimeout(r, 150));
    expect(c.frames.filter(test)).toEqual([]);
  }

  return { CLIENT, rest, connect, none };
}

/**
 * A real server for a test file: started once, closed at the end, and before each test back to the seed with no
 * socket session left. `url()` is its address; the clients are `socketClients` of it.
 */
export function useSocketServer() {
  let emu: RunningEmulator;
  beforeAll(async () => {
    emu = await startEmulator({ quiet: true });
  });
  afterAll(() => emu.close());
  beforeEach(async () => {
    await fetch(`${emu.url}/_emulator/rules`, { method: "DELETE" });
    await fetch(`${emu.url}/_emulator/sessions`, { method: "DELETE" });
    emu.reset();
  });
  const url = () => emu.url;
  return { url, ...socketClients(url) };
}
