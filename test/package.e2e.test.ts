import { execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import { APP_ID, REST_KEY } from "./helpers.js";
import { startRegistry } from "./registry.helpers.js";
import { tempDir } from "./tmp.helpers.js";

/**
 * The package as users get it: `npm pack` (its prepare script skips the build: dist is already built by `npm test`,
 * and rebuilding it would pull it from under the other tests), installed into an empty project
 * with the npm cache preferred (offline when the cache has the dependencies, as after `npm ci`), then started the
 * way the README and the Dockerfile start it. No docker engine is needed: the image's start and health-check
 * commands are read from the Dockerfile and run against the same installed tarball the image installs.
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const run = promisify(execFile);

/** The environment for nested npm: without the npm_* variables of the `npm test` around us (they name this project). */
function npmEnv(): NodeJS.ProcessEnv {
  const keep = /^npm_config_(cache|registry|cafile|userconfig|globalconfig|proxy|https_proxy|noproxy|strict_ssl)$/i;
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) || keep.test(k)));
}

let packed: { filename: string; files: { path: string }[] };
let project: string;
/** The checkout's package.json before packing: packing and publishing never change it. */
const checkoutManifest = readFileSync(join(ROOT, "package.json"), "utf8");
const dir = mkdtempSync(join(tmpdir(), "chat-emulator-pack-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(async () => {
  const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", dir], { cwd: ROOT, env: { ...npmEnv(), CHAT_EMULATOR_PREBUILT: "1" } });
  packed = JSON.parse(stdout.slice(stdout.indexOf("["), stdout.lastIndexOf("]") + 1))[0];
  project = join(dir, "project");
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "user-project", private: true, type: "module" }));
  await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", join(dir, packed.filename)], { cwd: project, env: npmEnv() });
}, 120_000);

