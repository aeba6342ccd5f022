import { createReadStream, existsSync, openSync, readSync, closeSync, writeSync, fsyncSync } from "node:fs";
import { rm } from "node:fs/promises";
import { createInterface } from "node:readline";

/**
 * The progress file of `pull` (`OUT.pull-progress`, beside the output): one JSON line per finished piece of work (a
 * page of users, one conversation's messages), each appended once the piece is done. An interrupted pull run again
 * with the same options reads it back and fetches only what is missing; a finished pull removes it. Its first line
 * names the pull it belongs to: a file of another pull (another app or other options) is started afresh, and a
 * file that is not a progress file at all is refused (it is not ours to overwrite).
 */

const FORMAT = "chat-emulator/pull-progress@1";

export class ResumeError extends Error {}

export class ResumeLog {
  private fd: number;
  readonly resumed: number;

  private constructor(
    readonly path: string,
    private readonly done: Map<string, unknown>,
    fd: number,
  ) {
    this.fd = fd;
    this.resumed = done.size;
  }

  /** Opens the progress file of the pull `identity`, taking up what a former run of the same pull finished. */
  static async open(path: string, identity: Record<string, unknown>): Promise<ResumeLog> {
    const header = JSON.stringify({ format: FORMAT, ...identity });
    const done = new Map<string, unknown>();
    let same = false;
    if (existsSync(path)) {
      const first = firstLine(path);
      let parsed: { format?: unknown } | undefined;
      try {
        parsed = JSON.parse(first) as { format?: unknown };
      } catch {
        parsed = undefined;
      }
      if (parsed?.format !== FORMAT)
        throw new ResumeError(`${path} is not a progress file of chat-emulator pull; move it away (pull keeps its progress there).`);
      same = first === header;
      if (same) {
        const lines = createInterface({ input: createReadStream(path, "utf8"), crlfDelay: Infinity });
        let index = 0;
        for await (const line of lines) {
          if (index++ === 0 || line === "") continue;
          try {
            const entry = JSON.parse(line) as { k: string; v: unknown };
            done.set(entry.k, entry.v);
          } catch {
            // A line cut short by the interruption: that piece is fetched again.
          }
        }
      }
    }
    const fd = openSync(path, same ? "a" : "w");
    if (!same) writeSync(fd, header + "\n");
    return new ResumeLog(path, done, fd);
  }

  /** The piece `key` as a former run finished it, or fetches it now and writes it down. */
  async piece<T>(key: string, fetch: () => Promise<T>): Promise<T> {
    if (this.done.has(key)) return this.done.get(key) as T;
    const value = await fetch();
    writeSync(this.fd, JSON.stringify({ k: key, v: value }) + "\n");
    return value;
  }

  /** Forgets a piece taken up from the file (its value is held elsewhere now), to free its memory. */
  release(key: string): void {
    this.done.delete(key);
  }

  close(): void {
    fsyncSync(this.fd);
    closeSync(this.fd);
  }

  /** The pull is done: the progress file goes. */
  async remove(): Promise<void> {
    closeSync(this.fd);
    await rm(this.path, { force: true });
  }
}

function firstLine(path: string): string {
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.alloc(4096);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const text = buf.subarray(0, n).toString("utf8");
    const end = text.indexOf("\n");
    return end === -1 ? text : text.slice(0, end);
  } finally {
    closeSync(fd);
  }
}
