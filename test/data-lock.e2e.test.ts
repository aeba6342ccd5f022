import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { BIN, runCli, startClisPerTest, type RunningCli } from "./cli.helpers.js";
import { APP_ID, REST_KEY } from "./helpers.js";
import { tempDir } from "./tmp.helpers.js";
import { acquireDataLock } from "../src/store/data-lock.js";

/** One process owns a data file (docs/durability.md, "One owner per data file"), with the real CLI. */

const start = startClisPerTest();

/** Every file of a folder with its size and modification time: what "touches nothing" compares. */
function listing(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir)) {
    const st = statSync(join(dir, name));
    out[name] = `${st.size}@${st.mtimeMs}`;
  }
  return out;
}

/** Waits until the owner's checkpoint has retired its change logs (it would change the folder meanwhile). */
async function checkpointed(dir: string) {
  for (let i = 0; i < 100 && readdirSync(dir).some((n) => n.includes(".changes-")); i++) await new Promise((r) => setTimeout(r, 50));
}

async function createUser(url: string, uid: string) {
  const res = await fetch(`${url}/v3/users`, {
    method: "POST",
    headers: { apikey: REST_KEY, "content-type": "application/json" },
    body: JSON.stringify({ uid, name: uid }),
  });
  expect(res.status).toBe(200);
}

