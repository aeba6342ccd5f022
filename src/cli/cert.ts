import { Command, CommanderError } from "commander";
import { configDir } from "../config-dir.js";
import { localCa, TlsError } from "../tls.js";
import { fail } from "./args.js";

/** How to trust the CA file `ca`, per system and tool. */
export function trustCommands(ca: string): [string, string][] {
  return [
    ["Node.js", `NODE_EXTRA_CA_CERTS="${ca}"`],
    ["macOS (login keychain)", `security add-trusted-cert -r trustRoot -k ~/Library/Keychains/login.keychain-db "${ca}"`],
    ["Debian, Ubuntu", `sudo cp "${ca}" /usr/local/share/ca-certificates/chat-emulator.crt && sudo update-ca-certificates`],
    ["Fedora, RHEL", `sudo cp "${ca}" /etc/pki/ca-trust/source/anchors/chat-emulator.pem && sudo update-ca-trust`],
    ["Chrome, Firefox on Linux", `certutil -d sql:$HOME/.pki/nssdb -A -t C,, -n chat-emulator -i "${ca}"`],
    ["Windows (current user)", `certutil -user -addstore Root "${ca}"`],
  ];
}

/**
 * `chat-emulator cert`: makes the local CA and server certificate that `--https` serves (when they do not exist
 * yet), prints where they are and how to trust the CA on each system. `--json` prints the paths only.
 */
export function runCert(args: string[]): void {
  const program = new Command("chat-emulator cert")
    .description("Print the local certificate authority --https uses, and how to trust it once")
    .option("--json", "print the paths as JSON")
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s.startsWith("error:") ? `chat-emulator cert: ${s}` : s) });
  try {
    program.parse(args, { from: "user" });
  } catch (e) {
    if (e instanceof CommanderError) process.exit(e.exitCode === 0 ? 0 : 2);
    throw e;
  }
  let made;
  try {
    made = localCa(configDir());
  } catch (e) {
    if (e instanceof TlsError) fail(e.message);
    throw e;
  }
  const { paths, created } = made;
  if (program.opts<{ json?: boolean }>().json) {
    process.stdout.write(JSON.stringify({ ca: paths.caCert, caKey: paths.caKey, cert: paths.cert, key: paths.key, created }) + "\n");
    return;
  }
  const ca = paths.caCert;
  process.stdout.write(
    [
      `Local certificate authority${created.ca ? " (made now)" : ""}: ${ca}`,
      `Server certificate --https serves (all emulator host names): ${paths.cert}`,
      `  its key: ${paths.key}`,
      "",
      "Trust the CA once; every later `chat-emulator --https` start is then trusted:",
      ...trustCommands(ca).map(([where, command]) => `  ${where.padEnd(24)}  ${command}`),
      "",
      "The folder comes from CHAT_EMULATOR_CONFIG_DIR, else the system's configuration folder; --cert/--key override.",
      "",
    ].join("\n"),
  );
}
