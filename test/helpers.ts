import { createEmulator, type EmulatorOptions } from "../src/index.js";

export const APP_ID = "62c95aeb231ec058";
export const REST_KEY = "1f9f0b22749354cad59f77bcdfe2f768620afeb6";
export const AUTH_KEY = "061e844075e79a243c805c3185aaea9329233aca";
export const MGMT = { key: "chat-emulator-management-key", secret: "chat-emulator-management-secret" };

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

export interface CallOptions {
  body?: unknown;
  /** Sent as the `apikey` header; REST_KEY unless given (null sends none). */
  key?: string | null;
  onBehalfOf?: string;
  headers?: Record<string, string>;
  /** Raw body text (skips JSON encoding). */
  raw?: string;
}

/** A small HTTP client over an emulator's `app.request()` (in-process: no network). */
export function httpClient(app: { request: (url: string, init: RequestInit) => Response | Promise<Response> }) {
  async function call(method: string, path: string, opts: CallOptions = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...opts.headers };
    const key = opts.key === undefined ? REST_KEY : opts.key;
    if (key !== null) headers.apikey = key;
    if (opts.onBehalfOf) headers.onBehalfOf = opts.onBehalfOf;
    let body: string | undefined = opts.raw;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers["content-type"] ??= "application/json";
    }
    const res = await app.request(path.startsWith("http") ? path : `http://localhost${path}`, { method, headers, body });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  }
  return {
    call,
    get: (path: string, opts?: CallOptions) => call("GET", path, opts),
    post: (path: string, body?: unknown, opts?: CallOptions) => call("POST", path, { ...opts, body }),
    put: (path: string, body?: unknown, opts?: CallOptions) => call("PUT", path, { ...opts, body }),
    del: (path: string, body?: unknown, opts?: CallOptions) => call("DELETE", path, { ...opts, body }),
    mgmt: (method: string, path: string, body?: unknown) =>
      call(method, `/apimgmt${path}`, { body, key: null, headers: { ...MGMT } }),
  };
}

/** An in-process emulator with a small HTTP client over `app.request()`. */
export async function emulator(options: EmulatorOptions = {}) {
  const e = await createEmulator({ quiet: true, ...options });
  return { ...e, clock: e.emulator.clock, store: e.emulator.store, ...httpClient(e.app) };
}

export type TestEmulator = Awaited<ReturnType<typeof emulator>>;

/** Asserts the platform's error envelope and returns its `error` object. */
export function expectError(reply: Reply, status: number, code: string) {
  if (reply.status !== status || reply.body?.error?.code !== code)
    throw new Error(`expected ${status} ${code}, got ${reply.status} ${JSON.stringify(reply.body)}`);
  const error = reply.body.error;
  for (const k of ["message", "devMessage", "source", "code"])
    if (typeof error[k] !== "string") throw new Error(`error envelope lacks ${k}: ${JSON.stringify(reply.body)}`);
  return error as { message: string; devMessage: string; source: string; code: string; details?: Record<string, string[]> };
}

/** An interactive form message to `receiver` (elements `name` and `submit`), as `POST /v3/messages` takes it. */
export function surveyForm(receiver: string) {
  return {
    receiver,
    receiverType: "user",
    category: "interactive",
    type: "form",
    data: {
      interactiveData: {
        title: "Survey",
        formFields: [{ elementType: "textInput", elementId: "name", label: "Name" }],
        submitElement: { elementType: "button", elementId: "submit", buttonText: "Submit", action: { actionType: "urlNavigation", url: "https://x.io" } },
      },
      interactionGoal: { type: "allOf", elementIds: ["submit"] },
      allowSenderInteraction: false,
    },
  };
}
