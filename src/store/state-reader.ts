import { closeSync, createReadStream, createWriteStream, openSync, readSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { finished } from "node:stream/promises";
import { randomHex } from "../util/random.js";

/**
 * Reads a state or seed document (a data file, an --import or --seed file, a `PUT /_emulator/state` body) without
 * ever holding its text whole, so that a million messages load in the memory their records take. A first pass
 * scans the file's bytes: every array directly under an app entry (`apps[i].messages`, `births[i].users`, ...)
 * becomes a `ChunkedArray`, the places of runs of about 64 KB of its elements in the file; the rest of the
 * document, small, is parsed at the end of the pass. The loader then reads and parses the runs one at a time as it
 * validates (a second read of the file, from the page cache), so no more than a run is ever held raw.
 */

/** The document is not JSON, too deep or too large; the message completes "FILE ..." (e.g. "is not valid JSON"). */
/**
 * A parse error without the file's content: V8 quotes the text around the error ("Unexpected token 'h', "hello
 * secr"... is not valid JSON"), and a file given by mistake may hold secrets. Positions are kept.
 */
function notJson(e: unknown): DocumentError {
  const message = (e as Error).message ?? "";
  const at = / at position (\d+)(?: \(line (\d+) column (\d+)\))?/.exec(message);
  const where = at ? (at[2] ? ` at line ${at[2]} column ${at[3]}` : ` at position ${at[1]}`) : "";
  const what = /end of JSON input/.test(message) ? "it ends too early" : `unexpected content${where}`;
  return new DocumentError(`is not valid JSON (${what})`);
}

export class DocumentError extends Error {}

/**
 * Bytes of elements gathered into one run before it is cut (at the next element boundary): small enough that a
 * run's text is an ordinary young object, not a large one that only a full collection frees.
 */
const RUN_BYTES = 64 * 1024;
/** The pieces the first pass reads the file in. */
const READ_BYTES = 1 << 20;

/** An array of a document, read from its file a run at a time (see `items`). */
export class ChunkedArray {
  /** [start, end) byte offsets of runs of whole elements. */
  readonly runs: [number, number][] = [];
  constructor(private readonly path: string) {}

  /** The elements in order; each run is read and parsed when reached. */
  *items(): Generator<unknown> {
    if (this.runs.length === 0) return;
    const fd = openSync(this.path, "r");
    try {
      let buf = Buffer.alloc(0);
      for (const [start, end] of this.runs) {
        const length = end - start;
        if (buf.length < length) buf = Buffer.allocUnsafe(length);
        for (let got = 0; got < length; ) {
          const n = readSync(fd, buf, got, length - got, start + got);
          if (n === 0) throw new DocumentError("changed while it was read");
          got += n;
        }
        let parsed: unknown[];
        try {
          parsed = JSON.parse(`[${buf.toString("utf8", 0, length)}]`) as unknown[];
        } catch (e) {
          throw notJson(e);
        }
        for (const item of parsed) yield item;
      }
    } finally {
      closeSync(fd);
    }
  }

  /** Every element, parsed now (small arrays). */
  toArray(): unknown[] {
    const out: unknown[] = [];
    for (const item of this.items()) out.push(item);
    return out;
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/** How many backslashes stand right before `at` (not before `from`). */
function backslashesBefore(buf: Buffer, at: number, from: number): number {
  let k = at - 1;
  while (k >= from && buf[k] === BACKSLASH) k--;
  return at - 1 - k;
}

/**
 * The first pass: one scan of the bytes (structural characters are ASCII, never part of a UTF-8 sequence), strings
 * skipped with `indexOf`. Depth 1 is the document object, 2 `apps`/`births`, 3 an app entry, 4 its arrays.
 */
class Scanner {
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Brackets open at each depth ("[" or "{"), to tell arrays under an app entry. */
  private readonly kinds: number[] = [];
  private readonly skeleton: Buffer[] = [];
  private readonly arrays: ChunkedArray[] = [];
  /** Where the current array's run began (an offset in the file). */
  private runStart = 0;
  private readonly nonce = randomHex(16);
  /** Bytes scanned so far: the file offset of the buffer being fed. */
  size = 0;

  constructor(
    private readonly path: string,
    private readonly maxDepth: number,
  ) {}

  private get inArray(): boolean {
    const k = this.kinds;
    return this.depth >= 4 && k[1] === OPEN_OBJECT && k[2] === OPEN_ARRAY && k[3] === OPEN_OBJECT && k[4] === OPEN_ARRAY;
  }

  feed(buf: Buffer): void {
    const base = this.size;
    this.size += buf.length;
    // Bytes of the skeleton (outside the arrays) start at `start`, when `start` is not null.
    let start: number | null = this.depth >= 4 && this.inArray ? null : 0;
    let i = 0;
    const n = buf.length;
    while (i < n) {
      if (this.inString) {
        if (this.escaped) {
          this.escaped = false;
          i++;
          continue;
        }
        // The closing quote: the next one not escaped (an odd run of backslashes before it).
        let q = buf.indexOf(QUOTE, i);
        while (q !== -1 && backslashesBefore(buf, q, i) % 2 === 1) q = buf.indexOf(QUOTE, q + 1);
        if (q === -1) {
          this.escaped = backslashesBefore(buf, n, i) % 2 === 1;
          i = n;
          break;
        }
        this.inString = false;
        i = q + 1;
        continue;
      }
      const ch = buf[i];
      if (ch === QUOTE) this.inString = true;
      else if (ch === OPEN_ARRAY || ch === OPEN_OBJECT) {
        this.depth++;
        if (this.depth > this.maxDepth) throw new DocumentError(`is nested more than ${this.maxDepth} levels deep`);
        this.kinds[this.depth] = ch;
        if (this.depth === 4 && this.inArray) {
          // An array under an app entry: the skeleton gets a marker in its place, its elements become runs.
          this.skeleton.push(Buffer.from(buf.subarray(start!, i)));
          this.skeleton.push(Buffer.from(`{"\\u0000chunk":"${this.nonce}:${this.arrays.length}"}`));
          this.arrays.push(new ChunkedArray(this.path));
          this.runStart = base + i + 1;
          start = null;
        }
      } else if (ch === CLOSE_ARRAY || ch === CLOSE_OBJECT) {
        if (this.depth === 0 || (ch === CLOSE_ARRAY) !== (this.kinds[this.depth] === OPEN_ARRAY))
          throw new DocumentError("is not valid JSON (unbalanced brackets)");
        if (this.depth === 4 && this.inArray) {
          this.cut(base + i);
          start = i + 1;
        }
        this.depth--;
      } else if (ch === COMMA && this.depth === 4 && this.inArray && base + i - this.runStart >= RUN_BYTES) {
        this.cut(base + i);
        this.runStart = base + i + 1;
      }
      i++;
    }
    if (start !== null && start < n) this.skeleton.push(Buffer.from(buf.subarray(start, n)));
  }

  /** Ends the current run at `end` (a comma or the closing bracket). */
  private cut(end: number): void {
    if (end > this.runStart) this.arrays[this.arrays.length - 1].runs.push([this.runStart, end]);
  }

  /** The document, its arrays under app entries as ChunkedArrays; `undefined` for an empty (blank) input. */
  finish(): unknown {
    if (this.depth !== 0 || this.inString) throw new DocumentError("is not valid JSON (it ends too early)");
    const text = Buffer.concat(this.skeleton).toString("utf8");
    if (text.trim() === "") return undefined;
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      throw notJson(e);
    }
    const marker = (v: unknown): ChunkedArray | undefined => {
      if (typeof v !== "object" || v === null) return undefined;
      const tag = (v as Record<string, unknown>)["\u0000chunk"];
      if (typeof tag !== "string" || !tag.startsWith(`${this.nonce}:`)) return undefined;
      return this.arrays[Number(tag.slice(this.nonce.length + 1))];
    };
    if (typeof doc === "object" && doc !== null)
      for (const list of Object.values(doc))
        if (Array.isArray(list))
          for (const entry of list)
            if (typeof entry === "object" && entry !== null)
              for (const [key, value] of Object.entries(entry)) {
                const chunked = marker(value);
                if (chunked) (entry as Record<string, unknown>)[key] = chunked;
              }
    return doc;
  }
}

/** The document with every ChunkedArray read into a plain array (to change it in place: a replay of change logs). */
export function materialize(doc: unknown): unknown {
  if (typeof doc === "object" && doc !== null)
    for (const list of Object.values(doc))
      if (Array.isArray(list))
        for (const entry of list)
          if (typeof entry === "object" && entry !== null)
            for (const [key, value] of Object.entries(entry)) if (value instanceof ChunkedArray) (entry as Record<string, unknown>)[key] = value.toArray();
  return doc;
}

export interface ReadLimits {
  /** Nesting allowed (objects and arrays); 256 unless told. */
  maxDepth?: number;
  /** Bytes allowed; more is refused with `tooLarge` as soon as they arrive. */
  maxBytes?: number;
  tooLarge?: () => Error;
}

/**
 * Reads a document from a file (see the top of this file); a blank file gives `undefined`. Errors opening or
 * reading it are thrown as they are (ENOENT, EISDIR, ...); the file must stay as it is until the arrays are read.
 * `readBytes`: the size of the pieces the file is scanned in (tests make it small).
 */
export async function readDocumentFile(path: string, limits: ReadLimits = {}, readBytes = READ_BYTES): Promise<unknown> {
  const scanner = new Scanner(path, limits.maxDepth ?? 256);
  for await (const chunk of createReadStream(path, { highWaterMark: readBytes })) scanner.feed(chunk as Buffer);
  return scanner.finish();
}

/**
 * Reads a document that arrives as a stream (a request body): its bytes are scanned as they come (counted against
 * `maxBytes`) and go to a temporary file, from which the arrays are read like any file's. `dispose` removes the
 * file once the document has been parsed.
 */
export async function readDocumentStream(
  source: AsyncIterable<Uint8Array>,
  limits: ReadLimits = {},
): Promise<{ doc: unknown; dispose: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "chat-emulator-state-"));
  const dispose = () => rm(dir, { recursive: true, force: true });
  try {
    const path = join(dir, "state.json");
    const scanner = new Scanner(path, limits.maxDepth ?? 256);
    const out = createWriteStream(path);
    try {
      for await (const chunk of source) {
        const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        if (limits.maxBytes !== undefined && scanner.size + buf.length > limits.maxBytes)
          throw limits.tooLarge?.() ?? new DocumentError(`is larger than ${limits.maxBytes} bytes`);
        scanner.feed(buf);
        if (!out.write(buf)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
      }
    } finally {
      out.end();
      await finished(out);
    }
    return { doc: scanner.finish(), dispose };
  } catch (e) {
    await dispose();
    throw e;
  }
}
