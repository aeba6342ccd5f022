import { readFileSync } from "node:fs";
import { PACKAGE_ROOT } from "./paths.js";

export const VERSION: string = (
  JSON.parse(readFileSync(new URL("package.json", PACKAGE_ROOT), "utf8")) as { version: string }
).version;
