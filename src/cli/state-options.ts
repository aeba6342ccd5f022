import { Option, type Command } from "commander";
import { DEMO_DEFAULTS, defaultUntil, demoState } from "../demo/generate.js";
import type { EmulatorOptions } from "../index.js";
import { fail } from "./args.js";
import { sameFile } from "../util/same-file.js";

/** The CLI flags for where the state comes from and goes at the end: --import, --demo and --export-on-exit. */

export interface StateFlags {
  import?: string;
  demo?: boolean;
  exportOnExit?: string;
}

export function addStateOptions(program: Command): Command {
  return program
    .addOption(
      new Option("--import <file>", "start from this state or seed file (read only: never written; resets return to it)")
        .env("CHAT_EMULATOR_IMPORT")
        .conflicts("seed"),
    )
    .addOption(
      new Option("--demo", `start with a generated demo app (${DEMO_DEFAULTS.users} users, ${DEMO_DEFAULTS.groups} groups, ${DEMO_DEFAULTS.messages} messages; see chat-emulator demo)`)
        .env("CHAT_EMULATOR_DEMO")
        .conflicts(["seed", "import"]),
    )
    .addOption(new Option("--export-on-exit <file>", "write the whole state to this file when the emulator stops cleanly").env("CHAT_EMULATOR_EXPORT_ON_EXIT"));
}

/** The emulator options these flags stand for (the seed only when --import or --demo replaces it). */
export function stateOptions(o: StateFlags & { data?: string }): Partial<EmulatorOptions> {
  if (o.import !== undefined && o.data !== undefined && sameFile(o.import, o.data))
    fail("--import and --data name the same file: --import is only read and --data is written; give --data another file.");
  const options: Partial<EmulatorOptions> = { exportOnExit: o.exportOnExit };
  if (o.import !== undefined) options.seed = o.import;
  if (o.demo) options.seed = demoState({ ...DEMO_DEFAULTS, until: defaultUntil() });
  return options;
}

/** The banner's rows for them. */
export function stateRows(o: StateFlags): [string, string][] {
  const rows: [string, string][] = [];
  if (o.import !== undefined) rows.push(["Imported from", `${o.import}  (read only)`]);
  if (o.demo) rows.push(["Demo data", "generated (chat-emulator demo --out FILE saves one)"]);
  if (o.exportOnExit !== undefined) rows.push(["Export on exit", o.exportOnExit]);
  return rows;
}
