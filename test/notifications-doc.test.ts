import { readFileSync } from "node:fs";
import ts from "typescript";
import { expect, it } from "vitest";
import { startEmulator, type EmulatorOptions } from "../src/index.js";

/**
 * The notifications page's example ("assert that B gets exactly one push") runs as written: its code block is
 * read from the README, its imports are bound to this package and Vitest, and its tests run here (on a free port).
 */

const README = readFileSync(new URL("../docs/notifications.md", import.meta.url), "utf8");
const INTRO = "A complete test — assert that B gets exactly one push:";

function example(): string {
  const after = README.slice(README.indexOf(INTRO) + INTRO.length);
  const block = /^```ts\n([\s\S]*?)^```/m.exec(after);
  if (README.indexOf(INTRO) < 0 || !block) throw new Error("docs/notifications.md lost its notification example");
  const imports = [`import { afterAll, expect, it } from "vitest";`, `import { startEmulator } from "chat-emulator";`];
  for (const line of imports) expect(block[1]).toContain(line);
  const body = imports.reduce((code, line) => code.replace(line, ""), block[1]);
  return ts.transpileModule(body, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext } }).outputText;
}

it("the README's notification example passes", async () => {
  const tests: [string, () => Promise<void>][] = [];
  const cleanups: (() => unknown)[] = [];
  const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;
  const run = new AsyncFunction("startEmulator", "expect", "it", "afterAll", example());
  await run(
    (options: EmulatorOptions = {}) => startEmulator({ quiet: true, port: 0, ...options }),
    expect,
    (name: string, fn: () => Promise<void>) => tests.push([name, fn]),
    (fn: () => unknown) => cleanups.push(fn),
  );
  try {
    expect(tests.map(([name]) => name)).toEqual(["B gets exactly one push when A writes to B"]);
    for (const [, fn] of tests) await fn();
  } finally {
    for (const fn of cleanups) await fn();
  }
});