interface Started {
  url: string;
  output: () => string;
  /** Sends a signal (to the whole process group with `group`) and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Spawns a command that starts the emulator and resolves once its banner names the URL. */
function startCommand(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; group?: boolean }): Promise<Started> {
  const child = spawn(command, args, { ...options, detached: options.group, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const kill = (signal: NodeJS.Signals) => (options.group ? process.kill(-child.pid!, signal) : child.kill(signal));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      kill("SIGKILL");
      reject(new Error(`did not start: ${out}`));
    }, 15_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /listening on (https?:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1], output: () => out, stop: (signal = "SIGTERM") => (kill(signal), exited) });
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}: ${out}`));
    });
  });
}

async function userName(url: string, uid: string): Promise<string> {
  const r = await fetch(`${url}/v3/users/${uid}`, { headers: { apikey: REST_KEY } });
  return (await r.json()).data.name;
}

describe("npm package", () => {
  it("holds the built CLI, the test-runner helpers, the health check, the web inspector and the seed, and no sources or tests", () => {
    const paths = packed.files.map((f) => f.path);
    for (const p of ["package.json", "README.md", "bin/chat-emulator.js", "dist/cli.js", "dist/index.js", "dist/index.d.ts", "dist/healthcheck.js", "dist/test-runners/vitest.js", "dist/test-runners/vitest-setup.js", "dist/ui/index.html", "fixtures/seed.json", "fixtures/sample-data.json", "schemas/seed.schema.json", "schemas/state.schema.json"])
      expect(paths).toContain(p);
    expect(paths.filter((p) => /^(src|ui|scripts|test|examples|bench|\.ci)\//.test(p) || p.endsWith(".test.js"))).toEqual(["scripts/prepare.mjs"]);
    // The CLI's V8 code cache holds for the Node version that made it only: a checkout's build has one, the package none.
    expect(paths).not.toContain("dist/cli.cjs.cache");
  });

  it("has the checkout's package.json, untouched by packing, whose one script that npm runs itself builds only in a checkout", async () => {
    const { stdout } = await run("tar", ["-xOzf", join(dir, packed.filename), "package/package.json"]);
    const manifest = JSON.parse(stdout);
    for (const script of ["preinstall", "install", "postinstall", "prepack", "postpack"]) expect(manifest.scripts?.[script]).toBeUndefined();
    expect(manifest.scripts.prepare).toBe("node scripts/prepare.mjs");
    expect(manifest.bin).toEqual({ "chat-emulator": "bin/chat-emulator.js" });
    expect(manifest.files).toEqual(["bin", "dist", "!dist/cli.cjs.cache", "fixtures", "schemas", "scripts/prepare.mjs"]);
    expect(readFileSync(join(ROOT, "package.json"), "utf8")).toBe(checkoutManifest);
    // Run where npm would (a folder install of the unpacked package): no sources there, so nothing is built.
    const installed = join(project, "node_modules", "chat-emulator");
    const before = readFileSync(join(installed, "dist", "index.js"), "utf8");
    const { stdout: out, stderr } = await run("node", ["scripts/prepare.mjs"], { cwd: installed, env: npmEnv() });
    expect([out, stderr]).toEqual(["", ""]);
    expect(existsSync(join(installed, "src"))).toBe(false);
    expect(readFileSync(join(installed, "dist", "index.js"), "utf8")).toBe(before);
  });

  it("installs from a git checkout (a built clone, as `npm install` there leaves it) and runs with `npx chat-emulator`", async () => {
    const fromCheckout = join(dir, "from-checkout");
    mkdirSync(fromCheckout);
    writeFileSync(join(fromCheckout, "package.json"), JSON.stringify({ name: "user-project-2", private: true, type: "module" }));
    await run("npm", ["install", "--ignore-scripts", "--prefer-offline", "--no-audit", "--no-fund", "-D", ROOT], { cwd: fromCheckout, env: npmEnv() });
    const e = await startCommand("npx", ["chat-emulator", "--port", "0"], { cwd: fromCheckout, env: npmEnv(), group: true });
    expect(await userName(e.url, "superhero3")).toBe("Spiderman");
    await e.stop("SIGTERM");
  });

  // npm passes a TERM to the shell it runs the command in, not to the command: the emulator notices its parent go.
  // (An INT to npm alone reaches nobody: npm leaves it to the terminal, which sends Ctrl-C to the whole group.)
  it("stops with npx: a TERM sent to the npx process alone stops the emulator under it", async () => {
    {
      const e = await startCommand("npx", ["chat-emulator", "--port", "0"], { cwd: project, env: npmEnv() });
      expect(await userName(e.url, "superhero1")).toBe("Iron Man");
      await e.stop("SIGTERM"); // npx alone, not its process group
      await vi.waitFor(
        async () => {
          const answered = await fetch(`${e.url}/_emulator/health`).then(
            () => true,
            () => false,
          );
          expect(answered).toBe(false);
        },
        { timeout: 10_000, interval: 200 },
      );
    }
  });

  it("installs from a registry with `npm install -D chat-emulator`: what `npm publish` uploads, without install scripts", async () => {
    const registry = await startRegistry({ lockFile: join(ROOT, "package-lock.json"), upstream: process.env.npm_config_registry ?? "https://registry.npmjs.org/" });
    onTestFinished(() => registry.close());
    const token = `--${registry.url.replace(/^https?:/, "")}:_authToken=test`;
    await run("npm", ["publish", "--registry", registry.url, token], { cwd: ROOT, env: { ...npmEnv(), CHAT_EMULATOR_PREBUILT: "1" } });
    const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    // What the registry keeps is the checkout's manifest, which publishing left as it was.
    const manifest = registry.published.get("chat-emulator")!.versions[version] as { scripts: Record<string, string> };
    expect(manifest.scripts.prepare).toBe("node scripts/prepare.mjs");
    expect(readFileSync(join(ROOT, "package.json"), "utf8")).toBe(checkoutManifest);

    const fromRegistry = join(dir, "from-registry");
    mkdirSync(fromRegistry);
    writeFileSync(join(fromRegistry, "package.json"), JSON.stringify({ name: "user-project-3", private: true, type: "module" }));
    await run("npm", ["install", "-D", "chat-emulator", "--registry", registry.url, "--prefer-offline", "--no-audit", "--no-fund"], { cwd: fromRegistry, env: npmEnv() });
    expect(JSON.parse(readFileSync(join(fromRegistry, "package.json"), "utf8")).devDependencies).toEqual({ "chat-emulator": `^${version}` });
    const e = await startCommand("npx", ["chat-emulator", "--port", "0"], { cwd: fromRegistry, env: npmEnv(), group: true });
    expect(await userName(e.url, "superhero5")).toBe("Cyclops");
    await e.stop("SIGTERM");
  });

  it("installs into an empty project and runs with `npx chat-emulator` (web inspector included); Ctrl-C stops it", async () => {
    const e = await startCommand("npx", ["chat-emulator", "--port", "0"], { cwd: project, env: npmEnv(), group: true });
    expect(await userName(e.url, "superhero1")).toBe("Iron Man");
    const inspector = await fetch(`${e.url}/_emulator/ui`);
    expect([inspector.status, inspector.headers.get("content-type")]).toEqual([200, "text/html; charset=utf-8"]);
    await e.stop("SIGINT"); // npx and the emulator both get it, as from a terminal; npx may end by the signal itself
    await expect.poll(() => fetch(`${e.url}/_emulator/health`).then(() => "up", () => "down")).toBe("down");
  });

  it("can be imported: startEmulator from chat-emulator, and chat-emulator/vitest", async () => {
    const code = `
      import { startEmulator } from "chat-emulator";
      import { chatEmulator } from "chat-emulator/vitest";
      const e = await startEmulator();
      const r = await fetch(e.baseUrl() + "/users/superhero2", { headers: { apikey: e.defaultApp.restApiKey } });
      console.log((await r.json()).data.name, typeof chatEmulator);
      await e.close();`;
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", code], { cwd: project });
    expect(stdout.trim()).toBe("Captain America function");
  });
});

/** The final stage of the Dockerfile: its instructions, with line continuations joined. */
function finalStage(): { instruction: string; args: string }[] {
  const lines = readFileSync(join(ROOT, "Dockerfile"), "utf8").replace(/\\\n\s*/g, " ").split("\n");
  const all = lines.filter((l) => l.trim() && !l.trim().startsWith("#")).map((l) => {
    const [, instruction, args] = /^\s*(\w+)\s+(.*)$/.exec(l)!;
    return { instruction: instruction.toUpperCase(), args: args.trim() };
  });
  return all.slice(all.map((i) => i.instruction).lastIndexOf("FROM"));
}

describe("Docker image (its commands, run without a docker engine)", () => {
  const stage = finalStage();
  const one = (name: string) => stage.filter((i) => i.instruction === name).at(-1)!.args;
  const workdir = one("WORKDIR");
  /** ENV of the image, with the image's WORKDIR standing for the test project where the same tarball is installed. */
  function imageEnv(): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {};
    for (const i of stage.filter((i) => i.instruction === "ENV"))
      for (const [, k, v] of i.args.matchAll(/(\w+)=(\S+)/g))
        env[k] = v.replaceAll(workdir, project).replaceAll("$PATH", process.env.PATH!).replaceAll(":", delimiter);
    return env;
  }
  const startCommandOfImage = [...JSON.parse(one("ENTRYPOINT")), ...JSON.parse(one("CMD"))] as string[];
  const healthCheck = JSON.parse(one("HEALTHCHECK").replace(/^.*?CMD\s+/, "")) as string[];

  it("is a small Node 24 image that runs as a non-root user on 0.0.0.0, exposing the port it listens on", () => {
    expect(stage[0].args).toMatch(/^node:24-(alpine|slim)/);
    expect(one("USER")).toBe("node");
    expect(startCommandOfImage).toEqual(["chat-emulator", "--host", "0.0.0.0"]);
    // Flags given to `docker run` replace CMD: the host stays 0.0.0.0 through the environment.
    expect(imageEnv().CHAT_EMULATOR_HOST).toBe("0.0.0.0");
    expect(one("EXPOSE")).toBe(imageEnv().CHAT_EMULATOR_PORT);
    expect(JSON.parse(one("VOLUME"))).toEqual(["/data", "/seed"]);
    const ignored = readFileSync(join(ROOT, ".dockerignore"), "utf8");
    for (const copied of ["package.json", "package-lock.json", "src", "bin", "fixtures", "tsconfig.build.json"]) expect(ignored).toContain(`!${copied}`);
  });

  it("starts with the image's command and volumes, passes its health check, and flushes the data volume on docker stop (SIGTERM)", async () => {
    const volumes = tempDir("volumes");
    mkdirSync(join(volumes, "data"));
    mkdirSync(join(volumes, "seed"));
    const seed = JSON.parse(readFileSync(join(ROOT, "fixtures/seed.json"), "utf8"));
    seed.apps[0].users = [{ uid: "from-seed", name: "From the seed volume" }];
    writeFileSync(join(volumes, "seed/seed.json"), JSON.stringify(seed));
    // docker run -e CHAT_EMULATOR_PORT=0 -e CHAT_EMULATOR_SEED=/seed/seed.json -e CHAT_EMULATOR_DATA=/data/state.json
    const env = { ...npmEnv(), ...imageEnv(), CHAT_EMULATOR_PORT: "0", CHAT_EMULATOR_SEED: join(volumes, "seed/seed.json"), CHAT_EMULATOR_DATA: join(volumes, "data/state.json") };
    const [command, ...args] = startCommandOfImage;
    const e = await startCommand(command, args, { cwd: project, env });
    expect(await userName(e.url, "from-seed")).toBe("From the seed volume");
    await fetch(`${e.url}/v3/users`, { method: "POST", headers: { apikey: REST_KEY, "content-type": "application/json" }, body: JSON.stringify({ uid: "kept", name: "Kept" }) });

    const health = (port: string) => run(healthCheck[0], healthCheck.slice(1), { cwd: project, env: { ...env, CHAT_EMULATOR_PORT: port } }).then(() => 0, (err: { code: number }) => err.code);
    const port = new URL(e.url).port;
    expect(await health(port)).toBe(0);
    expect(await e.stop("SIGTERM")).toBe(0);
    expect(await health(port)).toBe(1);
    const state = JSON.parse(readFileSync(join(volumes, "data/state.json"), "utf8"));
    expect(state.apps[0].app.appId).toBe(APP_ID);
    expect(state.apps[0].users.map((u: { uid: string }) => u.uid)).toContain("kept");
  });

  it("passes its health check when serving HTTPS as well", async () => {
    const env = { ...npmEnv(), ...imageEnv(), CHAT_EMULATOR_PORT: "0", CHAT_EMULATOR_HTTPS: "1" };
    const [command, ...args] = startCommandOfImage;
    const e = await startCommand(command, args, { cwd: project, env });
    expect(e.url).toMatch(/^https:/);
    const port = new URL(e.url).port;
    await expect(run(healthCheck[0], healthCheck.slice(1), { cwd: project, env: { ...env, CHAT_EMULATOR_PORT: port } })).resolves.toBeDefined();
    expect(await e.stop()).toBe(0);
  });
});
