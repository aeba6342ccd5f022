import { Readable } from "node:stream";
import { addressedApp } from "../../http/auth.js";
import { header, type Ctx } from "../../http/context.js";
import { ApiError, apiError, badRequest } from "../../http/errors.js";
import { isMultipart, readMultipart, type FilePart } from "../../http/multipart.js";
import { ok } from "../../http/reply.js";
import type { Body } from "../../http/validate.js";
import { bodySchema } from "../../http/schema.js";
import { checkBody } from "../../http/body-check.js";
import { operation, routes } from "../../http/operation.js";
import { clientApiBase } from "../../client/settings.js";
import { extensionOf, FILE_COUNT_MAX, FILE_SIZE_MAX, FileStoreFull, FileTooLarge, UPLOAD_TTL_SECONDS, type StoredFile } from "../../store/files.js";
import type { JsonObject } from "../../store/types.js";
import { conversationFor, DATA_SIZE, MESSAGE_TYPES, readMessageBody } from "../messages/send.js";

/**
 * Attachments on the client plane: the UI kit's `files/upload-url` and the upload to the URL it answers, the
 * SDK's multipart `POST messages` (see `withSendBody`), and the files served back at the URLs the messages carry.
 * Upload and file URLs need no token (as the platform's presigned storage URLs and public media URLs): their
 * random ids are the key.
 */

/** The attachment a message carries for a kept file (`data.attachments[]`). */
export function attachmentOf(c: Ctx, file: { key: string; name: string; mimeType: string; size: number }): JsonObject {
  return { name: file.name, extension: extensionOf(file.name), size: file.size, mimeType: file.mimeType, url: `${clientApiBase(c)}/media/${file.key}` };
}

/** A media type fit for a header (`type/subtype`), else the generic one: a client's word is not trusted there. */
function mediaTypeOf(declared: string): string {
  return /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/i.test(declared) ? declared.toLowerCase() : "application/octet-stream";
}

/** The message type of a file, as the SDK picks it (image, audio, video, else file). */
function mediaType(mimeType: string): (typeof MESSAGE_TYPES)[number] {
  const kind = mimeType.split("/")[0].toLowerCase();
  return kind === "image" || kind === "audio" || kind === "video" ? kind : "file";
}

/** Keeps one uploaded part, the store's refusals turned into the platform's errors. */
async function keep(c: Ctx, part: FilePart, meta: { key?: string; name?: string; mimeType?: string; size?: number }): Promise<StoredFile> {
  const name = meta.name ?? part.name;
  try {
    return await c.get("emulator").files.save(
      { appId: c.get("app").meta.appId, key: meta.key, name, mimeType: mediaTypeOf(meta.mimeType ?? part.mimeType), uploader: c.get("actor")?.uid ?? "", createdAt: c.get("emulator").clock.now() },
      part.stream,
      Math.min(meta.size ?? FILE_SIZE_MAX, FILE_SIZE_MAX),
    );
  } catch (e) {
    if (e instanceof FileTooLarge) throw apiError("ERR_FILE_SIZE_EXCEEDED", { name, limit: e.limit });
    if (e instanceof FileStoreFull) throw apiError("ERR_FILE_STORAGE_FULL", { limit: 1024 * 1024 * 1024 });
    throw e;
  }
}

/** Room for a multipart body's text fields beside its files. */
const FIELDS_ROOM = 1024 * 1024;

/**
 * The body of a send (`POST messages`, `POST messages/{id}/thread`) handed to `fn`. On the client plane a
 * multipart body (what the SDK sends for a media message with a File: `type`, `receiverType`, `receiver`,
 * `category`, `data` as a JSON string, `file` or `files[]`, `tags[]`) has its files kept and listed in
 * `data.attachments` (the first one's URL in `data.url`); a send that is then refused removes them again.
 */
