import { CommanderError, InvalidArgumentError, type Command } from "commander";

/** Argument parsers shared by the CLI's commands. */

export function intArg(name: string, min: number, max: number) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max)
      throw new InvalidArgumentError(`${name} must be a whole number from ${min} to ${max}.`);
    return Number(value);
  };
}

/** A moment as Unix seconds or an ISO 8601 date ("2026-01-31", "2026-01-31T12:00:00Z"), in Unix seconds. */
export function timeArg(name: string) {
  return (value: string): number => {
    const ms = /^\d+$/.test(value) ? Number(value) * 1000 : Date.parse(value);
    if (!Number.isFinite(ms) || ms < 0) throw new InvalidArgumentError(`${name} must be Unix seconds or an ISO 8601 date.`);
    return Math.floor(ms / 1000);
  };
}

/** An http:// or https:// address, without a trailing slash. */
export function urlArg(name: string) {
  return (value: string): string => {
    const url = URL.canParse(value) ? new URL(value) : undefined;
    if (url?.protocol !== "http:" && url?.protocol !== "https:") throw new InvalidArgumentError(`${name} must be an http:// or https:// address such as http://127.0.0.1:4780.`);
    return value.replace(/\/+$/, "");
  };
}

/** Writes a CLI error the way commander does and exits (2: bad usage, 1: it could not be done). */
export function fail(message: string, code = 2): never {
  process.stderr.write(`chat-emulator: ${message}\n`);
  process.exit(code);
}

/** Parses a command's arguments; `--help` exits 0, a bad flag (which commander has reported) exits 2. */
export function parseCommand(program: Command, args: string[]): void {
  try {
    program.parse(args, { from: "user" });
  } catch (e) {
    if (e instanceof CommanderError) process.exit(e.exitCode === 0 ? 0 : 2);
    throw e;
  }
}
