// Launches the system's Chromium (Debian's `chromium` package; `CHROMIUM_PATH` names another) headless through
// playwright-core, which never downloads a browser. Used by the browser test and by scripts/screenshots.mjs.
import { existsSync } from "node:fs";
import { chromium } from "playwright-core";

const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];

/** The browser's path; throws with what to install when there is none. */
export function chromiumPath() {
  const named = process.env.CHROMIUM_PATH;
  if (named) {
    if (!existsSync(named)) throw new Error(`CHROMIUM_PATH=${named} does not exist.`);
    return named;
  }
  const found = CANDIDATES.find((p) => existsSync(p));
  if (!found)
    throw new Error(
      "No Chromium found for the browser tests: install Debian's package (apt-get install -y chromium; .ci/run does) " +
        "or set CHROMIUM_PATH to a Chromium or Chrome binary.",
    );
  return found;
}

/** Headless Chromium with a fresh profile, without the background traffic a closed network refuses. */
export function launchChromium() {
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
    ],
  });
}
