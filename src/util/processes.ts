import { readFileSync } from "node:fs";

/**
 * What is known of another process on this machine: on Linux from /proc, elsewhere only whether its pid answers a
 * signal.
 */

/** Its state letter and its start in clock ticks since boot, as Linux counts them (undefined elsewhere or when it is gone). */
function procStat(pid: number): { state: string; started: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name in parentheses may hold spaces: the fields after it start two characters after its end.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { state: fields[0], started: fields[19] };
  } catch {
    return undefined;
  }
}

/** When the process started (Linux only): a pid reused later names a process that started at another moment. */
export const startOf = (pid: number): string | undefined => procStat(pid)?.started;

/**
 * Whether process `pid` runs; with `started`, only the process that started then. A zombie (killed, not yet
 * reaped by its parent) does not run: it holds nothing and will never act again. EPERM: it runs, as another user.
 */
export function running(pid: number, started?: string): boolean {
  const stat = procStat(pid);
  if (stat) return stat.state !== "Z" && stat.state !== "X" && (started === undefined || stat.started === started);
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Its command line (Linux only), its arguments joined by spaces; undefined elsewhere or when it cannot be read. */
export function commandOf(pid: number): string | undefined {
  try {
    const line = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ");
    return line === "" ? undefined : line;
  } catch {
    return undefined;
  }
}
