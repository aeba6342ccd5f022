import { OPERATIONS as CHAT_OPERATIONS, type Operation } from "../http/operations.js";
import { CAMPAIGN_OPERATIONS } from "../resources/campaigns/service/routes.js";
import { DATA_IMPORT_OPERATIONS } from "../resources/data-import/routes.js";
import { CALLS_OPERATIONS } from "../resources/calls/routes.js";
import type { Operation as Declared } from "../http/operation.js";
import type { Plane } from "./request.js";

/**
 * Coverage of a test run: how often each documented operation (http/operations.ts, from the reference catalogue, and
 * the campaigns service's) was called, per app, with the statuses and error codes it answered. Routes are matched to
 * operations once, when they are mounted (`operationsOf`); a request then costs a few increments into counters made
 * when its app was first seen. Reset between tests leaves it alone (a run spans many tests); `clear` empties it.
 */

/** A declared operation as coverage lists it: its published id, and its path under `base`. */
const documented = (area: string, base = "") => (op: Pick<Declared, "id" | "method" | "path">): Operation => ({
  slug: op.id!,
  method: op.method,
  path: `${base}${op.path.replace(/:(\w+)/g, "{$1}")}`,
  area,
});

/**
 * The chat REST API's operations, then those of the APIs beside it, from their declarations: the campaigns service
 * (50, under `/campaigns` of the REST plane's `/v3`), data import (4, on the REST plane) and the calls API (3, on the
 * calls plane), by their published operationIds. The management API's operations name no app, and coverage counts
 * per app: they are not counted.
 */
const OPERATIONS: readonly Operation[] = [
  ...CHAT_OPERATIONS,
  ...CAMPAIGN_OPERATIONS.map(documented("Campaigns", "/campaigns")),
  ...DATA_IMPORT_OPERATIONS.map(documented("Data Import")),
  ...CALLS_OPERATIONS.filter((op) => op.id).map(documented("Calls")),
];
/** Where each operation is served: the calls API's on the calls plane, every other on the REST plane. */
const planeOf = (i: number) => (OPERATIONS[i].area === "Calls" ? "calls" : "rest");

/** A documented operation's path or a route's path with its parameters unnamed: `/users/{}/messages`. */
const shape = (method: string, path: string) => `${method} ${path.replace(/\{[^}]*\}/g, "{}")}`;

/** Operations by method and path shape. A list: two slugs share `PATCH /moderation/blocked-messages/{}`. */
const BY_SHAPE = new Map<string, number[]>();
OPERATIONS.forEach((op, i) => {
  const key = `${planeOf(i)} ${shape(op.method, op.path)}`;
  BY_SHAPE.set(key, [...(BY_SHAPE.get(key) ?? []), i]);
});

/**
 * Routes of the client plane's own whose REST twin has another path (the SDK's paths, client/routes.ts and
 * client/push.ts): a call counts under the twin's slug. Client routes on the REST paths need no entry.
 */
const CLIENT_TWINS: Record<string, string> = {
  "GET /blockedusers": "GET /users/{}/blockedusers",
  "POST /blockedusers": "POST /users/{}/blockedusers",
  "DELETE /blockedusers": "DELETE /users/{}/blockedusers",
  "PUT /groups/{}/members": "POST /groups/{}/members",
  "PUT /groups/{}/promote": "PUT /groups/{}/members/{}",
  "DELETE /groups/{}/demote": "PUT /groups/{}/members/{}",
  "PATCH /groups/{}/owner": "PUT /groups/{}",
  "GET /users/{}/threads": "GET /threads",
  "GET /groups/{}/threads": "GET /threads",
  "GET /notifications/push/v1/preferences": "GET /notifications/v1/preferences",
  "PATCH /notifications/push/v1/preferences": "PATCH /notifications/v1/preferences",
  "DELETE /notifications/push/v1/preferences": "DELETE /notifications/v1/preferences",
  "GET /notifications/push/v1/preferences/mute": "GET /notifications/v1/preferences/mute",
  "PUT /notifications/push/v1/preferences/mute": "PUT /notifications/v1/preferences/mute",
  "DELETE /notifications/push/v1/preferences/mute": "DELETE /notifications/v1/preferences/mute",
};

const PLANE_ROUTE = /^\/@(rest|client|calls)\/:appId\/:region\/v3(?=\/|$)/;

/**
 * The operations a mounted route serves, from its method and internal path (`/@rest/:appId/:region/v3/users/:uid`);
 * undefined for routes of no documented operation (the management plane, emulator extras).
 */
