import { describe, expect, it } from "vitest";
import { emulator, expectError } from "./helpers.js";
import { isLoopback } from "../src/control/token.js";

const TOKEN = "s3cret-token";

describe("control token", () => {
  it("is not needed when none is set", async () => {
    const open = await emulator();
    expect((await open.get("/_emulator/rules")).status).toBe(200);
  });

  it("guards every control call with x-emulator-token (401 otherwise), health excepted", async () => {
    const e = await emulator({ controlToken: TOKEN });
    const missing = expectError(await e.get("/_emulator/state"), 401, "AUTH_ERR_EMPTY_EMULATOR_TOKEN");
    expect(missing.source).toBe("emulator");
    expectError(await e.post("/_emulator/reset", {}), 401, "AUTH_ERR_EMPTY_EMULATOR_TOKEN");
    const wrong = { headers: { "x-emulator-token": "guess" } };
    expectError(await e.post("/_emulator/rules", { effect: { status: 500 } }, wrong), 401, "AUTH_ERR_INVALID_EMULATOR_TOKEN");
    expectError(await e.get("/_emulator/no-such-route", wrong), 401, "AUTH_ERR_INVALID_EMULATOR_TOKEN");
    expect((await e.get("/_emulator/rules", { headers: { "x-emulator-token": TOKEN } })).body).toEqual({ rules: [] });

    const health = await e.get("/_emulator/health");
    expect(health.status).toBe(200);
    expect(health.body.status).toBe("ok");
    expect((await e.get("/v3/users/superhero1")).status).toBe(200);
  });

  it("tells loopback hosts from others", () => {
    for (const h of ["127.0.0.1", "localhost", "::1", "[::1]", "127.0.0.2"]) expect(isLoopback(h)).toBe(true);
    for (const h of ["0.0.0.0", "::", "192.168.1.5", "example.com"]) expect(isLoopback(h)).toBe(false);
  });
});
