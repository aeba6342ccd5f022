import { createWriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import type { Writable } from "node:stream";
import { finished } from "node:stream/promises";
import { prepareWritable } from "../store/persistence.js";
import { refuseOwnedTarget } from "../store/data-lock.js";
import { tempName } from "../store/state-writer.js";
import { fail } from "./args.js";

/**
 * The `--out FILE` of a command that writes a state file (`demo`, `export`). `checkOut` comes before the work:
 * missing folders are created, and a file that cannot be written ends the command with exit code 2. `writeOut`
 * writes beside the file's name and renames at the end, so a failure leaves no half file; without a file the
 * output goes to stdout.
 */

export async function checkOut(command: string, path: string | undefined): Promise<void> {
  if (path === undefined) return;
  try {
    refuseOwnedTarget(path, "--out");
  } catch (e) {
    fail(`${command}: ${(e as Error).message}`);
  }
  await prepareWritable(path).catch((e: Error) => fail(`${command}: ${e.message}`));
}

export async function writeOut<T>(command: string, path: string | undefined, write: (out: Writable) => Promise<T>): Promise<T> {
  const temp = path === undefined ? undefined : tempName(path, process.pid);
  const out = temp ? createWriteStream(temp) : process.stdout;
  try {
    const result = await write(out);
    if (temp) {
      out.end();
      await finished(out);
      await rename(temp, path!);
    }
    return result;
  } catch (e) {
    if (temp) await rm(temp, { force: true });
    fail(`${command}: could not write ${path ?? "to stdout"}: ${(e as Error).message}`, 1);
  }
}
