import type { Context } from "hono";
import type { Emulator } from "../emulator.js";
import type { AppState } from "../store/app-state.js";
import type { ApiKeyRecord, AuthTokenRecord, UserRecord } from "../store/types.js";

/** What a request carries: the emulator (the container, defined at the top next to app.ts) and what the pipeline found. */
export type Env = {
  Variables: {
    emulator: Emulator;
    /** The app addressed by the request (REST and calls planes). */
    app: AppState;
    apiKey: ApiKeyRecord;
    /** Client plane: the `authToken` owner, who acts as `onBehalfOf` does on the REST plane, and their token. */
    actor: UserRecord;
    authToken: AuthTokenRecord;
    /** Calls plane: the claims of the call token a `callToken` header presented (see callsAuth). */
    callToken: { [claim: string]: unknown; iat: number };
    /** Ids of the rules that applied to the request (set only when some did). */
    appliedRules: string[];
  };
};

export type Ctx = Context<Env>;

/**
 * A request header. Served by Node, it is read straight from the raw request: building the Fetch `Headers` object
 * costs a quarter of a small GET's time. In-process (`app.request()`) it comes from the Fetch request.
 */
export function header(c: Ctx, name: string): string | undefined {
  const incoming = (c.env as { incoming?: { headers: Record<string, string | string[] | undefined> } } | undefined)?.incoming;
  if (!incoming) return c.req.header(name);
  const value = incoming.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(", ") : value;
}
