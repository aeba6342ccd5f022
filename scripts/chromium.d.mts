import type { Browser } from "playwright-core";

/** The system Chromium's path (CHROMIUM_PATH, or Debian's /usr/bin/chromium); throws with what to install. */
export function chromiumPath(): string;
/** Headless Chromium through playwright-core, with a fresh profile and no background traffic. */
export function launchChromium(): Promise<Browser>;
