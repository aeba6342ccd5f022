import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

const SOURCE = fileURLToPath(new URL("./uikit/", import.meta.url));
const ROOT = fileURLToPath(new URL("../", import.meta.url));
const CACHE = join(ROOT, "node_modules", ".cache", "chat-emulator-uikit");

/** Every file under `dir` (but node_modules and dist) into `hash`, names included. */
function hashTree(hash: ReturnType<typeof createHash>, dir: string) {
  for (const name of readdirSync(dir).sort()) {
    if (name === "node_modules" || name === "dist") continue;
    const path = join(dir, name);
    hash.update(name);
    if (statSync(path).isDirectory()) hashTree(hash, path);
    else hash.update(readFileSync(path));
  }
}

/**
 * A page bundled by vite, once per content: the UI kit's test page (test/uikit/) by default, or a vite project such
 * as examples/react-uikit (with its own vite.config.js). The output folder is named after a hash of the sources, the
 * lock file and this file, so a run reuses the last build until one of them changes (a few seconds otherwise).
 */
export async function buildUikitPage(source = SOURCE): Promise<string> {
  const hash = createHash("sha256");
  hashTree(hash, source);
  hash.update(readFileSync(join(ROOT, "package-lock.json"))).update(readFileSync(fileURLToPath(import.meta.url)));
  const out = join(CACHE, hash.digest("hex").slice(0, 16));
  if (existsSync(join(out, "index.html"))) return out;
  const { build } = await import("vite");
  // Built aside and renamed into place, so test files building at once never see half a bundle.
  const temp = `${out}.${process.pid}`;
  const config = join(source, "vite.config.js");
  await build({
    root: source,
    base: "./",
    configFile: existsSync(config) ? config : false,
    logLevel: "warn",
    build: {
      outDir: temp,
      emptyOutDir: true,
      target: "es2022",
      reportCompressedSize: false,
      chunkSizeWarningLimit: 10_000,
      rolldownOptions: { checks: { pluginTimings: false } },
    },
  });
  if (existsSync(join(out, "index.html"))) rmSync(temp, { recursive: true, force: true });
  else renameSync(temp, out);
  return out;
}

const TYPES: Record<string, string> = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml", ".png": "image/png", ".woff2": "font/woff2", ".mp3": "audio/mpeg", ".wav": "audio/wav" };

/** A static server of `dir` on 127.0.0.1 (an ordinary local origin, as a developer's dev server). */
export async function serveDir(dir: string): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url!, "http://x").pathname)).replace(/^(\.\.[/\\])+/, "");
    const file = join(dir, path.endsWith("/") ? `${path}index.html` : path);
    if (!file.startsWith(dir) || !existsSync(file)) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" }).end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
}
