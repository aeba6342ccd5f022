import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type JournalEntry, type RunningEmulator } from "../src/index.js";
import { curlCommand, replayable, requestUrl } from "../ui/src/curl.js";
import type { Directory } from "../ui/src/api.js";
import { APP_ID, MGMT, REST_KEY } from "./helpers.js";

/** The inspector's "copy as curl": the command, with keys only on request, runs in a shell and does the same again. */

const sh = promisify(execFile);
let emulator: RunningEmulator;
let dir: Directory;

beforeAll(async () => {
  emulator = await startEmulator({ quiet: true });
  dir = await (await fetch(`${emulator.url}/_emulator/apps`)).json();
});
afterAll(() => emulator.close());

async function journaled(path: string, init: RequestInit): Promise<JournalEntry> {
  emulator.journal.clear();
  await fetch(`${emulator.url}${path}`, init);
  return emulator.journal.list().at(-1)!;
}

describe("copy as curl", () => {
  it("leaves keys out unless asked, and the command with keys sends the same request again", async () => {
    const body = { uid: "o'neil", name: "Shaq O'Neil" };
    const entry = await journaled(`/${APP_ID}.api-us/v3/users?withAuthToken=false`, {
      method: "POST",
      headers: { apikey: REST_KEY, "content-type": "application/json", "user-agent": "my-backend/1.0" },
      body: JSON.stringify({ ...body, uid: "oneil" }),
    });
    const masked = curlCommand(replayable(entry, dir, emulator.url, false));
    expect(masked).toBe(
      `curl -sS -X POST '${emulator.url}/${APP_ID}.api-us/v3/users?withAuthToken=false' -H 'apikey: <apikey>' ` +
        `-H 'content-type: application/json' --data-raw '{"uid":"oneil","name":"Shaq O'\\''Neil"}'`,
    );
    const withKeys = replayable({ ...entry, requestBody: { ...body, uid: "oneil2" } }, dir, emulator.url, true);
    expect(withKeys.placeholders).toEqual([]);
    const { stdout } = await sh("sh", ["-c", curlCommand(withKeys)]);
    expect(JSON.parse(stdout).data).toMatchObject({ uid: "oneil2", name: "Shaq O'Neil" });
  });

  it("addresses each plane: management keeps key and secret, and an auth token it cannot know stays a placeholder", async () => {
    const mgmt = await journaled("/apimgmt/apps", { headers: { key: MGMT.key, secret: MGMT.secret } });
    const r = replayable(mgmt, dir, emulator.url, true);
    expect(r.url).toBe(`${emulator.url}/apimgmt/apps`);
    expect(r.headers).toEqual([
      ["key", MGMT.key],
      ["secret", MGMT.secret],
    ]);
    expect(curlCommand(r)).toBe(`curl -sS '${emulator.url}/apimgmt/apps' -H 'key: ${MGMT.key}' -H 'secret: ${MGMT.secret}'`);

    const calls = await journaled(`/${APP_ID}.call-us/v3/calls`, { headers: { apikey: REST_KEY } });
    expect(requestUrl(calls, dir, emulator.url)).toBe(`${emulator.url}/${APP_ID}.call-us/v3/calls`);
    const token = replayable({ ...calls, requestHeaders: { authtoken: "abcde*****vwxyz" } }, dir, emulator.url, true);
    expect(token.placeholders).toEqual(["authtoken"]);
    expect(token.headers).toEqual([["authtoken", "<authtoken>"]]);
  });
});
