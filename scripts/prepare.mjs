// `prepare`, npm's one script for both places the package lives. npm runs it in a checkout (`npm install` there,
// and for a git dependency) and before `npm pack` / `npm publish`: there it builds dist (unless
// CHAT_EMULATOR_PREBUILT=1: the package test and the image pack the dist just built). An installed package has
// no sources and nothing to build (npm does not run `prepare` for registry or tarball installs anyway). Packing
// never edits the checkout's package.json, so it is safe beside a running `npm test`.
import { execSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
if (existsSync(new URL("../src", import.meta.url)) && process.env.CHAT_EMULATOR_PREBUILT !== "1")
  execSync("npm run build", { stdio: "inherit", cwd: root });
