import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach } from "vitest";

export const BIN = fileURLToPath(new URL("../bin/chat-emulator.js", import.meta.url));

export interface RunningCli {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts the real CLI on a free port and resolves once its banner (text or JSON) names the URL. */
export function startCli(args: string[], env: Record<string, string> = {}): Promise<RunningCli> {
  return startCommand(["--port", "0", ...args], env);
}

/** Starts the real CLI with exactly these arguments (a command that listens: `record ... --port 0`) and resolves once it says where it listens. */
export function startCommand(args: string[], env: Record<string, string> = {}): Promise<RunningCli> {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`CLI did not start: ${out}${err}`));
    }, 10_000);
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening on (https?:\/\/\S+)|"event":"listening".*?"url":"(https?:\/\/[^"]+)"/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({
          child,
          url: m[1] ?? m[2],
          stdout: () => out,
          stderr: () => err,
          exited,
          stop(signal = "SIGTERM") {
            child.kill(signal);
            return exited;
          },
        });
      }
    });
    child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`CLI exited with ${code}: ${out}${err}`));
    });
  });
}

/** For a test file: a `start` like startCli whose CLIs are killed after each test. Call at the top level. */
export function startClisPerTest(): (args: string[], env?: Record<string, string>) => Promise<RunningCli> {
  const running: RunningCli[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((r) => r.stop("SIGKILL")));
  });
  return async (args, env) => {
    const cli = await startCli(args, env);
    running.push(cli);
    return cli;
  };
}

/**
 * Runs the CLI to completion (for flags that exit, and exec mode) and collects its output; `onStdout` sees the
 * output as it comes (to send a signal at the right time).
 */
export function runCli(
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 10_000,
  onStdout?: (stdout: string, child: ChildProcess) => void,
) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
      onStdout?.(stdout, child);
    });
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`CLI did not exit: ${stdout}${stderr}`));
    }, timeoutMs);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
