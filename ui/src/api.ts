/**
 * Calls to the emulator from the page: the control API (signed in by the session cookie), the REST plane with an
 * app's fullAccess key and the management plane with its key and secret. Reads carry `x-emulator-inspector`, so
 * browsing stays out of the journal and rules never touch it; the writes (drive actions) are ordinary API calls.
 */

export interface AppInfo {
  appId: string;
  name: string;
  region: string;
  default: boolean;
  restPath: string;
  callsPath: string;
  apiKeys: { apiKey: string; name: string; scope: "fullAccess" | "authOnly" }[];
}

export interface Directory {
  defaultAppId: string | null;
  management: { path: string; key: string; secret: string };
  apps: AppInfo[];
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, string[]>,
  ) {
    super(message);
  }

  /** One line for the page: status, code, message and the field problems. */
  get line(): string {
    const details = this.details ? " " + Object.values(this.details).flat().join(" ") : "";
    return `${this.status} ${this.code}: ${this.message}${details}`;
  }
}

type Json = Record<string, unknown>;

/** Raised by any call that the control API refuses for want of a session; the page offers to sign in again. */
export const signedOut = new EventTarget();

async function call<T>(path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<T> {
  const method = init.method ?? "GET";
  const headers: Record<string, string> = { ...init.headers };
  if (method === "GET") headers["x-emulator-inspector"] = "1";
  if (init.body !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  } catch (e) {
    throw new ApiError(0, "NETWORK", `The emulator did not answer (${(e as Error).message}).`);
  }
  const text = await res.text();
  let body: Json = {};
  try {
    body = text ? (JSON.parse(text) as Json) : {};
  } catch {
    body = { raw: text };
  }
  if (!res.ok) {
    const error = (body.error ?? {}) as { code?: string; message?: string; details?: Record<string, string[]> };
    const code = error.code ?? "HTTP_" + res.status;
    if (code === "AUTH_ERR_EMPTY_EMULATOR_TOKEN" || code === "AUTH_ERR_INVALID_EMULATOR_TOKEN") signedOut.dispatchEvent(new Event("signedout"));
    throw new ApiError(res.status, code, error.message ?? res.statusText, error.details);
  }
  return body as T;
}

/** The control API (`/_emulator/...`). */
export const control = {
  get: <T = Json>(path: string) => call<T>(`/_emulator${path}`),
  send: <T = Json>(method: string, path: string, body?: unknown) => call<T>(`/_emulator${path}`, { method, body }),
};

function fullKey(app: AppInfo): string {
  return app.apiKeys.find((k) => k.scope === "fullAccess")?.apiKey ?? "";
}

export interface Page<T> {
  data: T[];
  meta?: { pagination?: { total: number; count: number; per_page: number; current_page: number; total_pages: number } };
}

/** The REST plane of one app, with its fullAccess key; `onBehalfOf` acts as that user. */
export function rest(app: AppInfo) {
  const headers = (onBehalfOf?: string): Record<string, string> => ({
    apikey: fullKey(app),
    ...(onBehalfOf ? { onBehalfOf } : {}),
  });
  return {
    get: <T = Json>(path: string) => call<T>(app.restPath + path, { headers: headers() }),
    list: <T = Json>(path: string) => call<Page<T>>(app.restPath + path, { headers: headers() }),
    send: <T = Json>(method: string, path: string, body?: unknown, onBehalfOf?: string) =>
      call<T>(app.restPath + path, { method, headers: headers(onBehalfOf), body }),
  };
}

/** The management plane (`/apimgmt`): webhooks, extensions. */
export function management(dir: Directory, version?: 2) {
  const headers: Record<string, string> = { key: dir.management.key, secret: dir.management.secret };
  if (version) headers["x-webhook-version"] = String(version);
  return {
    list: <T = Json>(path: string) => call<Page<T>>(dir.management.path + path, { headers }),
    send: <T = Json>(method: string, path: string, body?: unknown) => call<T>(dir.management.path + path, { method, headers, body }),
  };
}

export const qs = (params: Record<string, string | number | boolean | undefined>): string => {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") s.set(k, String(v));
  const text = s.toString();
  return text ? "?" + text : "";
};
