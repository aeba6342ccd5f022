import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { constants, tmpdir } from "node:os";
import { join } from "node:path";
import { emulatorEnv } from "../env.js";
import { waitForHealth } from "../health.js";
import type { RunningEmulator } from "../index.js";
import { firstWord } from "./commands.js";

/**
 * `chat-emulator exec [options] -- <command...>`: the emulator runs for the lifetime of one command. The command
 * gets the emulator's addresses and keys in its environment (and, with --https, the certificate through
 * NODE_EXTRA_CA_CERTS); signals sent to chat-emulator are passed on to it; when it ends, the emulator stops
 * (flushing --data) and chat-emulator exits with the command's exit code (128 + signal number if it was killed).
 */

export interface ExecArgs {
  /** argv without `exec` and the command: what the option parser sees. */
  argv: string[];
  /** undefined when not in exec mode; [] when `exec` was given without a command. */
  command: string[] | undefined;
  /** A command given without `--` before it (`exec npm test`): refused, with the line it should have been. */
  withoutDashDash?: string;
}

/**
 * Finds `exec` among the arguments, before or after the emulator's flags (`chat-emulator --port 0 exec -- cmd`
 * works like `chat-emulator exec --port 0 -- cmd`). `takesValue` says which flags consume the next argument, so
 * that a flag's value spelled "exec" is not taken for the word.
 */
export function splitExecArgs(argv: string[], takesValue: (flag: string) => boolean = () => false): ExecArgs {
  let at = -1;
  for (let i = 2; i < argv.length && argv[i] !== "--"; i++) {
    if (argv[i] === "exec") {
      at = i;
      break;
    }
    if (argv[i].startsWith("-") && !argv[i].includes("=") && takesValue(argv[i])) i++;
  }
  if (at === -1) return { argv, command: undefined };
  const rest = [...argv.slice(2, at), ...argv.slice(at + 1)];
  const dashdash = rest.indexOf("--");
  if (dashdash === -1) {
    // Without `--`, the command's own options would be taken for the emulator's (`exec npm --version` printed
    // the emulator's version): a word that is no option's value starts a command that needs `--` before it.
    const word = firstWord(rest, takesValue);
    const withoutDashDash = word && ["exec", ...rest.slice(0, word.at), "--", ...rest.slice(word.at)].join(" ");
    return { argv: [...argv.slice(0, 2), ...rest], command: [], ...(withoutDashDash ? { withoutDashDash } : {}) };
  }
  return { argv: [...argv.slice(0, 2), ...rest.slice(0, dashdash)], command: rest.slice(dashdash + 1) };
}

const FORWARDED: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

/** NODE_EXTRA_CA_CERTS names one file: add what we are trusted by (`certPath`) to one the user already set, in a bundle of both. */
function extraCaCerts(certPath: string): { path: string; dispose(): void } {
  const existing = process.env.NODE_EXTRA_CA_CERTS;
  if (!existing) return { path: certPath, dispose() {} };
  const dir = mkdtempSync(join(tmpdir(), "chat-emulator-ca-"));
  const path = join(dir, "ca-bundle.pem");
  let previous = "";
  try {
    previous = readFileSync(existing, "utf8");
  } catch {
    // Node ignores an unreadable NODE_EXTRA_CA_CERTS (with a warning); so do we.
  }
  writeFileSync(path, `${previous.trimEnd()}\n${readFileSync(certPath, "utf8")}`);
  return { path, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** `beforeStop`: what the run leaves behind (the --coverage file), once the command has ended. */
export async function runExec(
  emulator: RunningEmulator,
  command: string[],
  warn: (line: string) => void,
  stopped?: string,
  beforeStop?: () => Promise<void>,
): Promise<never> {
  const finish = async (status: number): Promise<never> => {
    try {
      await beforeStop?.();
    } catch (e) {
      warn(`chat-emulator: ${(e as Error).message}`);
      if (status === 0) status = 1;
    }
    try {
      await emulator.close();
      if (stopped) warn(stopped);
    } catch (e) {
      warn(`chat-emulator: error while stopping: ${String(e)}`);
      if (status === 0) status = 1;
    }
    process.exit(status);
  };

  if (!(await waitForHealth(emulator.url, { ca: emulator.tls?.cert }))) {
    warn(`chat-emulator: the emulator at ${emulator.url} did not become healthy; not running ${command[0]}.`);
    return finish(1);
  }
  const env: NodeJS.ProcessEnv = { ...process.env, ...emulatorEnv(emulator) };
  const ca = emulator.tls ? extraCaCerts(emulator.tls.certPath) : undefined;
  if (ca) env.NODE_EXTRA_CA_CERTS = ca.path;

  const child = spawn(command[0], command.slice(1), { stdio: "inherit", env });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  for (const s of FORWARDED) process.on(s, forward);

  const status = await new Promise<number>((resolve) => {
    child.once("error", (e: NodeJS.ErrnoException) => {
      const notFound = e.code === "ENOENT";
      warn(`chat-emulator: cannot run ${command[0]}: ${notFound ? "command not found" : e.message}`);
      resolve(notFound ? 127 : 126);
    });
    child.once("exit", (code, signal) => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0)));
  });
  for (const s of FORWARDED) process.off(s, forward);
  ca?.dispose();
  return finish(status);
}
