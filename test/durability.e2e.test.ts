import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startCli, type RunningCli } from "./cli.helpers.js";
import { MGMT, REST_KEY } from "./helpers.js";
import { round, type Write } from "./durability.workload.js";

const RUNS = 20;
const WORKERS = 4;

interface Acked {
  write: Write;
  ids: Record<string, string>;
  run: number;
}

/** Sends one write; resolves with its answer's body when it was answered with success, undefined otherwise. */
async function send(url: string, w: Write, ids: Record<string, string>): Promise<any> {
  const r = w.request(ids);
  const headers: Record<string, string> = r.path.startsWith("/apimgmt") ? { ...MGMT } : { apikey: REST_KEY };
  if (r.onBehalfOf) headers.onBehalfOf = r.onBehalfOf;
  if (r.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(url + r.path, { method: r.method, headers, body: r.body === undefined ? undefined : JSON.stringify(r.body) });
  const text = await res.text();
  return res.status < 300 ? JSON.parse(text) : undefined;
}

/** Workers sending rounds of writes until the process dies; every write answered with success is kept in `acked`. */
function writeUntilKilled(cli: RunningCli, run: number, acked: Acked[]): Promise<void> {
  const worker = async (n: number) => {
    for (let r = 0; ; r++) {
      const ids: Record<string, string> = {};
      for (const w of round(`k${run}w${n}r${r}`)) {
        let body: any;
        try {
          body = await send(cli.url, w, ids);
        } catch {
          return; // the connection died with the process
        }
        if (body === undefined) continue; // refused (an app-wide limit reached): not acknowledged
        w.keep?.(body, ids);
        acked.push({ write: w, ids: { ...ids }, run });
      }
    }
  };
  return Promise.all(Array.from({ length: WORKERS }, (_, n) => worker(n))).then(() => undefined);
}

describe("--data: kill -9 during concurrent writes of every kind of state", () => {
  it(`loses no acknowledged write in ${RUNS} kills at random moments, and every file loads`, async () => {
    const dir = mkdtempSync(join(tmpdir(), "chat-emulator-kill-"));
    const data = join(dir, "state.json");
    const acked: Acked[] = [];
    const start = (run: number) =>
      // Every third run with --fsync (by flag or by its variable): the same guarantee, synced to the disk.
      startCli(["--data", data, ...(run % 3 === 1 ? ["--fsync"] : [])], run % 3 === 2 ? { CHAT_EMULATOR_FSYNC: "1" } : {});
    let cli = await start(0);
    for (let run = 0; run < RUNS; run++) {
      const writing = writeUntilKilled(cli, run, acked);
      await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 250));
      cli.child.kill("SIGKILL");
      await cli.exited;
      await writing;
      // The restart loads the file and replays the log (a start that fails to load rejects here).
      cli = await start(run + 1);
      const state = await (await fetch(`${cli.url}/_emulator/state`)).json();
      const app = state.apps[0];
      const lost = acked.filter((a) => !a.write.found(app, a.ids)).map((a) => `run ${a.run}: ${a.write.name} ${JSON.stringify(a.ids)}`);
      // On a loss, what the replaying process said (a taken-over lock, a torn last line, a NUL gap) says where it went.
      expect(lost, `acknowledged writes lost after kill ${run}; the restart said: ${cli.stderr() || "nothing"}`).toEqual([]);
    }
    expect(acked.length).toBeGreaterThan(RUNS * WORKERS);
    await cli.stop("SIGKILL");
  }, 60_000);
});
