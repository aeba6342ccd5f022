// Finds and launches a Chromium or Chrome headless through playwright-core, which never downloads a browser. The one
// lookup every browser test uses (and scripts/screenshots.mjs): CHROMIUM_PATH, then the standard install paths of
// Linux, macOS and Windows.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";

/** Where Chromium and Chrome install themselves on each OS, most usual first. */
export function candidatePaths(platform = process.platform, env = process.env) {
  if (platform === "darwin") {
    const apps = ["Chromium.app/Contents/MacOS/Chromium", "Google Chrome.app/Contents/MacOS/Google Chrome"];
    return [...apps.map((a) => `/Applications/${a}`), ...(env.HOME ? apps.map((a) => `${env.HOME}/Applications/${a}`) : [])];
  }
  if (platform === "win32") {
    const roots = [env.LOCALAPPDATA, env.PROGRAMFILES, env["PROGRAMFILES(X86)"]].filter(Boolean);
    return roots.flatMap((root) => [join(root, "Chromium", "Application", "chrome.exe"), join(root, "Google", "Chrome", "Application", "chrome.exe")]);
  }
  return ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/snap/bin/chromium", "/usr/bin/google-chrome", "/usr/bin/google-chrome-stable"];
}

export const NO_CHROMIUM =
  "No Chromium or Chrome found for the browser tests. Install one: Debian/Ubuntu `apt-get install -y chromium` " +
  "(.ci/run does), Fedora `dnf install chromium`, macOS `brew install --cask chromium` or Google Chrome, Windows " +
  "`winget install Google.Chrome`; or set CHROMIUM_PATH to a Chromium or Chrome binary.";

/** The browser's path; throws one message that says how to get one when there is none. */
export function chromiumPath({ platform = process.platform, env = process.env, exists = existsSync } = {}) {
  const named = env.CHROMIUM_PATH;
  if (named) {
    if (!exists(named)) throw new Error(`CHROMIUM_PATH=${named} does not exist. ${NO_CHROMIUM}`);
    return named;
  }
  const found = candidatePaths(platform, env).find((p) => exists(p));
  if (!found) throw new Error(NO_CHROMIUM);
  return found;
}

/**
 * Headless Chromium with a fresh profile, without the background traffic a closed network refuses; `extraArgs`
 * (e.g. fake media devices for the calls SDK) are added.
 */
export function launchChromium(extraArgs = []) {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
      ...extraArgs,
    ],
  });
}