describe("one owner per data file", () => {
  it("refuses a second emulator on the same file at once, exit 2, touching nothing, and names the owner", async () => {
    const dir = tempDir("lock-two");
    const data = join(dir, "S.json");
    const first = await start(["--data", data]);
    for (let i = 0; i < 5; i++) await createUser(first.url, `u${i}`);
    await checkpointed(dir);
    const before = listing(dir);
    expect(Object.keys(before)).toContain("S.json.lock");
    expect(JSON.parse(readFileSync(join(dir, "S.json.lock"), "utf8")).pid).toBe(first.child.pid);

    const second = await runCli(["--data", data, "--port", "0"]);
    expect(second.code).toBe(2);
    const lines = second.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(data);
    expect(lines[0]).toContain(`pid ${first.child.pid}`);
    expect(lines[0]).toMatch(/stop that one first, or give this one another --data file/);
    expect(listing(dir)).toEqual(before);

    // The first one still owns it: its writes go on and survive a restart.
    await createUser(first.url, "after");
    await first.stop("SIGTERM");
    expect(readdirSync(dir)).not.toContain("S.json.lock");
    const again = await start(["--data", data]);
    const res = await fetch(`${again.url}/v3/users/after`, { headers: { apikey: REST_KEY } });
    expect(res.status).toBe(200);
  });

  it("a second start on a port in use replays and deletes nothing of the running one's files", async () => {
    const dir = tempDir("lock-port");
    const other = tempDir("lock-port-other");
    const data = join(dir, "S.json");
    const first = await start(["--data", data]);
    await createUser(first.url, "kept");
    const port = new URL(first.url).port;
    // A different data file, so that the lock passes and the bind fails: nothing beside it may be written.
    const otherData = join(other, "T.json");
    writeFileSync(join(other, "T.json.changes-1"), "");
    const before = listing(other);
    const second = await runCli(["--data", otherData, "--port", port]);
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/already in use/);
    const after = listing(other);
    expect(after).toEqual(before); // the lock is given up again; the log was neither replayed nor deleted
  });

  it("takes over the lock a killed emulator left, saying so in one line, and loses no acknowledged write", async () => {
    const dir = tempDir("lock-stale");
    const data = join(dir, "S.json");
    const first = await start(["--data", data]);
    for (let i = 0; i < 10; i++) await createUser(first.url, `k${i}`);
    await first.stop("SIGKILL");
    expect(readdirSync(dir)).toContain("S.json.lock");

    const again = await start(["--data", data]);
    expect(again.stderr()).toMatch(new RegExp(`took over the lock of .*S\\.json left by pid ${first.child.pid}, which is no longer running`));
    for (let i = 0; i < 10; i++) expect((await fetch(`${again.url}/v3/users/k${i}`, { headers: { apikey: REST_KEY } })).status).toBe(200);
    expect(JSON.parse(readFileSync(join(dir, "S.json.lock"), "utf8")).pid).toBe(again.child.pid);
  });

  it("lets one of three emulators started at once on a fresh file serve; the others refuse", async () => {
    const data = join(tempDir("lock-at-once"), "S.json");
    const started = await Promise.allSettled([0, 1, 2].map(() => start(["--data", data])));
    const serving = started.filter((s) => s.status === "fulfilled");
    expect(serving).toHaveLength(1);
    for (const s of started)
      if (s.status === "rejected") expect(String(s.reason)).toMatch(/CLI exited with 2: .*is in use by another chat-emulator \(pid \d+/s);
    await createUser((serving[0] as PromiseFulfilledResult<RunningCli>).value.url, "one");
  });

  it.runIf(existsSync("/proc/self/stat"))("takes over the lock of a killed owner that its parent has not reaped (a zombie)", async () => {
    const dir = tempDir("lock-zombie");
    const data = join(dir, "S.json");
    // sh starts the emulator in the background, then becomes `sleep`, which never reaps it.
    const parent = spawn("sh", ["-c", '"$NODE" "$BIN" --port 0 --data "$DATA" >/dev/null 2>&1 & exec sleep 30'], {
      env: { ...process.env, NODE: process.execPath, BIN, DATA: data },
      stdio: "ignore",
    });
    onTestFinished(() => void parent.kill("SIGKILL"));
    const lock = `${data}.lock`;
    for (let i = 0; i < 200 && !existsSync(lock); i++) await sleep(50);
    const pid = JSON.parse(readFileSync(lock, "utf8")).pid as number;
    process.kill(pid, "SIGKILL");
    const state = () => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1][0];
    for (let i = 0; i < 100 && state() !== "Z"; i++) await sleep(20);
    expect(state()).toBe("Z");

    const again = await start(["--data", data]);
    expect(again.stderr()).toMatch(new RegExp(`took over the lock of .*S\\.json left by pid ${pid}, which is no longer running`));
    await createUser(again.url, "after-zombie");
  });

  it.runIf(existsSync("/proc/self/cmdline"))("says what a live process a lock names is when it is not a chat-emulator, and what to do", async () => {
    const dir = tempDir("lock-other");
    const data = join(dir, "S.json");
    const sleeper = spawn("sleep", ["30"], { stdio: "ignore" });
    onTestFinished(() => void sleeper.kill("SIGKILL"));
    writeFileSync(`${data}.lock`, JSON.stringify({ pid: sleeper.pid, since: "2026-01-02T03:04:05.000Z" }));
    const before = listing(dir);
    const refused = await runCli(["--data", data, "--port", "0"]);
    expect(refused.code).toBe(2);
    const lines = refused.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(
      `chat-emulator: ${data} is locked by pid ${sleeper.pid}, which runs "sleep 30": not a chat-emulator, as far as its command line shows ` +
        `(lock ${data}.lock, taken 2026-01-02T03:04:05.000Z). If no chat-emulator uses ${data} (a lock copied with the folder, or its pid reused), ` +
        `delete ${data}.lock and start again; otherwise stop that process first, or give this one another --data file.`,
    );
    expect(listing(dir)).toEqual(before);
  });

  it("refuses export targets that are another emulator's data file, the seed or the import, or the data file", async () => {
    const dir = tempDir("lock-export");
    const data = join(dir, "S.json");
    const owner = await start(["--data", data]);
    await createUser(owner.url, "mine");
    await checkpointed(dir);
    const before = listing(dir);

    const exported = await runCli(["export", "--url", owner.url, "--out", data]);
    expect(exported.code).toBe(2);
    expect(exported.stderr).toMatch(/is the data file of a running chat-emulator \(pid \d+\)/);
    const onExit = await runCli(["--port", "0", "--export-on-exit", data]);
    expect(onExit.code).toBe(2);
    expect(onExit.stderr).toMatch(/is the data file of a running chat-emulator/);
    expect(listing(dir)).toEqual(before);

    const seed = join(dir, "seed.json");
    const seedText = JSON.stringify({ apps: [{ app: { appId: APP_ID, name: "A" } }] });
    writeFileSync(seed, seedText);
    for (const flag of ["--seed", "--import"]) {
      const refused = await runCli(["--port", "0", flag, seed, "--export-on-exit", seed]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/is the file the state is seeded or imported from/);
    }
    expect(readFileSync(seed, "utf8")).toBe(seedText);
    const own = await runCli(["--port", "0", "--data", join(dir, "own.json"), "--export-on-exit", join(dir, "own.json")]);
    expect(own.code).toBe(2);
    expect(own.stderr).toMatch(/is the --data file, which is saved anyway/);
  });

  it("does not quote a refused seed file's content", async () => {
    const dir = tempDir("seed-quote");
    const seed = join(dir, "secret.json");
    writeFileSync(seed, "hello secret-token-1234 and more");
    const refused = await runCli(["--port", "0", "--seed", seed]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/is not valid JSON \(unexpected content/);
    expect(refused.stderr.replace(seed, "")).not.toMatch(/hello|token|more/);
  });
});

/**
 * The lock function itself under races: worker processes (the built module, dist/) are released at one signal to
 * take the same lock, round after round, on a fresh file, over a stale lock of a stopped process, and over a
 * partial one a process killed while writing it left. Exactly one of them may hold it each round.
 */
