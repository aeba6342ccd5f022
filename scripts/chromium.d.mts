import type { Browser } from "playwright-core";

/** Where Chromium and Chrome install themselves on `platform` (Linux, macOS, Windows), most usual first. */
export function candidatePaths(platform?: NodeJS.Platform, env?: NodeJS.ProcessEnv): string[];
/** The message when no browser is found: how to get one on each OS. */
export const NO_CHROMIUM: string;
/** The browser's path: CHROMIUM_PATH, else the first standard path that exists; throws NO_CHROMIUM otherwise. */
export function chromiumPath(opts?: { platform?: NodeJS.Platform; env?: NodeJS.ProcessEnv; exists?: (path: string) => boolean }): string;
/** Headless Chromium through playwright-core, with a fresh profile and no background traffic. */
export function launchChromium(extraArgs?: string[]): Promise<Browser>;
