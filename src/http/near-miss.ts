import { apiPath } from "./addressing.js";
import { editDistance as distance } from "../util/edit-distance.js";

/**
 * Near misses of an unknown route: the served operations closest to what was asked (a wrong method on a served
 * path, a path within a couple of typos of one, or a path its plane does not serve but another does). Built once
 * from the mounted routes; consulted only when a request found no route, so the hot path never pays for it.
 */

const PLANES: Record<string, string> = { mgmt: "management", rest: "REST", client: "client", calls: "calls" };
/** Typos tolerated over a whole path (edit distance, summed over its static segments). */
const MAX_TYPOS = 2;

interface Served {
  method: string;
  plane: string;
  /** Segments of the API path; undefined where the route takes a parameter. */
  segments: (string | undefined)[];
  /** The path as people read it: `/v3/users/{uid}`. */
  shown: string;
}

const planeOf = (internal: string) => /^\/@(\w+)/.exec(internal)?.[1];
/** A path's segments after the plane's version (`/v3/users` and the management plane's `/users` compare alike). */
const segmentsOf = (path: string) => path.split("/").filter((s, i) => s !== "" && !(i === 1 && /^v3(\.0)?$/.test(s)));

export class NearMisses {
  readonly #served: Served[] = [];

  /**
   * `routes`: "METHOD /@plane/..." keys of the mounted platform routes (see pipeline.ts `mount`); `serves` leaves
   * out those mounted only to answer not found (the REST routes the SDK does not call on the client plane).
   */
  constructor(routes: Iterable<string>, serves: (method: string, internal: string) => boolean) {
    for (const key of routes) {
      const [method, internal] = key.split(" ");
      const plane = planeOf(internal);
      if (!plane || !PLANES[plane] || method === "ALL" || !serves(method, internal)) continue;
      const path = apiPath(internal.replace(/^\/@(rest|client|calls)\/:appId\/:region/, "/@$1/x/x"));
      const segments = segmentsOf(path).map((s) => (s.startsWith(":") ? undefined : s));
      const shown = (plane === "mgmt" ? "/apimgmt" : "") + path.replace(/:(\w+)/g, "{$1}");
      this.#served.push({ method, plane, segments, shown });
    }
  }

  /** A hint naming the nearest served operations of `method` on the internal path `internal`, if any. */
  hint(method: string, internal: string): string | undefined {
    const plane = planeOf(internal);
    if (!plane || !PLANES[plane]) return undefined;
    const asked = segmentsOf(apiPath(internal.split("?")[0]));
    const exact = this.#served.filter((s) => s.plane === plane && typos(s.segments, asked, 0) === 0);
    if (exact.length > 0) return `Hint: ${exact[0].shown} answers ${[...new Set(exact.map((s) => s.method))].join(", ")}, not ${method}.`;
    const close = this.#served
      .filter((s) => s.plane === plane && s.method === method)
      .map((s) => ({ s, d: typos(s.segments, asked, MAX_TYPOS) }))
      .filter((x) => x.d <= MAX_TYPOS)
      .sort((a, b) => a.d - b.d);
    if (close.length > 0) return `Hint: did you mean ${names(close.filter((x) => x.d === close[0].d).map((x) => x.s))}?`;
    const elsewhere = this.#served.filter((s) => s.plane !== plane && s.method === method && typos(s.segments, asked, 0) === 0);
    if (elsewhere.length > 0)
      return `Hint: ${method} ${elsewhere[0].shown} is served on the ${[...new Set(elsewhere.map((s) => PLANES[s.plane]))].join(" and ")} plane, not the ${PLANES[plane]} plane.`;
    return undefined;
  }
}

const names = (served: Served[]) => served.slice(0, 3).map((s) => `${s.method} ${s.shown}`).join(", ");

/** Typos between a served path and an asked one (segment by segment; a parameter takes any segment), or more than `limit`. */
function typos(served: readonly (string | undefined)[], asked: readonly string[], limit: number): number {
  if (served.length !== asked.length) return limit + 1;
  let total = 0;
  for (let i = 0; i < served.length && total <= limit; i++) {
    const s = served[i];
    if (s !== undefined && s !== asked[i]) total += distance(s, asked[i], limit - total);
  }
  return total;
}

