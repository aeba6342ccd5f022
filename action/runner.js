// What the Action's steps share with the runner: inputs, and failures as workflow commands. A failure is one
// `::error::` line (its line breaks escaped, so the whole message shows in the annotation) and exit code 1; an
// unexpected exception is one too, never a raw stack trace.

/** The input `name` of action.yml, as the runner hands it over (INPUT_<NAME>). */
export const input = (name) => (process.env[`INPUT_${name.toUpperCase()}`] ?? "").trim();

/** `message` as the data of a workflow command (%, CR and LF escaped). */
const escape = (message) => String(message).replaceAll("%", "%25").replaceAll("\r", "%0D").replaceAll("\n", "%0A");

export function fail(message) {
  console.log(`::error title=chat-emulator::${escape(message)}`);
  process.exit(1);
}

for (const event of ["uncaughtException", "unhandledRejection"]) process.on(event, (e) => fail(e instanceof Error ? e.message : String(e)));
