import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import busboy from "busboy";
import type { Ctx } from "./context.js";
import { header } from "./context.js";
import { ApiError, apiError, badRequest } from "./errors.js";

/**
 * `multipart/form-data` bodies: the one place a large body is allowed (attachments). Parsed as they stream in
 * (busboy): text fields are small and bounded, each file is handed to `onFile` as a stream that the caller stores
 * with its own size limit; nothing is buffered whole here. A body that declares more than `maxBytes` is refused
 * before reading.
 */

/** What is read past a refusal before the connection is left to close (see `fail` below). */
const DRAIN_BYTES = 1024 * 1024;

export function isMultipart(c: Ctx): boolean {
  return /^\s*multipart\/form-data\s*;/i.test(header(c, "content-type") ?? "");
}

export interface MultipartLimits {
  /** Largest body accepted, as declared by Content-Length (checked before reading). */
  maxBytes: number;
  /** Most file parts. */
  files: number;
  /** Most text fields, and the largest one (bytes). */
  fields?: number;
  fieldBytes?: number;
}

export interface FilePart {
  field: string;
  name: string;
  mimeType: string;
  stream: Readable;
}

/**
 * Reads the form: its text fields (a repeated `name[]` field collects into an array under `name`) and, for each
 * file, what `onFile` made of it. A refused part (a file over its limit, too many parts) is thrown once the body
 * has drained, after the files kept so far are discarded.
 */
export async function readMultipart<T>(
  c: Ctx,
  limits: MultipartLimits,
  onFile: (part: FilePart) => Promise<T>,
  /** Undoes what `onFile` kept, for the files of a body refused later. */
  discard: (kept: T) => void,
): Promise<{ fields: Record<string, string | string[]>; files: T[] }> {
  // What the journal keeps of the body (it must never read the stream after us); the caller may say more.
  (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve("[multipart/form-data body]");
  const declared = Number(header(c, "content-length") ?? 0);
  if (declared > limits.maxBytes) throw apiError("ERR_FILE_SIZE_EXCEEDED", { name: "request body", limit: limits.maxBytes });
  const fieldBytes = limits.fieldBytes ?? 64 * 1024;
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { "content-type": header(c, "content-type")! },
      limits: { files: limits.files, fields: limits.fields ?? 50, fieldSize: fieldBytes, parts: (limits.fields ?? 50) + limits.files },
    });
  } catch {
    throw badRequest({ body: ["The multipart body has no boundary."] });
  }
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  const source: Readable = incoming ?? (c.req.raw.body ? Readable.fromWeb(c.req.raw.body as import("node:stream/web").ReadableStream) : Readable.from([]));

  const fields: Record<string, string | string[]> = {};
  const pending: Promise<T>[] = [];
  const streaming = new Set<Readable>();
  let failure: unknown;
  let finish = () => {};
  // The first refusal ends the parsing and the answer closes the connection (as for any body over its limit). Up
  // to DRAIN_BYTES more of the body are read and dropped meanwhile, so that a client slightly over a limit gets
  // the answer rather than a reset connection; past that the rest is not taken in.
  const fail = (e: unknown) => {
    if (failure) return;
    failure = e instanceof ApiError ? new ApiError(e.code, e.status, e.message, e.devMessage, e.details, { ...e.headers, Connection: "close" }) : e;
    source.unpipe(parser);
    for (const s of streaming) s.destroy();
    let drained = 0;
    source.on("data", (chunk: Buffer) => {
      drained += chunk.length;
      if (drained > DRAIN_BYTES) source.pause();
    });
    source.resume();
    finish();
  };

  await new Promise<void>((resolve) => {
    finish = resolve;
    parser.on("field", (name, value, info) => {
      if (info.valueTruncated) fail(badRequest({ [name]: [`The ${name} may not be greater than ${fieldBytes / 1024} kilobytes.`] }));
      if (name.endsWith("[]")) {
        const key = name.slice(0, -2);
        const list = Array.isArray(fields[key]) ? (fields[key] as string[]) : (fields[key] = []);
        list.push(value);
      } else fields[name] = value;
    });
    parser.on("file", (field, stream, info) => {
      if (failure) return void stream.resume();
      streaming.add(stream);
      stream.on("end", () => streaming.delete(stream));
      const done = onFile({ field, name: info.filename ?? "file", mimeType: info.mimeType || "application/octet-stream", stream });
      done.catch(fail);
      pending.push(done);
    });
    parser.on("filesLimit", () => fail(apiError("ERR_FILE_COUNT_EXCEEDED", { limit: limits.files })));
    parser.on("fieldsLimit", () => fail(badRequest({ body: ["The multipart body has too many fields."] })));
    parser.on("partsLimit", () => fail(badRequest({ body: ["The multipart body has too many parts."] })));
    parser.on("error", (e: unknown) => fail(badRequest({ body: [`The multipart body is malformed (${(e as Error).message}).`] })));
    parser.on("close", () => resolve());
    source.on("error", fail);
    source.pipe(parser);
  });
  const settled = await Promise.allSettled(pending);
  if (failure) {
    for (const s of settled) if (s.status === "fulfilled") discard(s.value);
    throw failure;
  }
  return { fields, files: settled.map((s) => (s as PromiseFulfilledResult<T>).value) };
}
