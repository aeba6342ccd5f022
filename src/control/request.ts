import { apiPath, callerPath, DEFAULT_LABEL } from "../http/addressing.js";
import type { Store } from "../store/store.js";

export type Plane = "rest" | "calls" | "client" | "mgmt";
export const PLANES: readonly Plane[] = ["rest", "calls", "client", "mgmt"];

/** What rules, rate limits and the journal know about a platform request. */
export interface ApiRequest {
  method: string;
  /** null for paths outside every plane (they answer ERR_API_NOT_FOUND). */
  plane: Plane | null;
  /** The addressed app (the default app for `/v3/...`), lower case; null on the management plane. */
  appId: string | null;
  /** The path as the caller wrote it relative to the plane: `/v3/users/superhero1`, `/apps`. */
  path: string;
}

const PREFIXES: [string, Plane][] = [
  ["/@rest/", "rest"],
  ["/@calls/", "calls"],
  ["/@client/", "client"],
  ["/@mgmt", "mgmt"],
];

/**
 * Reads plane, app and API path from the internal path that addressing produced (see http/addressing.ts); the
 * path is the one the caller wrote (`url`: `/v3.0/...` stays so), worked out when first read (the journal needs
 * only plane and app; rules and rate limits read the path).
 */
export function describeRequest(internal: string, method: string, store: Store, url: string): ApiRequest {
  for (const [prefix, plane] of PREFIXES) {
    if (!internal.startsWith(prefix)) continue;
    if (plane === "mgmt") return new Described(method, plane, null, internal, url);
    const label = internal.slice(prefix.length, internal.indexOf("/", prefix.length));
    // The app's own id string when it exists: the journal keeps it, and a long-lived string costs it nothing.
    const appId = label === DEFAULT_LABEL ? (store.defaultAppId ?? null) : (store.apps.get(label)?.meta.appId ?? label);
    return new Described(method, plane, appId, internal, url);
  }
  return new Described(method, null, null, internal, url);
}

class Described implements ApiRequest {
  #path: string | undefined;
  constructor(
    readonly method: string,
    readonly plane: Plane | null,
    readonly appId: string | null,
    private readonly internal: string,
    private readonly url: string,
  ) {}
  get path(): string {
    if (this.#path === undefined)
      this.#path = this.plane === null ? this.internal : this.url.includes("/v3.0") ? callerPath(this.url) : apiPath(this.internal);
    return this.#path;
  }
}
