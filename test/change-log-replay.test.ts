import { appendFileSync, copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { Persistence, PersistenceError } from "../src/store/persistence.js";
import { APP_ID, emulator } from "./helpers.js";
import { tempDir } from "./tmp.helpers.js";

/**
 * What the replay of a change log does with what it cannot apply (docs/durability.md, "What a replay cannot
 * apply"): it refuses the start and leaves every file as it was; only a torn last line is skipped; --recover sets
 * the rest aside byte for byte.
 */

const opened: Persistence[] = [];
afterEach(() => {
  for (const p of opened.splice(0)) p.close();
});

async function open(dir: string, opts: { recover?: boolean; log?: (line: string) => void } = {}) {
  const e = await emulator();
  const persistence = await Persistence.open(join(dir, "state.json"), e.store, { now: e.clock.now(), delayMs: 1e9, ...opts });
  e.emulator.persistence = persistence;
  opened.push(persistence);
  return { e, persistence };
}

/** A folder with a checkpoint and a change log of three user creations (`a1`..`a3`), as a kill -9 leaves it. */
async function killedWithLog(): Promise<string> {
  const dir = tempDir("replay");
  const { e, persistence } = await open(dir);
  await persistence.flush(); // a checkpoint first: the log then holds only what follows
  for (const uid of ["a1", "a2", "a3"]) {
    expect((await e.post("/v3/users", { uid, name: uid })).status).toBe(200);
    await persistence.hold();
  }
  const copy = tempDir("replay-killed");
  for (const name of readdirSync(dir)) if (!name.endsWith(".lock")) copyFileSync(join(dir, name), join(copy, name));
  persistence.close();
  return copy;
}

const logOf = (dir: string) => join(dir, readdirSync(dir).find((n) => n.includes(".changes-"))!);

/** Every file of a folder and its bytes. */
function files(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir)) out[name] = readFileSync(join(dir, name)).toString("base64");
  return out;
}

async function refusal(dir: string, opts: { recover?: boolean } = {}): Promise<string> {
  const before = files(dir);
  const error = await open(dir, opts).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PersistenceError);
  expect(files(dir)).toEqual(before);
  return (error as Error).message;
}

async function uids(dir: string, opts: { recover?: boolean; log?: (line: string) => void } = {}) {
  const { e } = await open(dir, opts);
  const list = await e.get("/v3/users?perPage=100");
  return (list.body.data as { uid: string }[]).map((u) => u.uid).filter((u) => /^a\d$/.test(u)).sort();
}

