import { mkdtempSync, readFileSync, watch } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { REST_KEY } from "./helpers.js";
import { startClisPerTest, type RunningCli } from "./cli.helpers.js";

const start = startClisPerTest();

// 4 KB texts: the data file grows by a few MB per round, so writing it takes long enough for kills to land mid-write.
const TEXT = "x".repeat(4096);

/**
 * Four clients sending messages back to back until told to stop or the server goes; returns acknowledged ids
 * (`acknowledged` fills as they come).
 */
function writeUntil(cli: RunningCli, stop: { now: boolean }, acknowledged: string[] = []): Promise<string[]> {
  const client = async () => {
    while (!stop.now) {
      const r = await fetch(`${cli.url}/v3/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", apikey: REST_KEY, onBehalfOf: "superhero1" },
        body: JSON.stringify({ receiver: "superhero2", receiverType: "user", data: { text: TEXT } }),
      }).catch(() => null);
      if (!r) return;
      const body = await r.json().catch(() => null);
      if (r.status === 200) acknowledged.push(String(body.data.id));
    }
  };
  return Promise.all([client(), client(), client(), client()]).then(() => acknowledged);
}

const storedMessageIds = (file: string) =>
  new Set<string>(JSON.parse(readFileSync(file, "utf8")).apps[0].messages.map((m: { id: number | string }) => String(m.id)));

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** At least `ms`, and until `n` writes are acknowledged (a busy machine answers the first ones late). */
async function writeFor(ms: number, acknowledged: string[], n: number): Promise<void> {
  await pause(ms);
  while (acknowledged.length < n) await pause(10);
}

/** Resolves as soon as anything happens to a file in the data file's folder: a save is under way or just done. */
function nextSave(file: string): Promise<void> {
  return new Promise((resolve) => {
    const watcher = watch(dirname(file), () => {
      watcher.close();
      resolve();
    });
  });
}

describe("--data durability", () => {
  it("a kill -9 at any moment of persisted writes leaves a data file that loads", async () => {
    const data = join(mkdtempSync(join(tmpdir(), "chat-emulator-")), "state.json");
    let stored = 0;
    // Kills at set moments, and kills the moment the folder changes (so that some land in the middle of a save).
    for (const [afterMs, inSave] of [[150, false], [200, true], [400, false], [300, true], [250, true]] as const) {
      const cli = await start(["--data", data]); // starts only if the file the previous kill left loads
      const stop = { now: false };
      const acked: string[] = [];
      const writing = writeUntil(cli, stop, acked);
      await writeFor(afterMs, acked, 1);
      if (inSave) await nextSave(data);
      await cli.stop("SIGKILL");
      stop.now = true;
      expect((await writing).length).toBeGreaterThan(0);
      const ids = storedMessageIds(data); // whole, valid JSON: the old file or the new one, never a torn one
      expect(ids.size).toBeGreaterThanOrEqual(stored);
      stored = ids.size;
    }
    expect(stored).toBeGreaterThan(0);
  }, 30_000);

  it("a clean stop in the middle of writes keeps every acknowledged write", async () => {
    const data = join(mkdtempSync(join(tmpdir(), "chat-emulator-")), "state.json");
    const cli = await start(["--data", data]);
    const stop = { now: false };
    const acked: string[] = [];
    const writing = writeUntil(cli, stop, acked);
    await writeFor(300, acked, 11);
    expect(await cli.stop("SIGTERM")).toBe(0);
    stop.now = true;
    const acknowledged = await writing;
    expect(acknowledged.length).toBeGreaterThan(10);
    const ids = storedMessageIds(data);
    expect(acknowledged.filter((id) => !ids.has(id))).toEqual([]);

    const again = await start(["--data", data]);
    const r = await fetch(`${again.url}/v3/messages/${acknowledged.at(-1)}`, { headers: { apikey: REST_KEY } });
    expect(r.status).toBe(200);
    expect((await r.json()).data.data.text).toBe(TEXT);
  }, 30_000);
});
