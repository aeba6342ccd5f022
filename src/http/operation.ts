import { Hono } from "hono";
import type { Ctx, Env } from "./context.js";
import type { Out } from "./pipeline.js";
import { readBody, type Body } from "./validate.js";
import { bodySchema, type JsonSchema, type Schema } from "./schema.js";
import { checkBody } from "./body-check.js";
import { parseQuery, queryNames, type ParsedQuery, type QuerySpec } from "./query-spec.js";
import { declared, isAdvised, NO_ADVICE, queryParams, refuseIfAdvised, type Advice } from "./advice.js";

/**
 * Operations declared where their routes are: the platform's operation id, method, path, plane, body and query
 * schemas, the headers read, and the handler. The declaration is the contract: the body is read and checked (ajv,
 * http/body-check.ts) and the query parsed (http/query-spec.ts) before the handler runs, so a handler gets parsed
 * input and holds behaviour only; request advice and strict mode (an unknown field or parameter, a look-alike
 * header) are worked out from the declaration before anything changes; coverage, the served OpenAPI description
 * and the surface test (the published operations against the declared ones) all read the same list.
 */

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** Where an operation is served: the chat REST API, management, calls, data import, campaigns; or only the SDK's. */
export type OperationPlane = "rest" | "management" | "calls" | "data-import" | "campaigns" | "client";

/** A value the platform reads in a request but ignores there, as its reference documents (request advice). */
export interface Ignored<Q extends QuerySpec> {
  in: "body" | "query";
  name: string;
  /** Whether the value is ignored in this request. */
  when: (c: Ctx, input: Input<Q>) => boolean;
  why: string;
}

export interface Input<Q extends QuerySpec = QuerySpec> {
  body: Body;
  query: ParsedQuery<Q>;
}

export interface Declaration<Q extends QuerySpec = QuerySpec> {
  /** The platform's operation id (the slug its docs and the catalogue use); none for routes only the SDK calls. */
  id?: string;
  method: Method;
  /** Relative to the plane's root, with Hono's `:name` parameters: `/users/:uid`. */
  path: string;
  plane: OperationPlane;
  summary?: string;
  /**
   * The JSON body's fields. `"raw"`: the handler reads the body itself (multipart uploads, CSV files, forms).
   * Absent: the operation takes no body (one sent is ignored, and advised as such).
   */
  body?: Schema | "raw";
  /**
   * A raw body's fields (the handler reads and checks them itself, e.g. a message send that also takes multipart):
   * for request advice and strict mode, which run once the handler has read the body (`rawBodyRead`), and for the
   * served description.
   */
  rawFields?: Schema;
  /** The most bytes the body may have (default 10 KB, the platform's). */
  bodyLimit?: number;
  /**
   * How the body is read when it may come as a form as well as JSON (keyword lists take multipart CSV files): the
   * reader turns it into the fields `body` declares, which are then checked as a JSON body's would be.
   */
  read?: (c: Ctx) => Promise<Body>;
  query?: Q;
  /** The request headers the operation reads beside the plane's credentials (`onBehalfOf`). */
  headers?: readonly string[];
  /** Values the platform reads but ignores in some requests, as documented. */
  ignores?: readonly Ignored<Q>[];
  handler: (c: Ctx, input: Input<Q>) => Out;
}

export interface Operation<Q extends QuerySpec = QuerySpec> extends Declaration<Q> {
  /** The body's JSON Schema (undefined without a JSON body). */
  readonly bodyJson?: JsonSchema;
  /** A raw body's declared fields as JSON Schema, for the served description (not checked by the framework). */
  readonly rawJson?: JsonSchema;
  /** The body fields and query parameters the declaration names, for advice. */
  readonly bodyNames: ReadonlySet<string>;
  readonly queryNames: ReadonlySet<string>;
}

/** Every declared operation, in declaration order: what coverage, the served OpenAPI and the surface test read. */
export const DECLARED: Operation[] = [];

const NO_QUERY = Object.freeze({}) as ParsedQuery<QuerySpec>;
const NO_BODY: Body = Object.freeze({}) as Body;

export function operation<const Q extends QuerySpec = Record<never, never>>(d: Declaration<Q>): Operation<Q> {
  const json = typeof d.body === "object" ? bodySchema(d.body) : undefined;
  const query = (d.query ?? {}) as QuerySpec;
  const op: Operation<Q> = {
    ...d,
    bodyJson: json,
    rawJson: d.body === "raw" && d.rawFields ? bodySchema(d.rawFields) : undefined,
    bodyNames: new Set(Object.keys(typeof d.body === "object" ? d.body : (d.rawFields ?? {}))),
    queryNames: queryNames(query),
  };
  DECLARED.push(op as unknown as Operation);
  return op;
}

/** The operation a request with a raw body is running, for `rawBodyRead`. */
const RUNNING = Symbol("operation");
type Running = Ctx & { [RUNNING]?: Operation<any> };

/**
 * A handler that reads its body itself (`body: "raw"`) hands it over here once read: advice on its fields (against
 * the declaration's `rawFields`), and strict mode's refusal, before the handler changes anything.
 */
export function rawBodyRead(c: Ctx, body: Body): void {
  const op = (c as Running)[RUNNING];
  if (op && isAdvised(c)) {
    declared(c, op, body, NO_ADVICE);
    if (c.get("emulator").control.advice.strict) refuseIfAdvised(c);
  }
}

/** Runs a declared operation: parse and check, advise (strict mode refuses here, before any change), handle. */
function run<Q extends QuerySpec>(op: Operation<Q>, c: Ctx): Out {
  const query = op.query
    ? parseQuery(op.query, c.req.url.includes("?") ? queryParams(c) : undefined, c.get("actor") !== undefined)
    : (NO_QUERY as ParsedQuery<Q>);
  if (op.body === "raw") (c as Running)[RUNNING] = op;
  if (op.body === undefined || op.body === "raw" || c.req.method === "GET") return handle(op, c, { body: NO_BODY, query });
  return (op.read ? op.read(c) : readBody(c, op.bodyLimit)).then((body) => {
    if (op.bodyJson) checkBody(body, op.bodyJson);
    return handle(op, c, { body, query });
  });
}

function handle<Q extends QuerySpec>(op: Operation<Q>, c: Ctx, input: Input<Q>): Out {
  if (isAdvised(c)) {
    declared(c, op, input.body === NO_BODY ? undefined : input.body, op.ignores ? ignoredIn(op, c, input) : NO_ADVICE);
    if (c.get("emulator").control.advice.strict) refuseIfAdvised(c);
  }
  return op.handler(c, input);
}

/** The documented ignored values this request has. */
function ignoredIn<Q extends QuerySpec>(op: Operation<Q>, c: Ctx, input: Input<Q>): Advice[] {
  const out: Advice[] = [];
  for (const i of op.ignores!)
    if (i.when(c, input)) out.push({ code: "ignored-value", in: i.in, name: i.name, message: `\`${i.name}\` is ignored by the platform: ${i.why}` });
  return out;
}

/** A router of declared operations, mounted like any other (http/pipeline.ts `mount`). */
export function routes(...ops: Operation<any>[]): Hono<Env> {
  const router = new Hono<Env>();
  for (const op of ops) router.on(op.method, op.path, (c) => run(op, c));
  return router;
}
