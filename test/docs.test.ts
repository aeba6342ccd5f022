import { execFile } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator } from "../src/index.js";
import { BIN } from "./cli.helpers.js";

/**
 * The docs do not rot. For README.md, CHANGELOG.md, CONTRIBUTING.md and every docs/*.md (whatever pages exist):
 * - every relative link names a file that exists, and its `#anchor` a heading of that page (GitHub's anchors);
 * - every fenced code block is one of: marked `<!-- illustrative -->` on the line above its fence; marked
 *   `<!-- tested: test/FILE.test.ts -->` (that test reads the page and runs the block); or a sh/bash block that
 *   this test runs, as written, against a live emulator (the page's blocks in order, on a fresh state per page,
 *   with `http://127.0.0.1:4780` standing for the emulator's address and `chat-emulator` for this checkout's CLI).
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PAGES = [
  ...["README.md", "CHANGELOG.md", "CONTRIBUTING.md"].filter((f) => existsSync(join(ROOT, f))),
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

interface Block {
  line: number;
  lang: string;
  code: string;
  mark: "illustrative" | { tested: string } | undefined;
}

/** The page's fenced code blocks, and its lines outside them (a block's lines, fences included, left empty). */
function parsePage(text: string): { blocks: Block[]; lines: string[] } {
  const lines = text.split("\n");
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^\s*(`{3,}|~{3,})\s*([\w+-]*)/.exec(lines[i]);
    if (!open) continue;
    const above = lines[i - 1]?.trim() ?? "";
    const tested = /^<!--\s*tested:\s*(\S+)\s*-->$/.exec(above);
    const mark = above === "<!-- illustrative -->" ? "illustrative" : tested ? { tested: tested[1] } : undefined;
    const start = i;
    const code: string[] = [];
    for (lines[i++] = ""; i < lines.length && !lines[i].trim().startsWith(open[1]); i++) {
      code.push(lines[i]);
      lines[i] = "";
    }
    if (i < lines.length) lines[i] = "";
    blocks.push({ line: start + 1, lang: open[2].toLowerCase(), code: code.join("\n"), mark });
  }
  return { blocks, lines };
}

const read = (file: string) => parsePage(readFileSync(join(ROOT, file), "utf8"));

/** GitHub's anchors of a page: each heading lower-cased, markup and punctuation dropped, spaces to hyphens, repeats numbered; and `<a id>`s. */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of read(file).lines) {
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) out.add(m[1]);
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const plain = h[1]
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replace(/<[^>]+>/g, "")
      .replace(/[*~`]/g, "");
    const base = plain.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "").replace(/ /g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The page's relative link targets (inline code is no link), with their line numbers. */
function links(file: string): { target: string; line: number }[] {
  const out: { target: string; line: number }[] = [];
  read(file).lines.forEach((raw, i) => {
    const text = raw.replace(/(`+)[^`]*?\1/g, "");
    for (const m of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push({ target: m[1], line: i + 1 });
    for (const m of text.matchAll(/^\s*\[[^\]]+\]:\s+(\S+)/g)) out.push({ target: m[1], line: i + 1 });
    for (const m of text.matchAll(/<(?:img|a)\s[^>]*(?:src|href)="([^"]+)"/g)) out.push({ target: m[1], line: i + 1 });
  });
  return out.filter(({ target }) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe.each(PAGES)("%s", (file) => {
  it("links only to files that exist and to headings those pages have", () => {
    const broken: string[] = [];
    for (const { target, line } of links(file)) {
      const [path, anchor] = target.split("#", 2);
      const dest = path ? resolve(dirname(join(ROOT, file)), decodeURI(path)) : join(ROOT, file);
      if (!existsSync(dest)) {
        broken.push(`${file}:${line} ${target}: no such file`);
        continue;
      }
      if (anchor !== undefined && dest.endsWith(".md") && !anchors(relative(ROOT, dest)).has(anchor))
        broken.push(`${file}:${line} ${target}: no heading with this anchor`);
    }
    expect(broken).toEqual([]);
  });

  it("marks every code block it does not let this test run", () => {
    const unmarked = read(file)
      .blocks.filter((b) => b.mark === undefined && !RUNNABLE.has(b.lang))
      .map((b) => `${file}:${b.line} (\`\`\`${b.lang}): mark it <!-- illustrative --> or run it`);
    expect(unmarked).toEqual([]);
    for (const b of read(file).blocks) {
      if (typeof b.mark !== "object") continue;
      const test = join(ROOT, b.mark.tested);
      expect(existsSync(test), `${file}:${b.line} names ${b.mark.tested}`).toBe(true);
      expect(readFileSync(test, "utf8"), `${b.mark.tested} should read ${file}`).toContain(file.replace(/^docs\//, ""));
    }
  });
});

const RUNNABLE = new Set(["sh", "bash", "shell"]);

it("keeps the README a first-contact page (at most 15 KB) that links the docs index and every docs page", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(15 * 1024);
  const index = readFileSync(join(ROOT, "docs/index.md"), "utf8");
  for (const page of PAGES.filter((p) => p.startsWith("docs/") && p !== "docs/index.md")) {
    expect(index, `docs/index.md should link ${page}`).toContain(`(${page.slice(5)}`);
    expect(readme, `README.md should link ${page}`).toContain(`(${page}`);
  }
});

/** The sh blocks of the pages that have any, run in order against a live emulator (a fresh one per page). */
describe("shell examples", () => {
  let bin: string;
  beforeAll(async () => {
    // `chat-emulator` and `npx chat-emulator` in the examples mean this checkout's (built) CLI.
    bin = mkdtempSync(join(tmpdir(), "chat-emulator-docs-bin-"));
    writeFileSync(join(bin, "chat-emulator"), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(join(bin, "chat-emulator"), 0o755);
  });
  afterAll(() => {
    rmSync(bin, { recursive: true, force: true });
  });

  const pages = PAGES.map((file) => ({ file, blocks: read(file).blocks.filter((b) => !b.mark && RUNNABLE.has(b.lang)) })).filter(
    (p) => p.blocks.length > 0,
  );
  it.each(pages)("$file: its shell blocks succeed against a live emulator", async ({ file, blocks }) => {
    const emulator = await startEmulator({ port: 0, quiet: true });
    const cwd = mkdtempSync(join(tmpdir(), "chat-emulator-docs-"));
    try {
      for (const b of blocks) {
        const script = [
          "set -eu",
          // curl answers with the status it got: an example that meets an error fails here.
          'curl() { command curl --silent --show-error --fail-with-body "$@"; }',
          'npx() { if [ "$1" = chat-emulator ]; then shift; chat-emulator "$@"; else command npx "$@"; fi; }',
          b.code.replace(/(?:http:\/\/)?(?:127\.0\.0\.1|localhost):4780/g, emulator.url),
        ].join("\n");
        const result = await new Promise<{ code: number; out: string }>((done) =>
          execFile("bash", ["-c", script], { cwd, env: { ...process.env, PATH: `${bin}:${process.env.PATH}` }, timeout: 60_000 }, (err, stdout, stderr) =>
            done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
          ),
        );
        expect(result.code, `${file}:${b.line}\n${result.out}`).toBe(0);
      }
    } finally {
      await emulator.close();
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
