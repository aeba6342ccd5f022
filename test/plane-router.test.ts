import { TrieRouter } from "hono/router/trie-router";
import { describe, expect, it } from "vitest";
import { PlaneRouter } from "../src/http/plane-router.js";
import { emulator } from "./helpers.js";

/** Every route of the app, as Hono registered it: the route table both routers are given. */
async function routeTable() {
  const { app } = await emulator();
  return app.routes.map((r) => ({ method: r.method, path: r.path, handler: r.handler }));
}

/** Concrete paths for a route: its parameters filled with ordinary and tricky values, and near misses. */
function pathsFor(path: string): string[] {
  const fill = (value: string) => path.replace(/:\w+/g, value);
  return [fill("x1"), fill("pinned"), fill("A%20b"), fill(""), fill("x1") + "/", fill("x1") + "/extra", fill("@")];
}

describe("PlaneRouter", () => {
  it("answers what Hono's TrieRouter answers for every path of the route table (handlers, order and parameters)", async () => {
    const routes = await routeTable();
    expect(routes.length).toBeGreaterThan(400);
    const plane = new PlaneRouter<unknown>();
    const trie = new TrieRouter<unknown>();
    for (const r of routes) {
      plane.add(r.method, r.path, r.handler);
      trie.add(r.method, r.path, r.handler);
    }
    const methods = ["GET", "POST", "PUT", "PATCH", "DELETE"];
    let compared = 0;
    for (const path of new Set(routes.flatMap((r) => pathsFor(r.path)))) {
      for (const method of methods) {
        const [want] = trie.match(method, path) as [[unknown, Record<string, string>][]];
        const [got] = plane.match(method, path) as [[unknown, Record<string, string>][]];
        expect({ method, path, got: got.map(([h, p]) => [routes.findIndex((r) => r.handler === h), { ...p }]) }).toEqual({
          method,
          path,
          got: want.map(([h, p]) => [routes.findIndex((r) => r.handler === h), { ...p }]),
        });
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(5000);
  });

  it("merges routes of the other router that can match plane paths, in the order they were added", () => {
    const router = new PlaneRouter<string>();
    router.add("ALL", "*", "first");
    router.add("GET", "/@rest/:appId/:region/v3/users/:uid", "user");
    router.add("GET", "/@rest/:appId/:region/v3/users/pinned", "pinned");
    router.add("GET", "/:any/*", "last");
    const [matches] = router.match("GET", "/@rest/a/us/v3/users/pinned") as [[string, Record<string, string>][]];
    expect(matches.map(([h]) => h)).toEqual(["first", "user", "pinned", "last"]);
    expect(matches[1][1]).toEqual({ appId: "a", region: "us", uid: "pinned" });
    expect(router.match("POST", "/@rest/a/us/v3/users/x")[0].map(([h]) => h)).toEqual(["first"]);
  });
});
