import { describe, expect, it } from "vitest";
import { candidatePaths, chromiumPath, NO_CHROMIUM } from "../scripts/chromium.mjs";

/** The one browser lookup of every browser test: CHROMIUM_PATH, then each OS's standard paths, else one message. */
describe("Chromium lookup", () => {
  const only = (path: string) => (p: string) => p === path;

  it("takes CHROMIUM_PATH first, and names it when it does not exist", () => {
    expect(chromiumPath({ platform: "linux", env: { CHROMIUM_PATH: "/opt/x/chrome" }, exists: only("/opt/x/chrome") })).toBe("/opt/x/chrome");
    expect(() => chromiumPath({ platform: "linux", env: { CHROMIUM_PATH: "/nope" }, exists: () => false })).toThrow(/CHROMIUM_PATH=\/nope does not exist/);
  });

  it("finds the standard install of Linux, macOS and Windows", () => {
    expect(chromiumPath({ platform: "linux", env: {}, exists: only("/usr/bin/chromium-browser") })).toBe("/usr/bin/chromium-browser");
    const mac = "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome";
    expect(chromiumPath({ platform: "darwin", env: { HOME: "/Users/me" }, exists: only(mac) })).toBe(mac);
    expect(candidatePaths("darwin", { HOME: "/Users/me" })).toContain("/Users/me/Applications/Chromium.app/Contents/MacOS/Chromium");
    const env = { LOCALAPPDATA: "C:\\Users\\me\\AppData\\Local", PROGRAMFILES: "C:\\Program Files" };
    const win = candidatePaths("win32", env).find((p) => p.includes("Program Files") && p.includes("Google"))!;
    expect(win).toMatch(/Google.Chrome.Application.chrome\.exe$/);
    expect(chromiumPath({ platform: "win32", env, exists: only(win) })).toBe(win);
  });

  it("fails with one message that says how to get a browser on each OS", () => {
    for (const platform of ["linux", "darwin", "win32"] as const)
      expect(() => chromiumPath({ platform, env: {}, exists: () => false })).toThrow(NO_CHROMIUM);
    expect(NO_CHROMIUM).toMatch(/apt-get install -y chromium.*brew install.*winget install.*CHROMIUM_PATH/s);
  });
});
