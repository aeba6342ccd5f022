import { randomBytes } from "node:crypto";
import { createReadStream, createWriteStream, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";

/**
 * The bytes of uploaded attachments. With a `--data` file they live on disk in the folder next to it named after
 * it (`<data>.files/<appId>/<key>`, a `<key>.json` beside each with its name and type), so a restart serves them
 * again; without one, in memory, at most `MEMORY_LIMIT` bytes in all. A file is found by its key, which is random
 * and unguessable (as the platform's media URLs are public to whoever has them); state resets, snapshots and
 * exports leave files alone: messages refer to them by URL.
 */

/** The largest file the platform takes (the SDK's `file.size.max` default, which the settings announce). */
export const FILE_SIZE_MAX = 100 * 1024 * 1024;
/** The most attachments one message or one `files/upload-url` request carries (`file.count.max`). */
export const FILE_COUNT_MAX = 10;
/** Without a data file, what all kept files may add up to before uploads are refused. */
export const MEMORY_LIMIT = 1024 * 1024 * 1024;

export interface StoredFile {
  appId: string;
  key: string;
  name: string;
  mimeType: string;
  size: number;
  uploader: string;
  createdAt: number;
}

/** Why a file was not kept: it outgrew `limit`, or memory is full. */
export class FileTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`file larger than ${limit} bytes`);
  }
}

export class FileStoreFull extends Error {}

/** A key for a new file: random, with the name's extension kept for tools that look at URLs. */
function newKey(name: string): string {
  const ext = extensionOf(name);
  return randomBytes(16).toString("hex") + (ext ? `.${ext}` : "");
}

/** `photo.PNG` -> `png`; letters and digits only (a key is a path segment). */
export function extensionOf(name: string): string {
  const m = /\.([A-Za-z0-9]{1,10})$/.exec(name);
  return m ? m[1].toLowerCase() : "";
}

/** How long an upload URL of `files/upload-url` stays good (the SDK's PRESIGN_TTL_MS). */
export const UPLOAD_TTL_SECONDS = 900;
/** Upload URLs kept at once: past it the oldest are forgotten (they expire anyway). */
const MAX_TICKETS = 10_000;

/** An upload URL handed out by `files/upload-url`: the file it will hold, once. */
export interface UploadTicket {
  appId: string;
  key: string;
  name: string;
  mimeType: string;
  uploader: string;
  expiresAt: number;
  /** The size declared for it: a larger upload is refused (the attachment already says this size). */
  size: number;
}

export class FileStore {
  private readonly files = new Map<string, StoredFile & { bytes?: Buffer }>();
  private memoryUsed = 0;
  /** Insertion order is expiry order (one TTL for all). */
  private readonly tickets = new Map<string, UploadTicket>();

  /** `dir`: the folder next to the data file, made on the first upload; undefined keeps files in memory. */
  constructor(readonly dir?: string) {}

  /** An upload URL's id for a file to come, whose key (and so its URL) is fixed now. */
  issueTicket(t: Omit<UploadTicket, "key">, now: number): { id: string; ticket: UploadTicket } {
    for (const [id, old] of this.tickets) {
      if (old.expiresAt > now && this.tickets.size < MAX_TICKETS) break;
      this.tickets.delete(id);
    }
    const id = randomBytes(16).toString("hex");
    const ticket = { ...t, key: newKey(t.name) };
    this.tickets.set(id, ticket);
    return { id, ticket };
  }

  /** The live ticket `id` of `appId`; `use` ends it (an upload URL takes one upload). */
  ticket(appId: string, id: string, now: number, use = false): UploadTicket | undefined {
    const t = this.tickets.get(id);
    if (!t || t.appId !== appId || t.expiresAt <= now) return undefined;
    if (use) this.tickets.delete(id);
    return t;
  }

  /**
   * Keeps the bytes of `source` as a file, refusing past `limit` (FileTooLarge, nothing kept). `key` is a
   * reserved one, or a new key is made.
   */
  async save(meta: Omit<StoredFile, "key" | "size"> & { key?: string }, source: Readable, limit = FILE_SIZE_MAX): Promise<StoredFile> {
    const key = meta.key ?? newKey(meta.name);
    const file: StoredFile = { appId: meta.appId, key, name: meta.name, mimeType: meta.mimeType, size: 0, uploader: meta.uploader, createdAt: meta.createdAt };
    const inMemory = !this.dir;
    const path = this.dir ? join(this.dir, file.appId, key) : "";
    if (this.dir) mkdirSync(join(this.dir, file.appId), { recursive: true });
    const out = this.dir ? createWriteStream(path) : undefined;
    const chunks: Buffer[] = [];
    const room = MEMORY_LIMIT - this.memoryUsed;
    // Read by hand rather than piped: a refused file's stream must not be destroyed under the multipart parser,
    // which waits for each part to be consumed.
    try {
      await new Promise<void>((resolve, reject) => {
        let done = false;
        const stop = (e?: unknown) => {
          if (done) return;
          done = true;
          if (e === undefined) resolve();
          else reject(e);
        };
        source.on("data", (chunk: Buffer) => {
          if (done) return;
          file.size += chunk.length;
          if (file.size > limit) return stop(new FileTooLarge(limit));
          if (inMemory) {
            if (file.size > room) return stop(new FileStoreFull());
            chunks.push(chunk);
          } else if (!out!.write(chunk)) {
            source.pause();
            out!.once("drain", () => source.resume());
          }
        });
        let ended = false;
        source.on("end", () => {
          ended = true;
          if (out) out.end(() => stop());
          else stop();
        });
        source.on("error", stop);
        source.on("close", () => ended || stop(new Error("the upload ended before the file did")));
        out?.on("error", stop);
      });
    } catch (e) {
      out?.destroy();
      if (out) rmSync(path, { force: true });
      throw e;
    }
    if (out) {
      writeFileSync(`${path}.json`, JSON.stringify(file));
      this.files.set(`${file.appId}/${key}`, file);
      return file;
    }
    this.memoryUsed += file.size;
    this.files.set(`${file.appId}/${key}`, { ...file, bytes: Buffer.concat(chunks) });
    return file;
  }

  /** Forgets a file (its message was refused after the upload). */
  remove(file: StoredFile): void {
    const kept = this.files.get(`${file.appId}/${file.key}`);
    if (!kept) return;
    this.files.delete(`${file.appId}/${file.key}`);
    if (kept.bytes) this.memoryUsed -= kept.bytes.length;
    if (this.dir) for (const p of [join(this.dir, file.appId, file.key), join(this.dir, file.appId, `${file.key}.json`)]) rmSync(p, { force: true });
  }

  /** The file under `key`, from memory or (kept by an earlier run) from the folder. */
  get(appId: string, key: string): StoredFile | undefined {
    if (!/^[0-9a-f]{32}(\.[a-z0-9]{1,10})?$/.test(key)) return undefined;
    const known = this.files.get(`${appId}/${key}`);
    if (known || !this.dir) return known;
    try {
      const file = JSON.parse(readFileSync(join(this.dir, appId, `${key}.json`), "utf8")) as StoredFile;
      this.files.set(`${appId}/${key}`, file);
      return file;
    } catch {
      return undefined;
    }
  }

  /** The bytes `start`..`end` (inclusive) of a kept file, as a stream. */
  read(file: StoredFile, start: number, end: number): Readable {
    const bytes = this.files.get(`${file.appId}/${file.key}`)?.bytes;
    if (bytes) return Readable.from([bytes.subarray(start, end + 1)]);
    return createReadStream(join(this.dir!, file.appId, file.key), { start, end });
  }
}