describe("taking the lock under races", () => {
  const WORKERS = 6;
  const workers: ChildProcess[] = [];
  let deadPid = 0;
  const LOCK_MODULE = new URL("../dist/store/data-lock.js", import.meta.url).href;
  const WORKER = `
    const { acquireDataLock } = await import(${JSON.stringify(LOCK_MODULE)});
    process.on("message", async (data) => {
      let taken;
      try {
        await acquireDataLock(data, (line) => process.stderr.write(line.includes("took over") ? "" : line + "\\n"));
        taken = "held";
      } catch (e) {
        taken = e.message;
      }
      process.send(taken);
    });
    process.send("ready");`;

  beforeAll(async () => {
    const gone = spawn(process.execPath, ["-e", ""]);
    deadPid = gone.pid!;
    await new Promise((r) => gone.on("exit", r));
    const ready: Promise<unknown>[] = [];
    for (let i = 0; i < WORKERS; i++) {
      const w = spawn(process.execPath, ["--input-type=module", "-e", WORKER], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
      workers.push(w);
      ready.push(new Promise((r) => w.once("message", r)));
    }
    await Promise.all(ready);
  });
  afterAll(() => {
    for (const w of workers) w.kill("SIGKILL");
  });

  /** One round: every worker is sent the file in the same turn; resolves with what each answered. */
  function round(data: string): Promise<string[]> {
    const answers = workers.map((w) => new Promise<string>((r) => w.once("message", (m) => r(String(m)))));
    for (const w of workers) w.send(data);
    return Promise.all(answers);
  }

  async function rounds(dir: string, n: number, before: (lock: string) => void) {
    let twice = 0;
    for (let i = 0; i < n; i++) {
      const data = join(dir, `S${i}.json`);
      before(`${data}.lock`);
      const answers = await round(data);
      const holders = answers.filter((a) => a === "held").length;
      if (holders !== 1) twice++;
      for (const a of answers) if (a !== "held") expect(a).toMatch(/is in use by another chat-emulator \(pid \d+/);
      // The lock names the one holder, and nothing was left beside it.
      expect(readdirSync(dir).filter((name) => name.startsWith(`S${i}.json`))).toEqual([`S${i}.json.lock`]);
    }
    expect(twice).toBe(0);
  }

  it("gives a fresh file to exactly one of six processes released at once, in every one of 150 rounds", async () => {
    await rounds(tempDir("lock-race-fresh"), 150, () => {});
  });

  it("lets exactly one of six take over the lock of a stopped process, in every one of 150 rounds", async () => {
    const stale = JSON.stringify({ pid: deadPid, started: "1", since: new Date().toISOString(), nonce: "0" });
    const takeover = `takeover-${createHash("sha256").update(stale).digest("hex").slice(0, 16)}`;
    let n = 0;
    await rounds(tempDir("lock-race-stale"), 150, (lock) => {
      writeFileSync(lock, stale);
      // Every other round, a taker of that lock was killed while taking it over: its takeover file is stale too.
      if (n++ % 2) writeFileSync(`${lock}.${takeover}`, stale.replace('"0"', '"1"'));
    });
  });

  it("waits for a partial lock younger than two seconds: taken over once it is that old, respected once it is whole", async () => {
    const dir = tempDir("lock-partial-young");
    const data = join(dir, "S.json");
    const lock = `${data}.lock`;
    const young = (Date.now() - 1800) / 1000;
    writeFileSync(lock, "");
    utimesSync(lock, young, young);
    const said: string[] = [];
    const started = Date.now();
    const taken = await acquireDataLock(data, (line) => said.push(line));
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    expect(said).toEqual([`chat-emulator: took over the lock of ${data} left by a process that stopped while taking it.`]);
    expect(JSON.parse(readFileSync(lock, "utf8")).pid).toBe(process.pid);
    taken.release();
    expect(existsSync(lock)).toBe(false);

    // Written whole meanwhile by a live process: refused, not taken over.
    writeFileSync(lock, "");
    const refused = acquireDataLock(data, () => {});
    setTimeout(() => writeFileSync(lock, JSON.stringify({ pid: process.ppid })), 100);
    await expect(refused).rejects.toThrow(new RegExp(`(in use by another chat-emulator|is locked by) \\(?pid ${process.ppid}\\b`));
  });

  it("takes over a partial lock once it is older than a write of it takes, one of six, in every one of 50 rounds", async () => {
    const old = Date.now() / 1000 - 60;
    await rounds(tempDir("lock-race-partial"), 50, (lock) => {
      writeFileSync(lock, '{"pid":');
      utimesSync(lock, old, old);
    });
  });
});
