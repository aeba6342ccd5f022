import { existsSync, readdirSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../src/index.js";
import { FILE_SIZE_MAX } from "../src/store/files.js";
import { APP_ID, REST_KEY } from "./helpers.js";
import { tempDir } from "./tmp.helpers.js";

/**
 * Attachments on the client plane, over real HTTP: the SDK's multipart `POST messages`, the UI kit's
 * `files/upload-url` then upload, and the files served back at the URLs the messages carry.
 */
let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ quiet: true });
});
afterAll(() => emu.close());

const client = () => `${emu.url}/${APP_ID}.apiclient-us/v3.0`;
const tokens = new Map<string, string>();
async function tokenOf(uid: string): Promise<string> {
  if (!tokens.has(uid)) {
    const res = await fetch(`${emu.url}/v3/users/${uid}/auth_tokens`, { method: "POST", headers: { apikey: REST_KEY, "content-type": "application/json" }, body: "{}" });
    tokens.set(uid, (await res.json()).data.authToken);
  }
  return tokens.get(uid)!;
}
async function api(uid: string, method: string, path: string, body?: FormData | object) {
  const headers: Record<string, string> = { appid: APP_ID, authtoken: await tokenOf(uid) };
  if (body !== undefined && !(body instanceof FormData)) headers["content-type"] = "application/json";
  const res = await fetch(`${client()}${path}`, { method, headers, body: body instanceof FormData ? body : body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");

/** The form the SDK sends for a MediaMessage with a File. */
function mediaForm(receiver: string, file: Blob, name: string, extra: Record<string, string> = {}): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries({ receiver, receiverType: "user", type: "image", category: "message", data: JSON.stringify({ text: "look" }), ...extra })) form.append(k, v);
  form.append("file", file, name);
  return form;
}

describe("multipart POST messages (SDK 4.x MediaMessage with a File, SDK 3.x media messages)", () => {
  it("keeps the file, lists it in data.attachments and data.url, and serves it back with its type and length", async () => {
    const sent = await api("superhero1", "POST", "/messages", mediaForm("superhero2", new Blob([PNG], { type: "image/png" }), "Pixel.PNG", { "tags[]": "x" }));
    expect(sent.status).toBe(200);
    const m = sent.body.data;
    expect(m).toMatchObject({ type: "image", category: "message", sender: "superhero1", receiver: "superhero2", data: { text: "look" } });
    const [a] = m.data.attachments;
    expect(a).toMatchObject({ name: "Pixel.PNG", extension: "png", size: PNG.length, mimeType: "image/png" });
    expect(a.url).toMatch(new RegExp(`^${client()}/media/[0-9a-f]{32}\\.png$`));
    expect(m.data.url).toBe(a.url);

    // No token needed (as a media URL in an <img>), with CORS.
    const file = await fetch(a.url);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("image/png");
    expect(file.headers.get("content-length")).toBe(String(PNG.length));
    expect(file.headers.get("access-control-allow-origin")).toBe("*");
    expect(file.headers.get("accept-ranges")).toBe("bytes");
    // Users' files on the emulator's origin run nothing there.
    expect(file.headers.get("content-security-policy")).toBe("sandbox");
    expect(file.headers.get("x-content-type-options")).toBe("nosniff");
    expect(Buffer.from(await file.arrayBuffer())).toEqual(PNG);

    // The receiver reads the same message from the conversation.
    const listed = await api("superhero2", "GET", "/users/superhero1/messages?per_page=5");
    expect(listed.body.data.at(-1).data.attachments[0].url).toBe(a.url);
  });

  it("takes several files as files[], and refuses bad data or a refused send without keeping the file", async () => {
    const form = mediaForm("superhero2", new Blob(["a"], { type: "text/plain" }), "a.txt", { type: "file" });
    form.append("files[]", new Blob(["bb"], { type: "text/plain" }), "b.txt");
    const two = await api("superhero1", "POST", "/messages", form);
    expect(two.status).toBe(200);
    expect(two.body.data.data.attachments.map((x: any) => [x.name, x.size])).toEqual([["a.txt", 1], ["b.txt", 2]]);

    const bad = await api("superhero1", "POST", "/messages", mediaForm("superhero2", new Blob(["x"]), "x.bin", { data: "{not json" }));
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("ERR_INVALID_MESSAGE_DATA");
    const nobody = await api("superhero1", "POST", "/messages", mediaForm("nobody-here", new Blob(["x"]), "x.bin"));
    expect(nobody.status).toBe(404);
    expect(nobody.body.error.code).toBe("ERR_UID_NOT_FOUND");
    // The REST plane takes JSON only, as the platform's.
    const rest = await fetch(`${emu.url}/v3/messages`, { method: "POST", headers: { apikey: REST_KEY }, body: mediaForm("superhero2", new Blob(["x"]), "x.bin") });
    expect(rest.status).toBe(415);
  });

  it("refuses a file over the platform's 100 MB limit as it streams in: 413 ERR_FILE_SIZE_EXCEEDED, the rest never read", async () => {
    const token = await tokenOf("superhero1");
    const boundary = "----chat-emulator-test";
    const head = [
      ...Object.entries({ receiver: "superhero2", receiverType: "user", type: "file", category: "message", data: "{}" }).map(
        ([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`,
      ),
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ].join("");
    const { port } = new URL(emu.url);
    const answer = await new Promise<{ status: number; body: any; sent: number }>((resolve, reject) => {
      let sent = 0;
      const req = request(
        { host: "127.0.0.1", port, method: "POST", path: `/${APP_ID}.apiclient-us/v3.0/messages`, headers: { appid: APP_ID, authtoken: token, "content-type": `multipart/form-data; boundary=${boundary}` } },
        (res) => {
          let text = "";
          res.on("data", (d: Buffer) => (text += d.toString()));
          res.on("end", () => {
            resolve({ status: res.statusCode!, body: JSON.parse(text), sent });
            req.destroy();
          });
        },
      );
      let answered = false;
      req.on("error", (e) => answered || reject(e));
      req.on("response", () => (answered = true));
      req.write(head);
      // Chunked, no Content-Length: the limit is found while counting. A little over it is sent (and the body
      // left open), which the emulator drains before the answer closes the connection.
      const chunk = Buffer.alloc(1024 * 1024);
      const more = () => {
        while (!answered && sent < FILE_SIZE_MAX + 4096) {
          const piece = chunk.subarray(0, Math.min(chunk.length, FILE_SIZE_MAX + 4096 - sent));
          sent += piece.length;
          if (!req.write(piece)) return void req.once("drain", more);
        }
      };
      more();
    });
    expect(answer.status).toBe(413);
    expect(answer.body.error.code).toBe("ERR_FILE_SIZE_EXCEEDED");
    expect(answer.body.error.message).toBe(`The file big.bin exceeds the maximum allowed size of ${FILE_SIZE_MAX} bytes.`);
    expect(answer.sent).toBe(FILE_SIZE_MAX + 4096);

    // A body declared larger than ten files of the limit is refused before it is read.
    const declared = await fetch(`${client()}/messages`, {
      method: "POST",
      headers: { appid: APP_ID, authtoken: token, "content-type": `multipart/form-data; boundary=${boundary}`, "content-length": String(11 * FILE_SIZE_MAX) },
      body: new Uint8Array(0),
    }).catch((e: Error) => e);
    if (!(declared instanceof Error)) expect(declared.status).toBe(413);
  }, 60_000);
});

describe("files/upload-url then upload (UI kit 7 composer), and ranges", () => {
  it("answers an upload URL and the attachment per file; the upload makes the file; the message refers to it", async () => {
    const content = Buffer.from("0123456789abcdefghij");
    const asked = await api("superhero1", "POST", "/files/upload-url", {
      files: { f1: { fileId: "f1", name: "clip.mp4", size: content.length, mimeType: "video/mp4" } },
      receiver: "superhero2",
      receiverType: "user",
    });
    expect(asked.status).toBe(200);
    const f1 = asked.body.data.f1;
    expect(f1.request).toMatchObject({ method: "POST", body: {} });
    expect(f1.attachment).toMatchObject({ name: "clip.mp4", extension: "mp4", size: content.length, mimeType: "video/mp4" });
    expect(f1.expiresAt).toBeGreaterThan(Math.floor(Date.now() / 1000));
    expect((await fetch(f1.attachment.url)).status).toBe(404); // nothing until it is uploaded

    // The SDK's XhrUploader: the request's body fields and the file in `file`, no token.
    const upload = new FormData();
    upload.append("file", new Blob([content], { type: "video/mp4" }), "clip.mp4");
    const up = await fetch(f1.request.url, { method: "POST", body: upload });
    expect(up.status).toBe(204);
    const again = await fetch(f1.request.url, { method: "POST", body: upload });
    expect(again.status).toBe(403);
    expect((await again.json()).error.code).toBe("ERR_PRESIGNED_URL_EXPIRED");

    const sent = await api("superhero1", "POST", "/messages", {
      receiver: "superhero2",
      receiverType: "user",
      category: "message",
      type: "video",
      data: { attachments: [f1.attachment] },
    });
    expect(sent.status).toBe(200);
    expect(sent.body.data.data.url).toBe(f1.attachment.url);

    // A player seeks with Range: 206 with Content-Range; past the end 416.
    const part = await fetch(f1.attachment.url, { headers: { range: "bytes=10-14" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 10-14/${content.length}`);
    expect(part.headers.get("content-length")).toBe("5");
    expect(await part.text()).toBe("abcde");
    const tail = await fetch(f1.attachment.url, { headers: { range: "bytes=-3" } });
    expect(await tail.text()).toBe("hij");
    const open = await fetch(f1.attachment.url, { headers: { range: "bytes=15-" } });
    expect(await open.text()).toBe("fghij");
    const beyond = await fetch(f1.attachment.url, { headers: { range: "bytes=99-" } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get("content-range")).toBe(`bytes */${content.length}`);
    const head = await fetch(f1.attachment.url, { method: "HEAD" });
    expect(head.headers.get("content-length")).toBe(String(content.length));
  });

  it("refuses what the platform refuses: too many files, oversize files, receivers the sender cannot write to", async () => {
    const files = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`f${i}`, { fileId: `f${i}`, name: `${i}.txt`, size: 1, mimeType: "text/plain" }]));
    const many = await api("superhero1", "POST", "/files/upload-url", { files });
    expect(many.status).toBe(400);
    expect(many.body.error.code).toBe("ERR_FILE_COUNT_EXCEEDED");
    const huge = await api("superhero1", "POST", "/files/upload-url", { files: { h: { fileId: "h", name: "h.bin", size: FILE_SIZE_MAX + 1, mimeType: "application/octet-stream" } } });
    expect(huge.status).toBe(200);
    expect(huge.body.data.h.error.code).toBe("ERR_FILE_SIZE_EXCEEDED");
    const noGroup = await api("superhero1", "POST", "/files/upload-url", { files: { g: { fileId: "g", name: "g.txt", size: 1, mimeType: "text/plain" } }, receiver: "nosuchgroup", receiverType: "group" });
    expect(noGroup.status).toBe(404);
    // A type that does not fit a header is kept as the generic one (and the file is still served).
    const odd = await api("superhero1", "POST", "/files/upload-url", { files: { o: { fileId: "o", name: "o.txt", size: 1, mimeType: "text/plain\r\nX-Evil: 1" } } });
    expect(odd.body.data.o.attachment.mimeType).toBe("application/octet-stream");
    const oddForm = new FormData();
    oddForm.append("file", new Blob(["o"]), "o.txt");
    expect((await fetch(odd.body.data.o.request.url, { method: "POST", body: oddForm })).status).toBe(204);
    const served = await fetch(odd.body.data.o.attachment.url);
    expect([served.status, served.headers.get("content-type"), served.headers.get("x-evil")]).toEqual([200, "application/octet-stream", null]);
    const malformed = await api("superhero1", "POST", "/files/upload-url", { files: { g: { fileId: "g" } } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe("ERR_BAD_REQUEST");
    expect((await fetch(`${client()}/files/upload/0123456789abcdef0123456789abcdef`, { method: "POST", body: new FormData() })).status).toBe(403);
    expect((await fetch(`${client()}/media/0123456789abcdef0123456789abcdef.png`)).status).toBe(404);
  });

  it("refuses a name that is not valid Unicode (a lone surrogate) with details; a well-formed one is served", async () => {
    for (const name of ["\ud800.txt", "a\udc00b.txt", "x\ud83d"]) {
      const refused = await api("superhero1", "POST", "/files/upload-url", { files: { s: { fileId: "s", name, size: 1, mimeType: "text/plain" } } });
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe("ERR_BAD_REQUEST");
      expect(refused.body.error.details).toEqual({ "files.s.name": ["The files.s.name must be valid Unicode text."] });
    }
    const fine = await api("superhero1", "POST", "/files/upload-url", { files: { s: { fileId: "s", name: "😀 ünï.txt", size: 1, mimeType: "text/plain" } } });
    const form = new FormData();
    form.append("file", new Blob(["s"]), "s.txt");
    expect((await fetch(fine.body.data.s.request.url, { method: "POST", body: form })).status).toBe(204);
    const served = await fetch(fine.body.data.s.attachment.url);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-disposition")).toBe(`inline; filename*=UTF-8''${encodeURIComponent("😀 ünï.txt")}`);
  });

  it("refuses an upload larger than the size declared to upload-url (413), and changes nothing", async () => {
    const asked = await api("superhero1", "POST", "/files/upload-url", { files: { d: { fileId: "d", name: "d.bin", size: 10, mimeType: "application/octet-stream" } } });
    const { request, attachment } = asked.body.data.d;
    expect(attachment.size).toBe(10);
    const big = new FormData();
    big.append("file", new Blob([Buffer.alloc(5 * 1024 * 1024, 1)]), "d.bin");
    const refused = await fetch(request.url, { method: "POST", body: big });
    expect(refused.status).toBe(413);
    expect((await refused.json()).error).toMatchObject({ code: "ERR_FILE_SIZE_EXCEEDED", message: "The file d.bin exceeds the maximum allowed size of 10 bytes." });
    expect((await fetch(attachment.url)).status).toBe(404);
    // The declared size itself (or less) is taken.
    const exact = new FormData();
    exact.append("file", new Blob([Buffer.alloc(10, 2)]), "d.bin");
    expect((await fetch(request.url, { method: "POST", body: exact })).status).toBe(204);
    const served = await fetch(attachment.url);
    expect([served.status, served.headers.get("content-length")]).toEqual([200, "10"]);
  });
});

describe("in process (app.request, as programmatic users and the test helpers call it)", () => {
  it("reads a multipart send from the Fetch body the same way", async () => {
    const token = await tokenOf("superhero1");
    const res = await emu.app.request(`http://localhost/${APP_ID}.apiclient-us/v3.0/messages`, {
      method: "POST",
      headers: { appid: APP_ID, authtoken: token },
      body: mediaForm("superhero2", new Blob([PNG], { type: "image/png" }), "inproc.png"),
    });
    expect(res.status).toBe(200);
    const url: string = (await res.json()).data.data.url;
    const file = await emu.app.request(url.replace(/^https?:\/\/[^/]+/, "http://localhost"));
    expect(Buffer.from(await file.arrayBuffer())).toEqual(PNG);
  });
});

describe("with --data", () => {
  it("keeps files in the folder named after the data file, and serves them again after a restart", async () => {
    const dir = tempDir("attachments");
    const data = join(dir, "state.json");
    const first = await startEmulator({ quiet: true, data });
    const token = (await (await fetch(`${first.url}/v3/users/superhero1/auth_tokens`, { method: "POST", headers: { apikey: REST_KEY, "content-type": "application/json" }, body: "{}" })).json()).data.authToken;
    const sent = await fetch(`${first.url}/${APP_ID}.apiclient-us/v3.0/messages`, {
      method: "POST",
      headers: { appid: APP_ID, authtoken: token },
      body: mediaForm("superhero2", new Blob([PNG], { type: "image/png" }), "kept.png"),
    });
    const url: string = (await sent.json()).data.data.url;
    await first.close();
    expect(readdirSync(join(dir, "state.json.files", APP_ID))).toHaveLength(2); // the bytes and their description
    expect(readdirSync(dir).sort()).toEqual(["state.json", "state.json.files"]);

    const second = await startEmulator({ quiet: true, data });
    try {
      const again = await fetch(url.replace(first.url, second.url));
      expect(again.status).toBe(200);
      expect(again.headers.get("content-type")).toBe("image/png");
      expect(Buffer.from(await again.arrayBuffer())).toEqual(PNG);
    } finally {
      await second.close();
    }
    expect(existsSync(data)).toBe(true);
  });
});
