import { describe, expect, it } from "vitest";
import { Journal, MAX_JOURNAL_SIZE, type Recorded } from "../src/control/journal.js";

const entry = (id: number, responseText: string): Recorded => ({
  id,
  timeMs: id,
  method: "GET",
  plane: "rest",
  appId: "a",
  url: `http://localhost/v3/users?page=${id}`,
  headers: ["apikey", "k"],
  requestText: null,
  status: 200,
  responseText,
  durationMs: 1,
  rules: [],
});

describe("journal memory", () => {
  it("stays within about 20 KiB per entry of its size under any mix of sizes", () => {
    const journal = new Journal(1000);
    let peak = 0;
    for (let i = 1; i <= 20_000; i++) {
      // Mixed traffic: small answers, 64 KB pages, and sizes that keep changing.
      const size = i % 3 === 0 ? 64 * 1024 : i % 3 === 1 ? 100 : (i * 7919) % (100 * 1024);
      journal.record(entry(i, "x".repeat(size)));
      peak = Math.max(peak, journal.bytes);
    }
    expect(peak).toBeLessThanOrEqual(1024 * 4096 + 1000 * 16 * 1024); // slots come 64 at a time
    // The newest entries keep their bodies; the oldest large ones say what they held.
    const [newest] = journal.list({ limit: 1 });
    expect(newest.responseBody).toBe("x".repeat((20_000 * 7919) % (100 * 1024)));
    expect(journal.list().some((e) => String(e.responseBody).includes("dropped to keep the journal within its memory budget"))).toBe(true);
  });

  it("keeps long bodies intact for the newest entries and drops only the oldest ones", () => {
    const journal = new Journal(1000);
    // Sizes that do not divide the log's 1 MiB chunks, so texts keep meeting a chunk's end; non-ASCII in each.
    const body = (i: number) => `${i}é`.padEnd(40_000 + ((i * 7919) % 20_000), String.fromCharCode(97 + (i % 26)));
    for (let i = 1; i <= 1000; i++) journal.record(entry(i, body(i)));
    const entries = journal.list(); // oldest first
    const kept = entries.map((e) => e.responseBody === body(Number(e.id)));
    const firstKept = kept.indexOf(true);
    expect(firstKept).toBeGreaterThan(0); // the oldest were written over...
    expect(kept.slice(firstKept).every(Boolean)).toBe(true); // ...and every later one reads back exactly
    expect(1000 - firstKept).toBeGreaterThan(200); // about 15 MiB of ~50 KB bodies
    // The others say so: never another entry's bytes.
    for (const e of entries.slice(0, firstKept))
      expect(e.responseBody).toBe(`[${Buffer.byteLength(body(Number(e.id)))} bytes, dropped to keep the journal within its memory budget]`);
  });

  it("keeps any one entry even in a tiny journal, and refuses sizes over the maximum", () => {
    const journal = new Journal(2);
    for (let i = 1; i <= 50; i++) journal.record(entry(i, "y".repeat(150 * 1024)));
    expect(journal.bytes).toBeLessThanOrEqual(2 * 4096 + 1024 * 1024);
    expect(journal.list().map((e) => String(e.responseBody).length)).toEqual([150 * 1024, 150 * 1024]);
    expect(() => new Journal(MAX_JOURNAL_SIZE + 1)).toThrow(/journalSize must be a whole number from 0 to 20000/);
  });
});
