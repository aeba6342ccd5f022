// Run by the release workflow before `npm publish`: sets `repository`, `homepage` and `bugs` in package.json from
// the repository the workflow runs in (GITHUB_SERVER_URL, GITHUB_REPOSITORY), which is known only there. npm's
// provenance refuses a package without `repository` (E422), and checks it names the repository that built it.
// Usage: node scripts/release-manifest.mjs [package.json]. Edits the release job's checkout only; nothing commits it.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const file = process.argv[2] ?? fileURLToPath(new URL("../package.json", import.meta.url));
const server = (process.env.GITHUB_SERVER_URL || "https://github.com").replace(/\/+$/, "");
const repository = process.env.GITHUB_REPOSITORY ?? "";
if (!/^[\w.-]+\/[\w.-]+$/.test(repository)) {
  process.stderr.write(`release-manifest: GITHUB_REPOSITORY must be owner/name (the workflow's repository), not ${JSON.stringify(repository)}\n`);
  process.exit(2);
}
const url = `${server}/${repository}`;
const text = readFileSync(file, "utf8");
const manifest = JSON.parse(text);
manifest.repository = { type: "git", url: `git+${url}.git` };
manifest.homepage = `${url}#readme`;
manifest.bugs = { url: `${url}/issues` };
writeFileSync(file, JSON.stringify(manifest, null, 2) + (text.endsWith("\n") ? "\n" : ""));
process.stdout.write(`package.json: repository, homepage and bugs name ${url}\n`);
