import { appendFileSync, copyFileSync, mkdirSync, rmdirSync, fdatasync, fdatasyncSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Persistence } from "../src/store/persistence.js";
import { Replay } from "../src/store/change-tracker.js";
import { APP_ID, MGMT, REST_KEY, emulator, surveyForm, type TestEmulator } from "./helpers.js";
import { round } from "./durability.workload.js";
import { clientOf, tokenOf } from "./client.helpers.js";
import { socketClients } from "./realtime.helpers.js";
import { startEmulator } from "../src/index.js";
import { tempName } from "../src/store/state-writer.js";

// Counts the change log's syncs (the real calls still run).
vi.mock("node:fs", async (original) => {
  const fs = await original<typeof import("node:fs")>();
  return { ...fs, fdatasyncSync: vi.fn(fs.fdatasyncSync), fdatasync: vi.fn(fs.fdatasync) };
});

const opened: Persistence[] = [];
afterEach(() => {
  // A change the change log's look missed (see ChangeTracker's `verify`) is a failed write.
  for (const p of opened) expect(p.problem).toBeUndefined();
  for (const p of opened.splice(0)) p.close();
  vi.mocked(fdatasyncSync).mockClear();
  vi.mocked(fdatasync).mockClear();
});

/**
 * An emulator whose state is kept in `dir/state.json`, checkpointed only when flushed (everything else is in the
 * change log), and whose change log checks that its look for changes misses none.
 */
async function persisted(dir: string, opts: { fsync?: boolean; log?: (line: string) => void } = {}) {
  const e = await emulator();
  const persistence = await Persistence.open(join(dir, "state.json"), e.store, { now: e.clock.now(), delayMs: 1e9, verify: true, ...opts });
  e.emulator.persistence = persistence; // what the control plane's answers wait for
  opened.push(persistence);
  return { e, persistence };
}

/** Runs rounds of writes of every kind, each answered with success. */
async function write(e: TestEmulator, tags: string[]) {
  for (const t of tags) {
    const ids: Record<string, string> = {};
    for (const w of round(t)) {
      const r = w.request(ids);
      const headers = r.path.startsWith("/apimgmt") ? { ...MGMT } : { apikey: REST_KEY };
      const reply = await e.call(r.method, r.path, { body: r.body, key: null, headers, onBehalfOf: r.onBehalfOf });
      expect(reply.status, `${w.name}: ${JSON.stringify(reply.body)}`).toBeLessThan(300);
      await e.emulator.persistence?.hold(); // a write per answer, as the server makes (see persisted)
      w.keep?.(reply.body, ids);
    }
  }
}

/** What a kill -9 leaves: the files of `dir` as they are now, copied to a new folder. */
function killed(dir: string): string {
  const copy = mkdtempSync(join(tmpdir(), "chat-emulator-killed-"));
  // The lock a killed run leaves is taken over with a line of its own (test/data-lock.test.ts); copies leave it out.
  for (const name of readdirSync(dir)) if (!name.endsWith(".lock")) copyFileSync(join(dir, name), join(copy, name));
  return copy;
}

/** superhero1 sends superhero2 `text`; resolves once the change-log write a server's answer waits for is made. */
async function sendHeld(e: TestEmulator, persistence: Persistence, text: string) {
  const reply = await e.post("/v3/messages", { receiver: "superhero2", receiverType: "user", data: { text } }, { onBehalfOf: "superhero1" });
  await persistence.hold();
  return reply;
}

type Step = [method: string, path: string, body?: unknown, onBehalfOf?: string];

/** A request answered below 300, in a change-log write of its own that missed nothing (see `verify`). */
async function heldStep(e: TestEmulator, persistence: Persistence, [method, path, body, onBehalfOf]: Step) {
  const reply = await e.call(method, path, { body, onBehalfOf });
  expect(reply.status, `${method} ${path}: ${JSON.stringify(reply.body)}`).toBeLessThan(300);
  await persistence.hold();
  expect(persistence.problem, `${method} ${path}`).toBeUndefined();
  return reply;
}

/** The change-log lines in `dir`, oldest first. */
const logLines = (dir: string) =>
  readdirSync(dir)
    .filter((n) => n.includes(".changes-"))
    .sort((a, b) => Number(a.split("-").pop()) - Number(b.split("-").pop()))
    .flatMap((n) => readFileSync(join(dir, n), "utf8").trim().split("\n"));

