import type { Params, Result, Router } from "hono/router";
import { TrieRouter } from "hono/router/trie-router";

/**
 * Hono's router for this app. The platform planes' routes (internal paths `/@rest/...`, `/@client/...`,
 * `/@calls/...`, `/@mgmt/...`, see addressing.ts) are some four hundred plain paths (static segments and `:name`
 * parameters, one handler per method and path: see pipeline.ts `mount`); they go to a segment tree that walks the
 * path once, by index, with one map lookup per segment. Every other route (the control plane, the inspector) stays
 * with Hono's TrieRouter. Hono's TrieRouter tries every pattern child at each step of a path, which over our route
 * table was the largest single cost of routing a small GET (measured: see the commit).
 *
 * The answer is the TrieRouter's: every matching route, in the order they were added, each with its own
 * parameters; a parameter matches a non-empty segment. Only when no route of the other router can match a plane
 * path (none starts with a parameter or a wildcard) are plane paths left to the tree alone.
 */

interface Route<T> {
  method: string;
  handler: T;
  /** Parameter names by segment index (undefined for static segments). */
  names: (string | undefined)[];
  order: number;
}

/** The matches of one path and the order in which their routes were added. */
interface Found<T> {
  matches: [T, Params][];
  orders: number[];
}

class Segment<T> {
  readonly children = new Map<string, Segment<T>>();
  param: Segment<T> | undefined;
  readonly routes: Route<T>[] = [];
}

const PLANE_PATH = /^\/@(rest|client|calls|mgmt)(\/|$)/;
/** A path the tree takes: static segments and plain `:name` parameters only. */
const PLAIN = /^(\/([^/:*?{}]+|:\w+))*\/?$/;

export class PlaneRouter<T> implements Router<T> {
  readonly name = "PlaneRouter";
  readonly #root = new Segment<T>();
  readonly #other = new TrieRouter<T>();
  /** Whether a route of the other router could match a plane path (then both answer, merged in order). */
  #otherMatchesPlanes = false;
  #added = 0;
  /** Order of the other router's routes, to merge both answers. */
  readonly #otherOrder = new Map<T, number>();

  add(method: string, path: string, handler: T): void {
    const order = ++this.#added;
    if (PLANE_PATH.test(path) && PLAIN.test(path)) return this.#insert(method, path, handler, order);
    if (path.startsWith("/:") || path.startsWith("*") || path.startsWith("/*")) this.#otherMatchesPlanes = true;
    this.#otherOrder.set(handler, order);
    this.#other.add(method, path, handler);
  }

  match(method: string, path: string): Result<T> {
    if (!path.startsWith("/@")) return this.#other.match(method, path);
    const found: Found<T> = { matches: [], orders: [] };
    this.#search(this.#root, path, 1, method, [], found);
    if (this.#otherMatchesPlanes)
      for (const match of (this.#other.match(method, path) as [[T, Params][]])[0]) {
        found.matches.push(match);
        found.orders.push(this.#otherOrder.get(match[0]) ?? 0);
      }
    const { matches, orders } = found;
    if (matches.length < 2) return [matches];
    const order = matches.map((_, i) => i).sort((a, b) => orders[a] - orders[b]);
    return [order.map((i) => matches[i])];
  }

  #insert(method: string, path: string, handler: T, order: number): void {
    let node = this.#root;
    const names: (string | undefined)[] = [];
    for (const part of path.split("/").slice(1)) {
      if (part === "") continue; // a trailing slash
      if (part.startsWith(":")) {
        node = node.param ??= new Segment<T>();
        names.push(part.slice(1));
      } else {
        node = node.children.get(part) ?? node.children.set(part, new Segment<T>()).get(part)!;
        names.push(undefined);
      }
    }
    node.routes.push({ method, handler, names, order });
  }

  /** Walks `path` from `start` (just after a slash), keeping the segments taken as parameters in `values`. */
  #search(node: Segment<T>, path: string, start: number, method: string, values: string[], found: Found<T>): void {
    if (start > path.length) {
      for (const r of node.routes)
        if (r.method === method || r.method === "ALL") {
          found.matches.push([r.handler, paramsOf(r, values)]);
          found.orders.push(r.order);
        }
      return;
    }
    let end = path.indexOf("/", start);
    if (end === -1) end = path.length;
    const part = path.slice(start, end);
    const child = node.children.get(part);
    if (child) {
      values.push(part);
      this.#search(child, path, end + 1, method, values, found);
      values.pop();
    }
    if (node.param && part !== "") {
      values.push(part);
      this.#search(node.param, path, end + 1, method, values, found);
      values.pop();
    }
  }
}

/** A matched route's parameters (the segments `values` holds at the route's parameter positions). */
function paramsOf<T>(route: Route<T>, values: readonly string[]): Params {
  const params: Params = {};
  for (let i = 0; i < route.names.length; i++) {
    const name = route.names[i];
    if (name !== undefined) params[name] = values[i];
  }
  return params;
}