export async function withSendBody<T>(c: Ctx, fn: (body: Body) => Promise<T> | T): Promise<T> {
  if (c.get("authToken") === undefined || !isMultipart(c)) return fn(await readMessageBody(c));
  const files = c.get("emulator").files;
  const form = await readMultipart(
    c,
    { maxBytes: FILE_COUNT_MAX * FILE_SIZE_MAX + FIELDS_ROOM, files: FILE_COUNT_MAX },
    (part) => (part.field === "file" || part.field === "files[]" ? keep(c, part, {}) : Promise.reject(badRequest({ [part.field]: [`The ${part.field} must be a text field.`] }))),
    (file) => files.remove(file),
  );
  try {
    const body: Body = {};
    for (const [k, v] of Object.entries(form.fields)) if (k !== "data") body[k] = v;
    let data: unknown = {};
    if (typeof form.fields.data === "string" && form.fields.data !== "") {
      try {
        data = JSON.parse(form.fields.data);
      } catch {
        throw apiError("ERR_INVALID_MESSAGE_DATA");
      }
    }
    if (typeof data !== "object" || data === null || Array.isArray(data)) throw apiError("ERR_INVALID_MESSAGE_DATA");
    if (form.files.length > 0) {
      const attachments = form.files.map((f) => attachmentOf(c, f));
      Object.assign(data, { attachments, url: attachments[0].url });
    }
    body.data = data;
    await checkBody(body, DATA_SIZE);
    // The journal shows what the send carried (the files by their URLs), not the bytes.
    (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve(JSON.stringify(body));
    return await fn(body);
  } catch (e) {
    for (const f of form.files) files.remove(f);
    throw e;
  }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** One file of `files` (an object of them by the client's ids): the declaration's notation cannot describe it. */
const FILE_SPEC = bodySchema({
  fileId: { required: true, type: "string", max: 255 },
  name: { required: true, type: "string", max: 255 },
  size: { required: true, type: "integer" },
  mimeType: { required: true, type: "string", max: 255 },
});

/** `POST files/upload-url` (token): upload URLs and the attachments they will become, for the files to send. */
export const fileUploads = routes(
  operation({
    method: "POST",
    path: "/files/upload-url",
    plane: "client",
    body: {
      files: { required: true, type: "object" },
      receiver: { type: "string", max: 100 },
      receiverType: { type: "string", in: ["user", "group"] },
      parentMessageId: { type: "integer" },
    },
    handler: async (c, { body }) => {
      const app = c.get("app");
      const actor = c.get("actor");
      const entries = Object.entries(body.files as Record<string, unknown>);
      if (entries.length === 0) throw badRequest({ files: ["The files field is required."] });
      if (entries.length > FILE_COUNT_MAX) throw apiError("ERR_FILE_COUNT_EXCEEDED", { limit: FILE_COUNT_MAX });
      for (const [id, spec] of entries) {
        if (typeof spec !== "object" || spec === null || Array.isArray(spec)) throw badRequest({ [`files.${id}`]: [`The files.${id} must be an object.`] });
        await checkBody(spec as Body, FILE_SPEC);
        // A name that is not valid Unicode (a lone surrogate) cannot be named in a header when the file is served.
        if (LONE_SURROGATE.test((spec as Body).name as string)) throw badRequest({ [`files.${id}.name`]: [`The files.${id}.name must be valid Unicode text.`] });
      }
      const specs = entries.map(([, spec]) => spec as { fileId: string; name: string; size: number; mimeType: string });
      // Files meant for a conversation: the sender must be able to send them there (membership, blocks, roles).
      if (body.receiver !== undefined) {
        const receiverType = (body.receiverType as "user" | "group" | undefined) ?? "user";
        for (const f of specs) {
          const data = { attachments: [{ mimeType: f.mimeType }] };
          conversationFor(app, actor, receiverType, body.receiver as string, { category: "message", type: mediaType(f.mimeType), data });
        }
      }
      const { files, clock } = c.get("emulator");
      const now = clock.now();
      const out: Record<string, unknown> = {};
      for (const f of specs) {
        f.mimeType = mediaTypeOf(f.mimeType);
        if (f.size < 0 || f.size > FILE_SIZE_MAX) {
          out[f.fileId] = { error: { code: "ERR_FILE_SIZE_EXCEEDED", message: `The file ${f.name} exceeds the maximum allowed size of ${FILE_SIZE_MAX} bytes.` } };
          continue;
        }
        const expiresAt = now + UPLOAD_TTL_SECONDS;
        const { id, ticket } = files.issueTicket({ appId: app.meta.appId, name: f.name, mimeType: f.mimeType, uploader: actor.uid, expiresAt, size: f.size }, now);
        out[f.fileId] = {
          request: { url: `${clientApiBase(c)}/files/upload/${id}`, method: "POST", body: {} },
          attachment: attachmentOf(c, { key: ticket.key, name: f.name, mimeType: f.mimeType, size: f.size }),
          expiresAt,
        };
      }
      return ok(c, out);
    },
  }),
);

/** `bytes=a-b`, `bytes=a-`, `bytes=-n` -> [start, end] within `size`; undefined when absent, null when unsatisfiable. */
function rangeOf(raw: string | undefined, size: number): [number, number] | undefined | null {
  if (raw === undefined) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(raw.trim());
  if (!m || (m[1] === "" && m[2] === "")) return undefined; // several ranges or another unit: the whole file
  if (m[1] === "") {
    const n = Number(m[2]);
    return n === 0 || size === 0 ? null : [Math.max(0, size - n), size - 1];
  }
  const start = Number(m[1]);
  const end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  return start >= size || end < start ? null : [start, end];
}

/** No token: the upload URL's and the file's random ids are the key (see the module comment). */
export const media = routes(
  // The upload of one file to the URL `files/upload-url` answered (a form with the file in `file`): 204.
  operation({
    method: "POST",
    path: "/files/upload/:ticket",
    plane: "client",
    body: "raw",
    handler: async (c) => {
      const app = addressedApp(c);
      c.set("app", app);
      const { files, clock } = c.get("emulator");
      const id = c.req.param("ticket")!;
      const ticket = files.ticket(app.meta.appId, id, clock.now());
      if (!ticket) throw apiError("ERR_PRESIGNED_URL_EXPIRED");
      if (!isMultipart(c)) throw badRequest({ file: ["The file field is required (a multipart/form-data body)."] });
      const form = await readMultipart(
        c,
        { maxBytes: FILE_SIZE_MAX + FIELDS_ROOM, files: 1 },
        (part) => (part.field === "file" ? keep(c, part, ticket) : Promise.reject(badRequest({ [part.field]: [`Only the file field may hold a file.`] }))),
        (file) => files.remove(file),
      );
      if (form.files.length === 0) throw badRequest({ file: ["The file field is required."] });
      files.ticket(app.meta.appId, id, clock.now(), true);
      return c.body(null, 204);
    },
  }),

  // A kept file, with its type and length; a Range asks for a part (audio and video players seek with it).
  operation({
    method: "GET",
    path: "/media/:key",
    plane: "client",
    handler: (c) => {
      const app = addressedApp(c);
      const { files } = c.get("emulator");
      const key = c.req.param("key")!;
      const file = files.get(app.meta.appId, key);
      if (!file) throw apiError("ERR_MEDIA_NOT_FOUND", { key });
      const range = rangeOf(header(c, "range"), file.size);
      if (range === null) {
        const err = apiError("ERR_RANGE_NOT_SATISFIABLE", { range: header(c, "range")!, size: file.size });
        throw new ApiError(err.code, err.status, err.message, err.devMessage, undefined, { "Content-Range": `bytes */${file.size}` });
      }
      const [start, end] = range ?? [0, file.size - 1];
      const headers: Record<string, string> = {
        "Content-Type": file.mimeType,
        "Content-Length": String(Math.max(0, end - start + 1)),
        "Accept-Ranges": "bytes",
        // A stored name that is not valid Unicode (an older state) is served with U+FFFD rather than failing.
        "Content-Disposition": `inline; filename*=UTF-8''${encodeURIComponent(file.name.replace(new RegExp(LONE_SURROGATE, "g"), "\uFFFD"))}`,
        "Cache-Control": "private, max-age=86400",
        "Access-Control-Expose-Headers": "Content-Length, Content-Range, Accept-Ranges, Content-Disposition",
        // Files are users' content served from the emulator's own origin, where the control plane lives: an uploaded
        // page or SVG must not run as that origin (sandbox: an opaque origin, no script), nor be sniffed into one.
        "Content-Security-Policy": "sandbox",
        "X-Content-Type-Options": "nosniff",
      };
      if (range) headers["Content-Range"] = `bytes ${start}-${end}/${file.size}`;
      const empty = c.req.method === "HEAD" || end < start;
      const body = empty ? null : (Readable.toWeb(files.read(file, start, end)) as ReadableStream);
      return new Response(body, { status: range ? 206 : 200, headers });
    },
  }),
);
