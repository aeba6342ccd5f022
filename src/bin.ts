/**
 * The program: bin/chat-emulator.js runs this module, bundled with everything it imports into dist/cli.cjs by
 * scripts/bundle-cli.mjs. `started` settles once the emulator listens (or the command has run).
 */
import { main } from "./cli.js";

export const started: Promise<void> = main();
