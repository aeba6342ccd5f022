import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ChunkedArray, readDocumentFile, readDocumentStream } from "../src/store/state-reader.js";
import { emulator, expectError } from "./helpers.js";
import { tempDir } from "./tmp.helpers.js";

/** State files are read a run at a time, and loading one never calls with an argument per record (issue 35, item 2). */

/** The document with every ChunkedArray read out, to compare with JSON.parse. */
function materialized(doc: unknown): unknown {
  if (doc instanceof ChunkedArray) return doc.toArray();
  if (Array.isArray(doc)) return doc.map(materialized);
  if (typeof doc === "object" && doc !== null) return Object.fromEntries(Object.entries(doc).map(([k, v]) => [k, materialized(v)]));
  return doc;
}

describe("the state reader", () => {
  it("reads what JSON.parse reads, whatever pieces the bytes come in (strings with quotes, brackets, escapes, emoji)", async () => {
    const tricky = ['a "quoted" ], [ {', "back\\slash\\", "\\\\\"", "✅ 📍 ü", "comma, ] }", ""];
    const doc = {
      format: "chat-emulator/state@1",
      apps: [
        { app: { appId: "x", name: "[not an array]" }, users: tricky.map((name, i) => ({ uid: `u${i}`, name })), messages: [], tags: [[1, [2]], { "]": "[" }] },
        { app: { appId: "y" }, users: [ ] },
      ],
      births: [{ app: { appId: "x" }, roles: [{ role: "r", name: "}\\" }] }],
    };
    const file = join(tempDir("reader"), "doc.json");
    for (const text of [JSON.stringify(doc), JSON.stringify(doc, null, 2)]) {
      writeFileSync(file, text);
      for (const bytes of [1, 2, 7, 64, 1 << 20]) {
        expect(materialized(await readDocumentFile(file, {}, bytes))).toEqual(doc);
        // A request body: scanned as it arrives, in pieces of any size.
        const body = Buffer.from(text);
        const pieces = (async function* () {
          for (let at = 0; at < body.length; at += bytes) yield body.subarray(at, at + bytes);
        })();
        const { doc: read, dispose } = await readDocumentStream(pieces);
        expect(materialized(read)).toEqual(doc);
        await dispose();
      }
    }
  });

  it("refuses broken JSON, too deep nesting, and reads blank text as nothing", async () => {
    const file = join(tempDir("broken"), "doc.json");
    const read = (text: string, maxDepth?: number) => (writeFileSync(file, text), readDocumentFile(file, { maxDepth }));
    await expect(read('{"apps":[{"users":[1,2}]}')).rejects.toThrow("is not valid JSON");
    await expect(read('{"apps":[{"users":[1,')).rejects.toThrow("ends too early");
    await expect(read('{"a":[[[[1]]]]}', 4)).rejects.toThrow("is nested more than 4 levels deep");
    await expect(read(" \n ")).resolves.toBeUndefined();
  });
});

describe("a large state", () => {
  it("loads 200,000 messages from a data file, and exports them; PUT /_emulator/state reads them the same way", async () => {
    const count = 200_000;
    const users = [{ uid: "ann", name: "Ann" }, { uid: "bob", name: "Bob" }];
    const parts = [`{"format":"chat-emulator/state@1","apps":[{"app":{"appId":"big","name":"Big"},"users":${JSON.stringify(users)},"messages":[`];
    for (let i = 1; i <= count; i++) parts.push(`${i > 1 ? "," : ""}{"id":${i},"sender":"${i % 2 ? "ann" : "bob"}","receiver":"${i % 2 ? "bob" : "ann"}","data":{"text":"m${i}"},"sentAt":${1_700_000_000 + i}}`);
    parts.push("]}]}");
    const file = join(tempDir("big"), "state.json");
    writeFileSync(file, parts.join(""));

    const e = await emulator({ data: file, seed: "none" });
    try {
      expect(e.store.apps.get("big")!.messages.size).toBe(count);
      const exported = await e.app.request("http://localhost/_emulator/state");
      expect([exported.status, exported.headers.get("content-type")]).toEqual([200, "application/json"]);
      const text = await exported.text();
      expect(JSON.parse(text).apps[0].messages).toHaveLength(count);
      // Read through the same reader (the bench puts a million back): a bad record is refused with its path.
      const bad = await e.call("PUT", "/_emulator/state", { raw: text.replace('"sender":"bob"', '"sender":"Not Bob"'), headers: { "content-type": "application/json" } });
      expect(expectError(bad, 400, "ERR_BAD_REQUEST").details!.state[0]).toBe("state: apps[0].messages[1].sender may only contain letters, numbers and dashes");
      expect(e.store.apps.get("big")!.messages.size).toBe(count);
    } finally {
      e.persistence?.close();
    }
  }, 60_000);
});
