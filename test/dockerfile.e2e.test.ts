import dockerignore from "@balena/dockerignore";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, posix } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

/**
 * The Docker image builds, without a Docker daemon: the build context is what `.dockerignore` admits of the
 * checkout (read with @balena/dockerignore, a port of Docker's own matcher); every `COPY` source of the build stage
 * must be in it, and the build stage's steps must succeed on a copy of exactly that context. One step is stood in
 * for: `npm ci` (minutes, and a registry) becomes a link to this checkout's node_modules, which `npm ci` made
 * from the same package-lock.json. `/tmp` of the image becomes a folder of the copy.
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url));

interface Step {
  op: string;
  args: string;
}

/** The Dockerfile's instructions (continuation lines joined, comments dropped), split into stages at FROM. */
function stages(text: string): Step[][] {
  const lines = text.replace(/\\\n/g, " ").split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("#"));
  const out: Step[][] = [];
  for (const line of lines) {
    const [, op, args] = /^(\w+)\s+(.*)$/.exec(line)!;
    if (op.toUpperCase() === "FROM") out.push([]);
    out.at(-1)!.push({ op: op.toUpperCase(), args });
  }
  return out;
}

/** The files of the checkout a fresh clone has (tracked, plus new files not ignored by git), as POSIX paths. */
function checkoutFiles(): string[] {
  return execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], { cwd: ROOT, encoding: "utf8" })
    .split("\0")
    .filter((f) => f && existsSync(join(ROOT, f)));
}

const [build] = stages(readFileSync(join(ROOT, "Dockerfile"), "utf8"));
const copies = build.filter((s) => s.op === "COPY").map((s) => s.args.split(/\s+/));
const matcher = dockerignore({ ignorecase: false }).add(readFileSync(join(ROOT, ".dockerignore"), "utf8"));
const files = checkoutFiles();
const context = files.filter((f) => !matcher.ignores(f));

describe("Dockerfile build stage", () => {
  it("copies only sources that the build context admitted by .dockerignore holds, whole", () => {
    expect(copies.length).toBeGreaterThan(3);
    expect(copies.every((args) => !args.some((a) => a.startsWith("--")))).toBe(true);
    const problems: string[] = [];
    for (const args of copies)
      for (const source of args.slice(0, -1)) {
        const under = files.filter((f) => f === source || f.startsWith(`${source}/`));
        if (under.length === 0) problems.push(`${source}: not in the checkout`);
        for (const f of under) if (matcher.ignores(f)) problems.push(`${f} (COPY ${source}): left out by .dockerignore`);
      }
    expect(problems).toEqual([]);
  });

  it("keeps the context small: nothing but what the build stage copies", () => {
    const copied = copies.flatMap((args) => args.slice(0, -1));
    const stray = context.filter((f) => !copied.some((s) => f === s || f.startsWith(`${s}/`)));
    expect(stray).toEqual([]);
  });

  // No Docker engine runs here: the image is never started. What it would run is checked against the CLI instead.
  it("starts the CLI the package installs, with flags and variables the CLI has, and checks health as the CLI answers it", async () => {
    const [, runtime] = stages(readFileSync(join(ROOT, "Dockerfile"), "utf8"));
    const arg = (op: string) => runtime.find((s) => s.op === op)?.args ?? "";
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    expect(JSON.parse(arg("ENTRYPOINT"))).toEqual([Object.keys(pkg.bin)[0]]);
    const help = execFileSync(process.execPath, [join(ROOT, "bin/chat-emulator.js"), "--help"], { encoding: "utf8" });
    for (const flag of JSON.parse(arg("CMD")).filter((a: string) => a.startsWith("--"))) expect(help).toContain(`${flag} `);
    const env = runtime.filter((s) => s.op === "ENV").map((s) => s.args).join(" ");
    for (const name of env.match(/CHAT_EMULATOR_[A-Z_]+/g) ?? []) expect(help).toContain(name);
    // The health check's script ships in the package, probes the port the image exposes, and the CLI's default.
    const healthcheck = /CMD \["node", "node_modules\/chat-emulator\/(dist\/healthcheck\.js)"\]/.exec(arg("HEALTHCHECK"));
    expect(healthcheck).not.toBeNull();
    expect(existsSync(join(ROOT, healthcheck![1]))).toBe(true);
    expect(arg("EXPOSE")).toBe("4780");
    expect(env).toContain("CHAT_EMULATOR_PORT=4780");
    expect(help).toMatch(/default:\s+4780/);
  });

  const work = mkdtempSync(join(tmpdir(), "chat-emulator-docker-"));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it(
    "runs its steps on a copy of exactly that context",
    () => {
      const ctx = join(work, "context");
      for (const f of context) {
        mkdirSync(dirname(join(ctx, f)), { recursive: true });
        cpSync(join(ROOT, f), join(ctx, f));
      }
      const fakeTmp = join(work, "tmp");
      mkdirSync(fakeTmp);
      let dir = join(work, "image");
      mkdirSync(dir);
      for (const step of build) {
        if (step.op === "WORKDIR") {
          dir = join(work, "image", step.args);
          mkdirSync(dir, { recursive: true });
        } else if (step.op === "COPY") {
          const args = step.args.split(/\s+/);
          const dest = args.at(-1)!;
          for (const source of args.slice(0, -1)) {
            const from = join(ctx, source);
            // Docker: a directory's contents go into the destination; a file into a destination ending in "/".
            const to = statSync(from).isDirectory() || !dest.endsWith("/") ? join(dir, dest) : join(dir, dest, posix.basename(source));
            mkdirSync(statSync(from).isDirectory() ? to : dirname(to), { recursive: true });
            cpSync(from, to, { recursive: true });
          }
        } else if (step.op === "RUN") {
          if (/^npm ci\b/.test(step.args)) {
            symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
            continue;
          }
          const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
          const r = spawnSync("sh", ["-ec", step.args.replace(/(^|[\s=])\/tmp\b/g, `$1${fakeTmp}`)], { cwd: dir, env, encoding: "utf8", timeout: 280_000 });
          expect(r.status, `RUN ${step.args}\n${r.stdout}\n${r.stderr}`).toBe(0);
        }
      }
      // What the second stage copies from this one.
      expect(existsSync(join(fakeTmp, "chat-emulator.tgz"))).toBe(true);
      const listing = execFileSync("tar", ["-tzf", join(fakeTmp, "chat-emulator.tgz")], { encoding: "utf8" });
      for (const f of ["package/bin/chat-emulator.js", "package/dist/cli.cjs", "package/dist/index.js", "package/dist/healthcheck.js", "package/LICENSE"])
        expect(listing).toContain(f);
    },
    300_000,
  );
});