export function operationsOf(method: string, routePath: string): readonly number[] | undefined {
  const plane = PLANE_ROUTE.exec(routePath);
  if (!plane) return undefined;
  const key = shape(method, routePath.slice(plane[0].length).replace(/:\w+(\{[^}]*\})?/g, "{}") || "/");
  if (plane[1] === "calls") return BY_SHAPE.get(`calls ${key}`);
  return BY_SHAPE.get(`rest ${(plane[1] === "client" && CLIENT_TWINS[key]) || key}`);
}

/**
 * One app's counts, by operation index: calls and client-plane calls in arrays made once, when the app's first
 * documented call arrives; the statuses and codes of an operation in maps made at its first call (an app per test
 * file must not cost hundreds of empty maps).
 */
class AppCounts {
  readonly calls = new Float64Array(OPERATIONS.length);
  readonly client = new Float64Array(OPERATIONS.length);
  readonly statuses: (Map<number, number> | undefined)[] = new Array(OPERATIONS.length);
  readonly codes: (Map<string, number> | undefined)[] = new Array(OPERATIONS.length);
}

const bump = <K>(m: Map<K, number>, k: K) => m.set(k, (m.get(k) ?? 0) + 1);
const add = <K>(into: Record<string, number>, from: Map<K, number> | undefined, name: (k: K) => string) => {
  if (from) for (const [k, n] of from) into[name(k)] = (into[name(k)] ?? 0) + n;
};
/** Status 0 stands for a connection a rule reset (no answer at all). */
const statusName = (s: number) => (s === 0 ? "reset" : String(s));

export interface OperationCoverage extends Operation {
  calls: number;
  /** Calls by plane: the client plane's count under the REST twin's slug. */
  plane: { rest: number; client: number };
  /** Answers by HTTP status; "reset" for connections a rule closed. */
  statuses: Record<string, number>;
  /** Error codes answered, with how often. */
  codes: Record<string, number>;
}

export interface AreaCoverage {
  area: string;
  documented: number;
  covered: number;
}

export interface CoverageReport {
  /** The app reported on; null for all apps together. */
  appId: string | null;
  documented: number;
  covered: number;
  calls: number;
  areas: AreaCoverage[];
  operations: OperationCoverage[];
}

export class Coverage {
  private readonly apps = new Map<string, AppCounts>();

  /** Counts one answered call (`status` null: the connection was reset) of `ops` on `appId`. */
  record(appId: string, ops: readonly number[], plane: Plane | null, status: number | null, code: string | undefined): void {
    let counts = this.apps.get(appId);
    if (counts === undefined) this.apps.set(appId, (counts = new AppCounts()));
    for (const i of ops) {
      counts.calls[i]++;
      if (plane === "client") counts.client[i]++;
      bump((counts.statuses[i] ??= new Map()), status ?? 0);
      if (code !== undefined) bump((counts.codes[i] ??= new Map()), code);
    }
  }

  has(appId: string): boolean {
    return this.apps.has(appId);
  }

  clear(): void {
    this.apps.clear();
  }

  /** Every documented operation with its counts, for one app or summed over all. */
  report(appId?: string): CoverageReport {
    const one = appId === undefined ? undefined : this.apps.get(appId);
    const sources = appId === undefined ? [...this.apps.values()] : one ? [one] : [];
    const operations = OPERATIONS.map((op, i): OperationCoverage => {
      const row: OperationCoverage = { ...op, calls: 0, plane: { rest: 0, client: 0 }, statuses: {}, codes: {} };
      for (const counts of sources) {
        row.calls += counts.calls[i];
        row.plane.client += counts.client[i];
        add(row.statuses, counts.statuses[i], statusName);
        add(row.codes, counts.codes[i], String);
      }
      row.plane.rest = row.calls - row.plane.client;
      return row;
    });
    const areas = new Map<string, AreaCoverage>();
    for (const op of operations) {
      const a = areas.get(op.area) ?? areas.set(op.area, { area: op.area, documented: 0, covered: 0 }).get(op.area)!;
      a.documented++;
      if (op.calls > 0) a.covered++;
    }
    return {
      appId: appId ?? null,
      documented: operations.length,
      covered: operations.filter((o) => o.calls > 0).length,
      calls: operations.reduce((n, o) => n + o.calls, 0),
      areas: [...areas.values()],
      operations,
    };
  }
}
