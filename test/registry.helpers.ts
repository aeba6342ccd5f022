import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A registry on localhost for the package test: it takes what `npm publish` uploads and serves it back to
 * `npm install`. Other packages are answered from a lock file, with their tarballs at `upstream`: npm takes a
 * tarball whose integrity it knows from its cache, so the dependencies install offline once they are cached,
 * as with the real registry.
 */

interface Packument {
  name: string;
  "dist-tags": Record<string, string>;
  versions: Record<string, Record<string, unknown>>;
}

/** Fields of a lock file entry that a version's manifest carries too. */
const MANIFEST_FIELDS = ["dependencies", "optionalDependencies", "peerDependencies", "peerDependenciesMeta", "engines", "bin", "os", "cpu"];

function lockedPackuments(lockFile: string, upstream: string): Map<string, Packument> {
  const lock = JSON.parse(readFileSync(lockFile, "utf8")) as { packages: Record<string, Record<string, unknown>> };
  const out = new Map<string, Packument>();
  for (const [path, entry] of Object.entries(lock.packages)) {
    const name = /^node_modules\/((?:@[^/]+\/)?[^/]+)$/.exec(path)?.[1];
    if (!name || typeof entry.integrity !== "string") continue;
    const version = entry.version as string;
    const manifest: Record<string, unknown> = { name, version };
    for (const field of MANIFEST_FIELDS) if (entry[field] !== undefined) manifest[field] = entry[field];
    manifest.dist = { integrity: entry.integrity, tarball: `${upstream}${name}/-/${name.split("/").pop()}-${version}.tgz` };
    out.set(name, { name, "dist-tags": { latest: version }, versions: { [version]: manifest } });
  }
  return out;
}

export interface LocalRegistry {
  url: string;
  /** What was published, by package name. */
  published: Map<string, Packument>;
  close(): Promise<void>;
}

export async function startRegistry(opts: { lockFile: string; upstream: string }): Promise<LocalRegistry> {
  const locked = lockedPackuments(opts.lockFile, opts.upstream);
  const published = new Map<string, Packument>();
  const tarballs = new Map<string, Buffer>();

  const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  async function handle(req: IncomingMessage, res: ServerResponse) {
    const path = decodeURIComponent(new URL(req.url!, "http://registry").pathname).slice(1);
    if (req.method === "PUT") {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const doc = JSON.parse(Buffer.concat(chunks).toString()) as Packument & { _attachments: Record<string, { data: string }> };
      for (const [file, { data }] of Object.entries(doc._attachments)) tarballs.set(`${doc.name}/-/${file}`, Buffer.from(data, "base64"));
      published.set(doc.name, { name: doc.name, "dist-tags": doc["dist-tags"], versions: doc.versions });
      return json(res, 201, { ok: true });
    }
    const tarball = tarballs.get(path);
    if (tarball) return res.writeHead(200, { "content-type": "application/octet-stream" }).end(tarball);
    const packument = published.get(path) ?? locked.get(path);
    if (packument) return json(res, 200, packument);
    json(res, 404, { error: "not found" });
  }

  const server = createServer((req, res) => void handle(req, res).catch((e: Error) => json(res, 500, { error: e.message })));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    published,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
