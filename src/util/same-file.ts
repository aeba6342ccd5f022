import { statSync } from "node:fs";
import { resolve } from "node:path";

/** Whether two paths name one file (the same path, or a link to it). */
export function sameFile(a: string, b: string): boolean {
  if (resolve(a) === resolve(b)) return true;
  try {
    const [x, y] = [statSync(a), statSync(b)];
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false;
  }
}