const plain = (e: TestEmulator) => JSON.parse(JSON.stringify(e.store.toData()));
const fresh = () => mkdtempSync(join(tmpdir(), "chat-emulator-durable-"));

describe("change log", () => {
  it("replays to exactly the state before the kill when no checkpoint was written since the start", async () => {
    const dir = fresh();
    const { e, persistence } = await persisted(dir);
    await write(e, ["r1", "r2"]);
    await persistence.hold();
    const before = plain(e);
    const copy = killed(dir);
    expect(readdirSync(copy).filter((n) => n.startsWith("state.json.changes-"))).toHaveLength(1);
    const after = await persisted(copy);
    expect(plain(after.e)).toEqual(before);
  });

  it("replays exactly across checkpoints, and a checkpoint deletes the logs it covers", async () => {
    const dir = fresh();
    const { e, persistence } = await persisted(dir);
    await write(e, ["s1"]);
    await persistence.flush();
    expect(readdirSync(dir).filter((n) => n.includes(".changes-"))).toEqual([]);
    await write(e, ["s2"]);
    // A reset, a deleted user and a new app: whole-app and app-list changes.
    expect((await e.call("DELETE", "/v3/users/s1b", { body: { permanent: true } })).status).toBe(200);
    e.store.createApp({ name: "Second", appId: "5eeded0000000002" });
    await write(e, ["s3"]);
    await persistence.hold();
    const before = plain(e);
    const after = await persisted(killed(dir));
    expect(plain(after.e)).toEqual(before);
  });

  it("answers a whole state replaced once the data file holds it, without writing it to the log", async () => {
    const dir = fresh();
    const { e } = await persisted(dir);
    const state = plain(e);
    const app = state.apps[0];
    app.messages = Array.from({ length: 10_001 }, (_, i) => ({
      id: i + 1,
      conversationId: "superhero1_user_superhero2",
      sender: "superhero1",
      receiverType: "user",
      receiver: "superhero2",
      category: "message",
      type: "text",
      data: { text: `bulk ${i}` },
      sentAt: 1_700_000_000,
      updatedAt: 1_700_000_000,
    }));
    app.lastMessageId = 10_001;
    expect((await e.put("/_emulator/state", state, { key: null })).status).toBe(200);
    const before = plain(e);
    const copy = killed(dir);
    expect(JSON.parse(readFileSync(join(copy, "state.json"), "utf8")).apps[0].messages).toHaveLength(10_001);
    for (const name of readdirSync(copy).filter((n) => n.includes(".changes-"))) expect(readFileSync(join(copy, name), "utf8").length).toBeLessThan(100_000);
    const after = await persisted(copy);
    expect(plain(after.e)).toEqual(before);
  });

  it("ignores a torn last record and says so on stderr", async () => {
    const dir = fresh();
    const { e, persistence } = await persisted(dir);
    await write(e, ["t1"]);
    await persistence.hold();
    const before = plain(e);
    const copy = killed(dir);
    const log = join(copy, "state.json.changes-1");
    appendFileSync(log, '[["set","' + e.store.defaultAppId + '","users",[{"uid":"half');
    const lines: string[] = [];
    const after = await persisted(copy, { log: (l) => lines.push(l) });
    expect(plain(after.e)).toEqual(before);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^chat-emulator: warning: .*state\.json\.changes-1: the last line \(\d+, \d+ bytes\) has no end of line: a crash cut it off/);
    // The replayed state is checkpointed at start: the log (torn record included) is gone.
    expect(readdirSync(copy).filter((n) => n.includes(".changes-"))).toEqual([]);
    expect(JSON.parse(readFileSync(join(copy, "state.json"), "utf8"))).toEqual(before);
  });

  it("syncs each append to the disk with fsync, never without", async () => {
    const { e, persistence } = await persisted(fresh(), { fsync: true });
    await write(e, ["f1"]);
    await persistence.hold();
    // Writes from the thread pool sync there; one made at once syncs at once.
    expect(vi.mocked(fdatasync).mock.calls.length + vi.mocked(fdatasyncSync).mock.calls.length).toBeGreaterThan(0);
    vi.mocked(fdatasyncSync).mockClear();
    vi.mocked(fdatasync).mockClear();
    const plainRun = await persisted(fresh());
    await write(plainRun.e, ["f2"]);
    plainRun.persistence.holdNow();
    await plainRun.persistence.hold();
    expect(vi.mocked(fdatasyncSync)).not.toHaveBeenCalled();
    expect(vi.mocked(fdatasync)).not.toHaveBeenCalled();
  });

  it("replays every change of users, auth tokens, groups, members, bans, friendships, blocks, calls and marks exactly, logging only the records changed", async () => {
    const dir = fresh();
    const { e, persistence } = await persisted(dir);
    const ok = async (method: string, path: string, body?: unknown, onBehalfOf?: string) => {
      const r = await e.call(method, path, { body, onBehalfOf });
      expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
      return r.body;
    };
    for (const uid of ["nu1", "nu2", "nu3", "nu4", "nu5"]) await ok("POST", "/v3/users", { uid, name: uid.toUpperCase() });
    await ok("PUT", "/v3/users/nu1", { name: "Renamed", tags: ["x"], unset: ["avatar"] });
    await ok("DELETE", "/v3/users", { uidsToDeactivate: ["nu2"] });
    await ok("PUT", "/v3/users", { uidsToActivate: ["nu2"] });
    await ok("DELETE", "/v3/users/nu4");
    await ok("DELETE", "/v3/users/nu5", { permanent: true });
    await ok("POST", "/v3/users", { uid: "nu5", name: "Again" });
    // Tokens: created, changed in place, deleted one by one and all at once; a client login changes both records.
    const token = await tokenOf(e, "nu1");
    await ok("PUT", `/v3/users/nu1/auth_tokens/${token}`, { platform: "ios", userAgent: "test" });
    const other = await tokenOf(e, "nu2");
    await tokenOf(e, "nu2");
    await ok("DELETE", `/v3/users/nu2/auth_tokens/${other}`);
    await tokenOf(e, "nu5");
    await ok("DELETE", "/v3/users/nu5/auth_tokens");
    expect((await clientOf(e, token).put("/me", { platform: "WEB", deviceId: "d1", appInfo: { userAgent: "sdk" } })).status).toBe(200);
    // Groups: created, changed, owner handed over, members added, promoted, removed, banned, unbanned, deleted.
    await ok("POST", "/v3/groups", { guid: "ng1", name: "G1", type: "public" }, "nu1");
    await ok("POST", "/v3/groups", { guid: "ng2", name: "G2", type: "public" }, "nu1");
    await ok("POST", "/v3/groups/ng1/members", { participants: ["nu2", "nu3", "nu5"] });
    await ok("PUT", "/v3/groups/ng1/members/nu2", { scope: "moderator" });
    await ok("POST", "/v3/groups/ng1/bannedusers/nu5");
    await ok("POST", "/v3/groups/ng1/bannedusers/nu3");
    await ok("DELETE", "/v3/groups/ng1/bannedusers/nu3");
    await ok("POST", "/v3/groups/ng1/members", { participants: ["nu3"] });
    await ok("DELETE", "/v3/groups/ng1/members/nu3");
    await ok("PUT", "/v3/groups/ng1", { name: "Renamed", owner: "nu2", tags: ["t"] });
    await ok("DELETE", "/v3/groups/ng2");
    // Friendships and blocks: made, made again from the other side, ended; a user deleted for good ends theirs.
    await ok("POST", "/v3/users/nu1/friends", { accepted: ["nu2", "nu3", "nu5"] });
    await ok("POST", "/v3/users/nu3/friends", { accepted: ["nu1"] });
    await ok("DELETE", "/v3/users/nu1/friends", { friends: ["nu2"] });
    await ok("POST", "/v3/users/nu2/blockedusers", { blockedUids: ["nu1", "nu3", "nu5"] });
    await ok("DELETE", "/v3/users/nu2/blockedusers", { blockedUids: ["nu3"] });
    // Calls: started, joined, switched to video, ended; a group call rejected by a member.
    const [caller, callee] = [clientOf(e, await tokenOf(e, "nu1")), clientOf(e, await tokenOf(e, "nu3"))];
    const call = async (reply: Promise<{ status: number; body: any }>) => {
      const r = await reply;
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.data;
    };
    const made = await call(caller.post("/calls", { receiver: "nu3", receiverType: "user", type: "audio" }));
    const sessionId = made.data.entities.on.entity.sessionid;
    await call(callee.put(`/calls/${sessionId}`, { status: "ongoing" }));
    await call(caller.patch(`/calls/${sessionId}/type`, { type: "video" }));
    await call(caller.put(`/calls/${sessionId}`, { status: "ended" }));
    const groupCall = await call(caller.post("/calls", { receiver: "ng1", receiverType: "group", type: "video" }));
    await call(clientOf(e, await tokenOf(e, "nu2")).put(`/calls/${groupCall.data.entities.on.entity.sessionid}`, { status: "rejected" }));
    // Saved messages, thread subscriptions and interactions: made and undone.
    const direct = (await ok("POST", "/v3/messages", { receiver: "nu3", receiverType: "user", data: { text: "hi" } }, "nu1")).data.id;
    await ok("POST", `/v3/messages/${direct}/save`, undefined, "nu3");
    await ok("POST", `/v3/messages/${direct}/save`, undefined, "nu1");
    await ok("DELETE", `/v3/messages/${direct}/save`, undefined, "nu3");
    await ok("POST", `/v3/messages/${direct}/thread/subscription`, undefined, "nu1");
    await ok("POST", `/v3/messages/${direct}/thread/subscription`, undefined, "nu3");
    await ok("DELETE", `/v3/messages/${direct}/thread/subscription`, undefined, "nu1");
    const interactive = (await ok("POST", "/v3/messages", surveyForm("nu3"), "nu1")).data.id;
    await ok("PATCH", `/v3/messages/${interactive}/interacted`, { interactions: ["submit", "name"] }, "nu3");
    await ok("DELETE", "/v3/users", { uidsToDeactivate: ["nu3"] });
    await ok("DELETE", "/v3/users/nu5", { permanent: true }); // leaves the ban list of ng1, a friendship and a block
    await persistence.hold();
    const before = plain(e);
    const copy = killed(dir);
    const logs = readdirSync(copy).filter((n) => n.includes(".changes-"));
    const logged = logs.map((n) => readFileSync(join(copy, n), "utf8")).join("");
    // Only the records changed: never a whole list of users, tokens or groups.
    expect(logged).not.toMatch(/\["set","[^"]+","(users|authTokens|groups|friends|blocks|calls)"/);
    for (const part of ["savedMessages", "threadSubscriptions", "interactions"]) expect(logged).toContain(`"set","${e.store.defaultAppId}","${part}"`);
    for (const part of ["users", "authTokens", "groups", "friends", "blocks", "calls"]) expect(logged).toContain(`"grouped","${e.store.defaultAppId}","${part}"`);
    const after = await persisted(copy);
    expect(plain(after.e)).toEqual(before);
  });

  it("replays a presence change made over the WebSocket, outside any request", async () => {
    const dir = fresh();
    const running = await startEmulator({ quiet: true, port: 0, data: join(dir, "state.json") });
    try {
      const { connect, rest } = socketClients(() => running.url);
      // A first change writes the base state file; checkpoints fail from then on (a folder where their temporary
      // file goes): only the change log holds what follows.
      expect((await rest("POST", "/users", { uid: "before-presence", name: "Before" })).status).toBe(200);
      mkdirSync(tempName(join(dir, "state.json"), process.pid));
      const socket = await connect("superhero3");
      const user = running.store.defaultApp.users.get("superhero3")!;
      expect(user.status).toBe("available");
      // Online, then offline when its only session closes: a change no request makes.
      socket.ws.close();
      await vi.waitFor(() => expect(user.status).toBe("offline"));
      // A later answer waits for a change-log write holding every change made before it.
      expect((await rest("POST", "/users", { uid: "after-presence", name: "After" })).status).toBe(200);
      const before = JSON.parse(JSON.stringify(running.store.toData()));
      rmdirSync(tempName(join(dir, "state.json"), process.pid)); // in the same turn as the copy: no checkpoint between
      const after = await persisted(killed(dir));
      expect(plain(after.e)).toEqual(before);
    } finally {
      await running.close();
    }
  });

  it("checkpoints when the changes pause, and under a steady stream once the log has grown to 4 MiB or the file's size", async () => {
    const dir = fresh();
    const file = join(dir, "state.json");
    const e = await emulator();
    const persistence = await Persistence.open(file, e.store, { now: e.clock.now(), delayMs: 200 });
    opened.push(persistence);
    const logs = () => readdirSync(dir).filter((n) => n.includes(".changes-"));
    const send = (text: string) => sendHeld(e, persistence, text);
    // The first change writes the base; the second goes to the log, and a pause brings a checkpoint that deletes it.
    expect((await send("base")).status).toBe(200);
    expect((await send("paused")).status).toBe(200);
    expect(logs()).toHaveLength(1);
    await vi.waitFor(() => expect(logs()).toEqual([]));
    expect(readFileSync(file, "utf8")).toContain('"paused"');
    // A steady stream (a change at every turn of the event loop, never a pause of 200 ms): the log grows; about 4 MiB
    // of it (about 500 messages of 8 KiB) bring a checkpoint, which starts the next log file.
    const big = "x".repeat(8_192);
    let checkpointAt: number | undefined;
    let log: string | undefined;
    for (let i = 0; i < 800 && checkpointAt === undefined; i++) {
      expect((await send(`${i} ${big}`)).status).toBe(200);
      await new Promise((resolve) => setImmediate(resolve)); // a turn of the event loop, its timers included
      log ??= logs()[0];
      if (logs().some((name) => name !== log)) checkpointAt = i;
    }
    // (the timer looks every 200 ms: the checkpoint starts within that of the log's reaching 4 MiB)
    expect(checkpointAt).toBeGreaterThan(450);
    expect(checkpointAt).toBeLessThan(800);
  });

  it("logs a message screened by a rule as one moderated id, not the whole moderation data, and replays it exactly", async () => {
    const dir = fresh();
    const { e, persistence } = await persisted(dir);
    expect((await e.post("/v3/moderation/keywords", { id: "banned", name: "Banned", searchTerms: ["darn"] })).status).toBe(200);
    const rule = { id: "no-banned", name: "No banned words", enabled: true, action: ["blockMessage"] };
    const conditions = [{ entity: "message", operand: "text", operator: "contains", category: "word", isKeywordsReferencePresent: true, value: ["banned"] }];
    expect((await e.post("/v3/moderation/rules", { ...rule, conditions })).status).toBe(200);
    expect((await e.post("/v3/moderation/reasons", { id: "rude", name: "Rude" })).status).toBe(200);
    await persistence.flush();
    const send = (text: string) => sendHeld(e, persistence, text);
    for (let i = 0; i < 300; i++) expect((await send(`clean ${i}`)).status).toBe(200);
    const held = await send("darn it");
    expect(held.status).toBe(200);
    const deleted = (await send("to be deleted")).body.data.id;
    expect((await e.del(`/v3/moderation/messages/${deleted}`)).status).toBe(200);
    expect((await e.put("/v3/moderation/reasons/rude", { name: "Very rude" })).status).toBe(200);
    await persistence.hold();
    // The queues, a change at a time: a held message approved then edited in the store (its entry keeps it as
    // reviewed), another held and rejected, a message flagged by two users and reviewed.
    const held2 = (await send("darn again")).body.data.id;
    const steps: Step[] = [
      ["PATCH", `/v3/moderation/blocked-messages/${held.body.data.id}`, { status: "approved" }],
      ["PUT", `/v3/messages/${held.body.data.id}`, { data: { text: "edited once approved" } }, "superhero1"],
      ["PATCH", `/v3/moderation/blocked-messages/${held2}`, { status: "rejected" }],
      ["POST", `/v3/messages/1/flagged`, { reasonId: "rude" }, "superhero2"],
      ["POST", `/v3/messages/1/flagged`, { reasonId: "spam" }, "superhero3"],
      ["PATCH", `/v3/moderation/flagged-messages/1`, { status: "approved" }],
    ];
    for (const step of steps) await heldStep(e, persistence, step);
    const before = plain(e);
    expect(before.apps[0].moderation.moderated).toHaveLength(302); // 300 clean and the two held; the deleted one is forgotten
    const approved = before.apps[0].moderation.blocked.find((b: any) => b.message.id === Number(held.body.data.id));
    expect([approved.status, approved.message.data.text]).toEqual(["approved", "darn it"]);
    expect(before.apps[0].moderation.flags[0]).toMatchObject({ messageId: 1, status: "approved", flaggedBy: [{ uid: "superhero2" }, { uid: "superhero3" }] });
    const copy = killed(dir);
    const lines = logLines(copy);
    // Each clean message: its id in the moderated ids, without the other 300.
    const screened = lines.filter((l) => l.includes('["moderated",'));
    expect(screened.length).toBeGreaterThan(250);
    for (const line of screened) expect(line.length).toBeLessThan(2_000);
    // The moderation data whole only for the reason's change (with the delete, one write); the queues' changes alone.
    expect(lines.filter((l) => l.includes('"moderation",{'))).toHaveLength(1);
    for (const line of lines.filter((l) => l.includes('["queued",'))) expect(line.length).toBeLessThan(4_000);
    const after = await persisted(copy);
    expect(plain(after.e)).toEqual(before);
  });

  it("replays every change of the notification data (counted, not compared) exactly", async () => {
    const dir = fresh();
    const { e, persistence } = await persisted(dir);
    const N = "/v3/notifications";
    const creds = (project: string) => ({ project_id: project, client_email: "sa@p1.test", private_key: "key0123456789" });
    const steps: Step[] = [
      ["POST", `${N}/push/v1/providers/fcm`, { providerId: "fcm-a", serviceAccountCreds: creds("p1") }],
      ["POST", `${N}/push/v1/providers/fcm`, { providerId: "fcm-b", serviceAccountCreds: creds("p1") }],
      ["PUT", `${N}/push/v1/providers/fcm`, { providerId: "fcm-a", serviceAccountCreds: creds("p2") }],
      ["PUT", `${N}/push/v1/providers/fcm/default/fcm-b`],
      ["DELETE", `${N}/push/v1/providers/fcm/fcm-b`],
      ["PATCH", `${N}/v1/settings`, { preferences: { group: { messagesSetting: 3 } } }],
      ["DELETE", `${N}/v1/settings`],
      ["PATCH", `${N}/v1/preferences?uid=superhero2`, { groupPreferences: { groupMessages: 3 } }],
      ["DELETE", `${N}/v1/preferences?uid=superhero2`],
      ["PUT", `${N}/v1/preferences/mute?uid=superhero2`, { conversations: [{ id: "supergroup", type: "group" }] }],
      ["DELETE", `${N}/v1/preferences/mute?uid=superhero2`, { conversations: [{ id: "supergroup", type: "group" }] }],
      ["PATCH", `${N}/v1/preferences/timezone?uid=superhero2`, { timezone: "Europe/Paris" }],
      ["PATCH", `${N}/v1/contact-details`, { email: "s2@example.test" }, "superhero2"],
      ["DELETE", `${N}/v1/contact-details`, undefined, "superhero2"],
    ];
    for (const step of steps) await heldStep(e, persistence, step);
    const before = plain(e);
    expect(before.apps[0].notifications.pushProviders).toMatchObject([{ providerId: "fcm-a", isDefault: true, fields: { serviceAccountCreds: { project_id: "p2" } } }]);
    const after = await persisted(killed(dir));
    expect(plain(after.e)).toEqual(before);
  });

  it("logs a feed or push receipt as the record and its event, not the whole campaigns data, and replays every campaigns change exactly, even twice", async () => {
    const dir = fresh();
    const { e, persistence } = await persisted(dir);
    const C = "/v3/campaigns";
    const channels = [{ channelType: "in_app", content: { title: "Hi {{x}}" } }, { channelType: "push", content: { title: "Hi {{x}}" } }];
    await heldStep(e, persistence, ["POST", `${C}/templates/categories`, { name: "promos" }]);
    await heldStep(e, persistence, ["POST", `${C}/templates`, { name: "Sale", templateId: "sale", templateCategory: "promos", status: "approved", channels }]);
    await heldStep(e, persistence, ["POST", `${C}/notifications/messages`, { templateId: "sale", receivers: ["superhero1", "superhero2", "nobody"] }]);
    const item = (await heldStep(e, persistence, ["GET", `${C}/notification-feed?limit=1`, undefined, "superhero1"])).body.data[0].id;
    const push = (await heldStep(e, persistence, ["GET", `${C}/push-notifications?limit=1`, undefined, "superhero1"])).body.data[0].id;
    await heldStep(e, persistence, ["POST", `${C}/notification-feed/${item}/delivered`, undefined, "superhero1"]);
    const events = e.store.apps.get(APP_ID)!.campaigns.eventCount;
    const [delivered] = JSON.parse(logLines(dir).at(-1)!);
    expect(delivered).toEqual(["campaigns", APP_ID, { items: [[item, expect.objectContaining({ id: item, deliveredAt: expect.any(Number) })]], events: [events, [expect.objectContaining({ type: "delivered", userId: "superhero1" })]] }]);
    const cam = (await heldStep(e, persistence, ["POST", `${C}/campaigns`, { name: "Spring", templateId: "sale", templateVersion: 1 }])).body.data.id;
    const steps: Step[] = [
      ["POST", `${C}/notification-feed/${item}/read`, undefined, "superhero1"],
      ["POST", `${C}/notification-feed/${item}/engagement`, { topic: "clicked" }, "superhero1"],
      ["PUT", `${C}/push-notifications/${push}/delivered`, undefined, "superhero1"],
      ["PUT", `${C}/push-notifications/${push}/clicked`, undefined, "superhero1"],
      ["POST", `${C}/push-notifications/${push}/engagement`, { topic: "opened" }, "superhero1"],
      ["DELETE", `${C}/notification-feed/${item}`],
      ["POST", `${C}/campaigns/${cam}/recipients`, { userIds: ["superhero1", "superhero3"] }],
      ["POST", `${C}/campaigns/${cam}/send`],
    ];
    for (const step of steps) await heldStep(e, persistence, step);
    const before = plain(e);
    expect(before.apps[0].campaigns).toMatchObject({ eventCount: before.apps[0].campaigns.events.length, campaigns: [{ id: cam, status: "completed" }] });
    const after = await persisted(killed(dir));
    expect(plain(after.e)).toEqual(before);
    // A checkpoint written while changes were logged holds some of them: replayed again, they change nothing.
    const again = plain(e);
    const replay = new Replay(again);
    for (const line of logLines(dir).filter((l) => l.startsWith("["))) expect(replay.line(JSON.parse(line))).toBeUndefined();
    replay.finish();
    expect(again).toEqual(before);
  });

  it("logs a membership change alone, not the whole group, and replays members and bans in their order", async () => {
    const dir = fresh();
    const { e, persistence } = await persisted(dir);
    const uids = Array.from({ length: 200 }, (_, i) => `crowd${i}`);
    for (const uid of uids) expect((await e.post("/v3/users", { uid, name: uid })).status).toBe(200);
    const created = await e.post("/v3/groups", { guid: "crowd", name: "Crowd", type: "public", owner: "crowd0" });
    expect(created.status).toBe(200);
    // 25 users a call, as the platform allows.
    for (let i = 1; i < uids.length; i += 25) expect((await e.post("/v3/groups/crowd/members", { participants: uids.slice(i, i + 25) })).status).toBe(200);
    await persistence.hold();
    const step = async (method: string, path: string, body?: unknown) => {
      const before = logLines(dir).length;
      await heldStep(e, persistence, [method, path, body]);
      const added = logLines(dir).slice(before);
      // A membership change (with the action message it sends) is a line of a few KB, not the group's 200 members.
      for (const line of added) expect(line.length, `${method} ${path}`).toBeLessThan(4_000);
      expect(added.some((l) => l.includes('["people",'))).toBe(true);
    };
    await step("POST", "/v3/groups/crowd/members", { participants: ["superhero1"] });
    await step("PUT", "/v3/groups/crowd/members/superhero1", { scope: "admin" });
    await step("DELETE", "/v3/groups/crowd/members/crowd5");
    await step("POST", "/v3/groups/crowd/bannedusers/crowd6");
    await step("DELETE", "/v3/groups/crowd/bannedusers/crowd6");
    await step("POST", "/v3/groups/crowd/bannedusers/crowd7");
    await step("POST", "/v3/groups/crowd/members", { participants: ["crowd5"] }); // back, at the end of the join order
    // The group changed too, in the same write: taken whole.
    expect((await e.put("/v3/groups/crowd", { name: "Crowd renamed" })).status).toBe(200);
    expect((await e.post("/v3/groups/crowd/members", { participants: ["crowd6"] })).status).toBe(200);
    await persistence.hold();
    const before = plain(e);
    const group = before.apps[0].groups.find((g: { guid: string }) => g.guid === "crowd");
    expect(group.members.map((m: { uid: string }) => m.uid).slice(-3)).toEqual(["superhero1", "crowd5", "crowd6"]);
    expect(group.bannedUsers.map((b: { uid: string }) => b.uid)).toEqual(["crowd7"]);
    const after = await persisted(killed(dir));
    expect(plain(after.e)).toEqual(before);
  });
});
