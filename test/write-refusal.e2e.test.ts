import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { APP_ID, MGMT, REST_KEY } from "./helpers.js";
import { startClisPerTest, type RunningCli } from "./cli.helpers.js";
import { tempDir } from "./tmp.helpers.js";

/**
 * --data: a write the change log cannot hold is refused (503 ERR_STORAGE_UNAVAILABLE), changes nothing and sends no
 * event; reads go on; writes resume once the folder can be written; what is acknowledged then survives a kill -9.
 * The tests run as root, whom folder permissions do not stop: an immutable folder (chattr +i) stands for a
 * read-only one, and a small tmpfs filled up for a full disk. Where the system does not allow them, the test says so
 * and is skipped.
 */
const start = startClisPerTest();

/** Whether `cmd args` works here (a probe on a folder of our own); the reason it does not, otherwise. */
function unavailable(probe: (dir: string) => void): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), "chat-emulator-probe-"));
  try {
    probe(dir);
    return undefined;
  } catch (e) {
    return (e as Error).message.split("\n")[0];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const run = (cmd: string, ...args: string[]) => execFileSync(cmd, args, { stdio: ["ignore", "ignore", "pipe"] });
const noChattr = unavailable((dir) => {
  run("chattr", "+i", dir);
  run("chattr", "-i", dir);
});
const noMount = unavailable((dir) => {
  run("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir);
  run("umount", dir);
});

const until = async (check: () => Promise<boolean>, ms = 5000) => {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 25));
  }
};
const json = { apikey: REST_KEY, "content-type": "application/json" };
const createUser = (url: string, uid: string) => fetch(`${url}/v3/users`, { method: "POST", headers: json, body: JSON.stringify({ uid, name: uid }) });
const userStatus = async (url: string, uid: string) => (await fetch(`${url}/v3/users/${uid}`, { headers: { apikey: REST_KEY } })).status;
const health = async (url: string) => (await fetch(`${url}/_emulator/health`)).status;

/** The refusal: 503, the emulator's code, naming the change log and the cause. */
async function expectRefused(res: Response, file: string, cause: string): Promise<void> {
  expect(res.status).toBe(503);
  const body = await res.json();
  expect(Object.keys(body.error).sort()).toEqual(["code", "devMessage", "message", "source"]);
  expect(body.error.code).toBe("ERR_STORAGE_UNAVAILABLE");
  expect(body.error.source).toBe("chat-api");
  expect(body.error.message).toContain(`${file}.changes-`);
  expect(body.error.message).toContain(`(${cause})`);
}

/** Kills the emulator with SIGKILL, starts another on the same file, and answers the status of each user there. */
async function afterKill(cli: RunningCli, file: string, uids: string[]): Promise<number[]> {
  await cli.stop("SIGKILL");
  const again = await start(["--data", file]);
  return Promise.all(uids.map((uid) => userStatus(again.url, uid)));
}

describe("--data: a write the change log cannot hold is refused, not acknowledged", () => {
  it.skipIf(noChattr)(`a folder that cannot be written (immutable): refused, nothing changed, no event; writes resume by themselves${noChattr ? ` (skipped: chattr: ${noChattr})` : ""}`, async () => {
    const dir = join(tempDir("immutable"), "data");
    mkdirSync(dir);
    const file = join(dir, "state.json");
    const cli = await start(["--data", file]);
    // A webhook for sent messages, to an address that takes nothing: each delivery attempt is in the log.
    const mgmt = (path: string, body: unknown) =>
      fetch(`${cli.url}/apimgmt/apps/${APP_ID}${path}`, { method: "POST", headers: { ...MGMT, "x-webhook-version": "2", "content-type": "application/json" }, body: JSON.stringify(body) });
    expect((await mgmt("/webhooks", { id: "sent", name: "sent", webhookURL: "http://127.0.0.1:9/hook" })).status).toBe(200);
    expect((await mgmt("/webhooks/sent/triggers", { triggerIds: ["message_sent"] })).status).toBe(200);
    const send = (text: string) =>
      fetch(`${cli.url}/v3/messages`, { method: "POST", headers: { ...json, onBehalfOf: "superhero1" }, body: JSON.stringify({ receiver: "superhero2", receiverType: "user", data: { text } }) });
    const sent = async () => (await (await fetch(`${cli.url}/_emulator/webhooks/deliveries`)).json()).deliveries.length as number;
    expect((await createUser(cli.url, "before")).status).toBe(200);
    // A checkpoint holds it all and closed the change log (an open one would go on taking writes: they are on disk).
    await until(async () => readdirSync(dir).every((name) => !name.includes(".changes-")));
    run("chattr", "+i", dir);
    try {
      // The first refused write fails in the change log (its event was waiting for it); the next is refused before it runs.
      await expectRefused(await send("refused"), file, "EPERM");
      await expectRefused(await createUser(cli.url, "refused"), file, "EPERM");
      const journal = (await (await fetch(`${cli.url}/_emulator/requests`)).json()).requests as { method: string; path: string; status: number }[];
      expect(journal.filter((r) => r.method === "POST" && r.path.endsWith("/messages")).map((r) => r.status)).toEqual([503]);
      expect(await userStatus(cli.url, "refused")).toBe(404);
      expect(await userStatus(cli.url, "before")).toBe(200);
      const h = await fetch(`${cli.url}/_emulator/health`);
      expect(h.status).toBe(503);
      expect((await h.json()).reason).toContain("writes are refused");
      expect(cli.stderr()).toContain("writes are refused (503 ERR_STORAGE_UNAVAILABLE)");
    } finally {
      run("chattr", "-i", dir);
    }
    await until(async () => (await health(cli.url)) === 200);
    expect(await sent()).toBe(0); // the refused message was never announced
    expect((await send("after")).status).toBe(200);
    await until(async () => (await sent()) === 1);
    expect((await createUser(cli.url, "after")).status).toBe(200);
    expect(await afterKill(cli, file, ["before", "refused", "after"])).toEqual([200, 404, 200]);
  });

  it.skipIf(noMount)(`a full disk (a small tmpfs filled up), with --fsync: refused, nothing changed; writes resume once there is room${noMount ? ` (skipped: mount: ${noMount})` : ""}`, async () => {
    const dir = join(tempDir("full"), "disk");
    mkdirSync(dir);
    run("mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", dir);
    try {
      const file = join(dir, "state.json");
      const cli = await start(["--data", file, "--fsync"]); // the other test writes without it
      expect((await createUser(cli.url, "before")).status).toBe(200);
      // The rest of the disk taken: what fits is written, then ENOSPC.
      try {
        writeFileSync(join(dir, "filler"), Buffer.alloc(1024 * 1024, 1));
      } catch (e) {
        expect((e as NodeJS.ErrnoException).code).toBe("ENOSPC");
      }
      await expectRefused(await createUser(cli.url, "refused"), file, "ENOSPC");
      expect(await userStatus(cli.url, "refused")).toBe(404);
      expect(await health(cli.url)).toBe(503);
      rmSync(join(dir, "filler"));
      await until(async () => (await health(cli.url)) === 200);
      expect((await createUser(cli.url, "after")).status).toBe(200);
      expect(await afterKill(cli, file, ["before", "refused", "after"])).toEqual([200, 404, 200]);
    } finally {
      await new Promise((r) => setTimeout(r, 50)); // the last emulator is killed after the test: a lazy unmount
      run("umount", "-l", dir);
    }
  });
});
