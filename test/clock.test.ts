import { beforeEach, describe, expect, it } from "vitest";
import { emulator, expectError, type TestEmulator } from "./helpers.js";

let e: TestEmulator;
beforeEach(async () => {
  e = await emulator();
});

const JAN_2024 = 1_704_067_200; // 2024-01-01T00:00:00Z

describe("/_emulator/clock", () => {
  it("reads real time by default", async () => {
    const r = await e.get("/_emulator/clock");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ mode: "real", now: expect.any(Number), nowMs: expect.any(Number), time: expect.any(String) });
    expect(Math.abs(r.body.nowMs - Date.now())).toBeLessThan(5_000);
  });

  it("freezes at a time given as Unix seconds or ISO 8601, and advances by seconds", async () => {
    const frozen = await e.put("/_emulator/clock", { mode: "frozen", now: JAN_2024 });
    expect(frozen.body).toEqual({ mode: "frozen", now: JAN_2024, nowMs: JAN_2024 * 1000, time: "2024-01-01T00:00:00.000Z" });
    const iso = await e.put("/_emulator/clock", { mode: "frozen", now: "2024-06-01T12:00:00Z" });
    expect(iso.body.now).toBe(Date.UTC(2024, 5, 1, 12) / 1000);
    const advanced = await e.post("/_emulator/clock/advance", { seconds: 90.5 });
    expect(advanced.body).toMatchObject({ mode: "frozen", nowMs: Date.UTC(2024, 5, 1, 12) + 90_500 });
    expect((await e.get("/_emulator/clock")).body.nowMs).toBe(Date.UTC(2024, 5, 1, 12) + 90_500);
  });

  it("freezes at the current time without now, and goes back to real time", async () => {
    const frozen = await e.put("/_emulator/clock", { mode: "frozen" });
    expect(Math.abs(frozen.body.nowMs - Date.now())).toBeLessThan(5_000);
    const real = await e.put("/_emulator/clock", { mode: "real" });
    expect(real.body.mode).toBe("real");
    const shifted = await e.put("/_emulator/clock", { mode: "real", now: JAN_2024 });
    expect(shifted.body.mode).toBe("real");
    expect(Math.abs(shifted.body.now - JAN_2024)).toBeLessThan(5);
  });

  it("refuses bad input with 400 ERR_BAD_REQUEST and keeps the clock", async () => {
    await e.put("/_emulator/clock", { mode: "frozen", now: JAN_2024 });
    const bad = expectError(await e.put("/_emulator/clock", { mode: "paused", now: "someday", extra: 1 }), 400, "ERR_BAD_REQUEST");
    expect(bad.details).toEqual({
      extra: ["The extra field is not allowed."],
      mode: ["The selected mode is invalid."],
      now: ["The now must be Unix seconds or an ISO 8601 date."],
    });
    expectError(await e.post("/_emulator/clock/advance", {}), 400, "ERR_BAD_REQUEST");
    const negative = expectError(await e.post("/_emulator/clock/advance", { seconds: -5 }), 400, "ERR_BAD_REQUEST");
    expect(negative.details).toEqual({ seconds: ["The seconds must be between 0 and 316224000."] });
    expect((await e.get("/_emulator/clock")).body.now).toBe(JAN_2024);
  });
});

describe("a frozen clock in written timestamps", () => {
  it("stamps users, auth tokens, groups and messages, and moves only when advanced", async () => {
    await e.put("/_emulator/clock", { mode: "frozen", now: JAN_2024 });
    const user = await e.post("/v3/users", { uid: "timed", name: "Timed", withAuthToken: true });
    expect(user.body.data.createdAt).toBe(JAN_2024);
    expect(user.body.data.authToken).toMatch(new RegExp(`^timed_${JAN_2024}[0-9a-f]{30}$`));
    const group = await e.post("/v3/groups", { guid: "timed-group", name: "Timed", type: "public" });
    expect(group.body.data.createdAt).toBe(JAN_2024);

    await e.post("/_emulator/clock/advance", { seconds: 3600 });
    const message = await e.post(
      "/v3/messages",
      { receiver: "superhero2", receiverType: "user", category: "message", type: "text", data: { text: "later" } },
      { onBehalfOf: "timed" },
    );
    expect(message.body.data.sentAt).toBe(JAN_2024 + 3600);
    const updated = await e.put("/v3/users/timed", { name: "Renamed" });
    expect(updated.body.data.updatedAt).toBe(JAN_2024 + 3600);
  });
});
