import { expect } from "vitest";
import { APP_ID, type CallOptions, type TestEmulator } from "./helpers.js";

/** The client plane's path prefix, as the SDK's host override names it. */
export const CLIENT = `/${APP_ID}.apiclient-us/v3.0`;

/** An auth token for `uid`, minted on the REST plane as a backend would. */
export async function tokenOf(e: TestEmulator, uid: string): Promise<string> {
  const r = await e.post(`/v3/users/${uid}/auth_tokens`, {});
  expect(r.status).toBe(200);
  return r.body.data.authToken;
}

/** Client-plane calls with `authToken` (none when null) and no apikey, as the SDK makes them. */
export function clientOf(e: TestEmulator, token: string | null) {
  const opts = (o: CallOptions = {}): CallOptions => ({ ...o, key: null, headers: { appid: APP_ID, ...(token ? { authtoken: token } : {}), ...o.headers } });
  return {
    get: (path: string, o?: CallOptions) => e.get(path.startsWith("http") ? path : CLIENT + path, opts(o)),
    post: (path: string, body?: unknown, o?: CallOptions) => e.post(CLIENT + path, body, opts(o)),
    put: (path: string, body?: unknown, o?: CallOptions) => e.put(CLIENT + path, body, opts(o)),
    del: (path: string, body?: unknown, o?: CallOptions) => e.del(CLIENT + path, body, opts(o)),
    patch: (path: string, body?: unknown, o?: CallOptions) => e.call("PATCH", CLIENT + path, { ...opts(o), body }),
    call: (method: string, path: string, body?: unknown, o?: CallOptions) => e.call(method, CLIENT + path, { ...opts(o), body }),
  };
}

/** A logged-in user of the client plane: `uid`'s token and calls. */
export async function clientAs(e: TestEmulator, uid: string) {
  return clientOf(e, await tokenOf(e, uid));
}