describe("change-log replay", () => {
  it("starts every log file with its format line", async () => {
    const dir = await killedWithLog();
    expect(readFileSync(logOf(dir), "utf8").split("\n")[0]).toBe('{"format":"chat-emulator/changes@1"}');
    expect(await uids(dir)).toEqual(["a1", "a2", "a3"]);
  });

  it("reads a log without a format line (written before formats were numbered)", async () => {
    const dir = await killedWithLog();
    const log = logOf(dir);
    writeFileSync(log, readFileSync(log, "utf8").split("\n").slice(1).join("\n"));
    expect(await uids(dir)).toEqual(["a1", "a2", "a3"]);
  });

  it("refuses a log of a newer format, touching nothing", async () => {
    const dir = await killedWithLog();
    const log = logOf(dir);
    writeFileSync(log, readFileSync(log, "utf8").replace("changes@1", "changes@2"));
    expect(await refusal(dir)).toMatch(/written by a newer chat-emulator .*start it with that version/);
    expect(await refusal(dir, { recover: true })).toMatch(/newer chat-emulator/);
  });

  it("refuses a state file of a newer format", async () => {
    const dir = tempDir("newer-state");
    writeFileSync(join(dir, "state.json"), JSON.stringify({ format: "chat-emulator/state@2", apps: [] }));
    expect(await refusal(dir)).toMatch(/written by a newer chat-emulator \(format chat-emulator\/state@2; this version reads chat-emulator\/state@1\)/);
  });

  const cases: [string, string, RegExp][] = [
    ["an unknown kind of change", '[["bogus","62c95aeb231ec058",1]]', /change 1 is of an unknown kind "bogus" \(written by a newer chat-emulator\?\)/],
    ["a change for an app that does not exist", '[["set","nosuchapp","users",[]]]', /names app "nosuchapp", which the state does not have/],
    ["[null]", "[null]", /change 1 is not a change record/],
    ["a line that is not a list", '{"a":1}', /it is not a list of changes/],
    ["a malformed change", `[["messages","${APP_ID}",5,[]]]`, /change 1 \(messages\) is malformed/],
    ["a malformed campaigns change", `[["campaigns","${APP_ID}",{"events":[1]}]]`, /change 1 \(campaigns\) is malformed/],
    ["members of a group that does not exist", `[["people","${APP_ID}","nogroup",[],[]]]`, /names group "nogroup"/],
    ["a part of an app of the wrong shape", `[["set","${APP_ID}","users","oops"]]`, /with it, the state does not load: apps\[\d+\]\.users must be an array/],
    ["a record the state file would refuse", `[["set","${APP_ID}","users",[{"uid":"no spaces"}]]]`, /with it, the state does not load: apps\[\d+\]\.users\[0\]\./],
  ];
  for (const [what, line, why] of cases)
    it(`refuses ${what} (exit 2 in the CLI), naming the file and line, touching nothing`, async () => {
      const dir = await killedWithLog();
      const log = logOf(dir);
      appendFileSync(log, line + "\n");
      const lines = readFileSync(log, "utf8").split("\n").length - 1;
      const message = await refusal(dir);
      expect(message).toContain(`${log}, line ${lines}: cannot be applied (`);
      expect(message).toMatch(why);
      expect(message).toMatch(/Nothing was changed; --recover moves what cannot be applied aside/);
    });

  it("refuses a damaged line in the middle of a log, and a damaged last line that has its end of line", async () => {
    const dir = await killedWithLog();
    const log = logOf(dir);
    const lines = readFileSync(log, "utf8").split("\n");
    writeFileSync(log, [...lines.slice(0, 2), "[[\"set\",\"x", ...lines.slice(2)].join("\n"));
    expect(await refusal(dir)).toMatch(/line 3: cannot be applied \(it is not JSON\)/);

    const dir2 = await killedWithLog();
    const next = readFileSync(logOf(dir2), "utf8").split("\n").length;
    appendFileSync(logOf(dir2), '[["set","' + APP_ID + '","users",[{"uid":"half\n');
    expect(await refusal(dir2)).toMatch(new RegExp(`line ${next}: cannot be applied \\(it is not JSON\\)`));
  });

  it("skips a torn last line without its end of line, and says so", async () => {
    const dir = await killedWithLog();
    const next = readFileSync(logOf(dir), "utf8").split("\n").length;
    appendFileSync(logOf(dir), '[["set","' + APP_ID + '","users",[{"uid":"half');
    const lines: string[] = [];
    expect(await uids(dir, { log: (l) => lines.push(l) })).toEqual(["a1", "a2", "a3"]);
    expect(lines).toEqual([expect.stringMatching(new RegExp(`the last line \\(${next}, \\d+ bytes\\)`))]);
    expect(lines[0]).toMatch(/ has no end of line: a crash cut it off while it was written, before its request was answered; it is ignored/);
  });

  it("--recover moves what cannot be applied to FILE.damaged-N byte for byte, applies the rest and says so", async () => {
    const dir = await killedWithLog();
    const log = logOf(dir);
    const lines = readFileSync(log).toString("latin1").split("\n");
    const bad1 = '[["bogus","62c95aeb231ec058",1]]';
    const bad2 = "\xff\xfe not json";
    // The damaged lines stand between a2 and a3: a3 is still applied.
    writeFileSync(log, Buffer.from([...lines.slice(0, 3), bad1, bad2, ...lines.slice(3)].join("\n"), "latin1"));
    await refusal(dir);
    const said: string[] = [];
    expect(await uids(dir, { recover: true, log: (l) => said.push(l) })).toEqual(["a1", "a2", "a3"]);
    expect(readFileSync(join(dir, "state.json.damaged-1"))).toEqual(Buffer.from(`${bad1}\n${bad2}\n`, "latin1"));
    expect(said.join("\n")).toMatch(/--recover: 2 change-log line\(s\) that cannot be applied were moved to .*state\.json\.damaged-1, byte for byte, and left out: state\.json\.changes-\d+ line 4 \(change 1 is of an unknown kind "bogus"/);
    // The checkpoint holds the rest; the log is retired, the damaged lines stay beside the file.
    expect(readdirSync(dir).filter((n) => n.includes(".changes-"))).toEqual([]);
    expect(readdirSync(dir)).toContain("state.json.damaged-1");
  });

  it("--recover sets aside a line with which the state does not load, among others, and keeps the lines after it", async () => {
    const dir = await killedWithLog();
    const log = logOf(dir);
    const lines = readFileSync(log, "utf8").split("\n");
    const oops = `[["set","${APP_ID}","users","oops"]]`;
    const later = `[["set","${APP_ID}","users",[{"uid":"no spaces"}]]]`;
    // a1 | oops | a2 | bogus | later | a3: only a line after a bad one can undo it; a2 and a3 still apply.
    writeFileSync(log, [lines[0], lines[1], oops, lines[2], '[["bogus"]]', later, ...lines.slice(3)].join("\n"));
    // Lines that cannot be applied at all are found first, in the replay; the lines the state does not load with, after it.
    expect(await refusal(dir)).toContain(`${log}, line 5: cannot be applied (change 1 is of an unknown kind "bogus"`);
    const said: string[] = [];
    expect(await uids(dir, { recover: true, log: (l) => said.push(l) })).toEqual(["a1", "a2", "a3"]);
    expect(readFileSync(join(dir, "state.json.damaged-1"), "utf8")).toBe(`${oops}\n[["bogus"]]\n${later}\n`);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/--recover: 3 change-log line\(s\) .* line 3 \(with it, the state does not load: .*users must be an array\); .* line 5 \(change 1 .*; .* line 6 \(with it, the state does not load: /);
  });

  it("any bytes written into or appended to a log: a load or a clear refusal, never a stack trace or a lost line", async () => {
    const base = await killedWithLog();
    const log = logOf(base);
    const original = readFileSync(log);
    const scratch = mkdtempSync(join(tmpdir(), "chat-emulator-replay-prop-"));
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.uint8Array({ maxLength: 64 }),
          fc.nat({ max: original.length }),
          fc.boolean(),
          fc.constantFrom("", "\n", "[null]\n", '[["set"]]\n', "[[]]\n"),
          async (noise, at, append, tail) => {
            const bytes = append
              ? Buffer.concat([original, Buffer.from(noise), Buffer.from(tail)])
              : Buffer.concat([original.subarray(0, at), Buffer.from(noise), original.subarray(at), Buffer.from(tail)]);
            for (const name of readdirSync(scratch)) rmSync(join(scratch, name), { force: true, recursive: true });
            for (const name of readdirSync(base)) copyFileSync(join(base, name), join(scratch, name));
            writeFileSync(join(scratch, log.slice(base.length + 1)), bytes);
            const before = files(scratch);
            const outcome = await open(scratch).then(
              (p) => {
                p.persistence.close();
                return "loaded";
              },
              (e: unknown) => e,
            );
            if (outcome === "loaded") return;
            expect(outcome).toBeInstanceOf(PersistenceError);
            expect((outcome as Error).message).toMatch(/^\S.*(cannot be applied|newer chat-emulator|cannot be read|left untouched)/);
            expect(files(scratch)).toEqual(before);
          },
        ),
        { numRuns: 60 },
      );
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

