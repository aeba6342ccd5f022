import { fail } from "./args.js";
import { editDistance as distance } from "../util/edit-distance.js";

/**
 * The CLI's commands, for the help text and for guiding a mistyped one. Without a command, `chat-emulator` runs the
 * emulator; `exec` may stand before or after the emulator's options; the other commands come first.
 */
export const COMMANDS: readonly { name: string; usage: string; does: string }[] = [
  { name: "exec", usage: "chat-emulator [options] exec [options] -- <command...>", does: "run one command against a fresh emulator, then stop" },
  { name: "demo", usage: "chat-emulator demo [--users N] [--groups N] [--messages N] [--days N] [--until T] [--out FILE]", does: "write a generated demo app as a state file" },
  { name: "export", usage: "chat-emulator export [--url URL] [--out FILE] [--control-token T]", does: "save a running emulator's state to a file" },
  { name: "cert", usage: "chat-emulator cert [--json]", does: "the local CA --https serves with, and how to trust it once" },
  { name: "pull", usage: "chat-emulator pull --app-id ID --api-key KEY [--region R] [--messages N] [--anonymize] --out FILE", does: "read a real app (GET only) into a state file" },
  { name: "record", usage: "chat-emulator record --target URL --out FILE.har [--port N]", does: "a proxy that records the exchanges with a target as HAR" },
  { name: "compare", usage: "chat-emulator compare FILE.har [--seed FILE] [--report FILE.md|FILE.json]", does: "replay a recording against the emulator and report differences" },
];

/** Words a newcomer tries for "run the emulator", which needs no command. */
const RUN_WORDS = new Set(["start", "run", "serve", "server", "up"]);


/** The command list as the help and the errors print it: each usage, with what it does below it (within 100 columns). */
export function commandList(): string {
  return [{ usage: "chat-emulator [options]", does: "run the emulator" }, ...COMMANDS].map((c) => `  ${c.usage}\n      ${c.does}`).join("\n");
}

/**
 * Ends the CLI on an option it does not know, naming the nearest known one (`--prot 5703` and `--prot=5703` name
 * `--port`): otherwise the value would be taken for an unknown command. Options after `--` are the command's own.
 */
export function unknownOptions(args: string[], known: readonly string[]): void {
  for (const arg of args) {
    if (arg === "--") return;
    if (!arg.startsWith("--")) continue;
    const flag = arg.split("=")[0];
    if (known.includes(flag)) continue;
    const near = known.filter((k) => distance(flag, k) <= 2);
    fail(`unknown option ${flag}.${near.length > 0 ? ` Did you mean ${near.join(" or ")}?` : ""} (chat-emulator --help lists the options.)`);
  }
}

/**
 * The first word among the emulator's arguments that is neither an option nor an option's value (`takesValue`
 * says which options consume the next argument), before any `--`.
 */
export function firstWord(args: string[], takesValue: (flag: string) => boolean): { word: string; at: number } | undefined {
  for (let i = 0; i < args.length && args[i] !== "--"; i++) {
    if (!args[i].startsWith("-")) return { word: args[i], at: i };
    if (!args[i].includes("=") && takesValue(args[i])) i++;
  }
  return undefined;
}

/** Ends the CLI with a guiding message for a word that is not a command here (exit code 2). */
export function unknownCommand(word: string, misplaced: boolean): never {
  if (misplaced) fail(`${word} must come first: chat-emulator ${word} [options] (chat-emulator ${word} --help lists them).`);
  const near = COMMANDS.map((c) => c.name).filter((name) => distance(word, name) <= 2);
  const hint = RUN_WORDS.has(word)
    ? " The emulator runs without a command: chat-emulator [options]."
    : near.length > 0
      ? ` Did you mean ${near.join(" or ")}?`
      : "";
  fail(`unknown command ${JSON.stringify(word)}.${hint}\nCommands:\n${commandList()}`);
}
