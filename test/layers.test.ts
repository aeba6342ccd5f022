import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";

/**
 * Data flows one way (docs/architecture.md): the lower layers import nothing from the layers above them, and the
 * subscribers read records through the views, not through the resources' handlers' modules.
 */
const SRC = new URL("../src/", import.meta.url).pathname;
const files = (dir: string): string[] =>
  readdirSync(join(SRC, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []));
const imports = (file: string) => [...readFileSync(join(SRC, file), "utf8").matchAll(/^import (type )?[^;]*? from "([^"]+)";/gms)].map((m) => ({ type: Boolean(m[1]), from: m[2] }));

const ABOVE = /^(\.\.\/)+(control|realtime|notifications|webhooks|client|resources|bots|delivery|extensions|cli|demo|bridge|test-runners)\//;

it("keeps store, util, http and views below everything that uses them", () => {
  const wrong: string[] = [];
  for (const dir of ["store", "util", "http", "views"])
    for (const file of files(dir))
      for (const i of imports(file)) {
        const container = /^(\.\.\/)+(emulator|app|index|server|cli)\.js$/.test(i.from);
        // The one exception: http/context.ts names the container's type for the request's variables.
        if (ABOVE.test(i.from) || (container && !(file === "http/context.ts" && i.type && i.from === "../emulator.js"))) wrong.push(`${file} imports ${i.from}`);
      }
  expect(wrong).toEqual([]);
});

it("lets webhooks and notifications read records through the views, not the resources", () => {
  const wrong = ["webhooks", "notifications"].flatMap((dir) => files(dir).flatMap((f) => imports(f).filter((i) => i.from.includes("/resources/")).map((i) => `${f} imports ${i.from}`)));
  expect(wrong).toEqual([]);
});
