import { Option, type Command } from "commander";
import type { EmulatorOptions, RunningEmulator } from "../index.js";
import { LOG_FORMATS, type LogFormat } from "../log.js";
import { VERSION } from "../version.js";

/** The CLI flags for HTTPS and the request log, kept beside the core flags of cli.ts. */

export interface ServeFlags {
  https?: boolean;
  cert?: string;
  key?: string;
  logFormat: LogFormat;
  quiet?: boolean;
}

export function addServeOptions(program: Command): Command {
  return program
    .addOption(new Option("--https", "serve HTTPS with the local CA's certificate, kept across starts (see: chat-emulator cert)").env("CHAT_EMULATOR_HTTPS"))
    .addOption(new Option("--cert <file>", "PEM certificate to serve HTTPS with (with --key; implies --https)").env("CHAT_EMULATOR_CERT"))
    .addOption(new Option("--key <file>", "PEM private key of --cert").env("CHAT_EMULATOR_KEY"))
    .addOption(new Option("--log-format <format>", "request log lines for people or machines").choices(LOG_FORMATS).default("text").env("CHAT_EMULATOR_LOG_FORMAT"));
}

/** The emulator options these flags stand for; request log lines go to `out` unless --quiet. */
export function serveOptions(o: ServeFlags, out: NodeJS.WritableStream): Partial<EmulatorOptions> {
  return {
    https: o.https,
    cert: o.cert,
    key: o.key,
    logFormat: o.logFormat,
    requestLog: o.quiet ? undefined : (line) => out.write(line + "\n"),
  };
}

/** The start banner's content as one JSON line, for `--log-format json` (so that the output is all JSON lines). */
export function jsonBanner(e: RunningEmulator, data: string | undefined): string {
  return (
    JSON.stringify({
      event: "listening",
      version: VERSION,
      url: e.url,
      baseUrl: e.defaultApp ? e.baseUrl() : null,
      defaultApp: e.defaultApp ?? null,
      management: e.management,
      control: `${e.url}/_emulator`,
      inspector: `${e.url}/_emulator/ui`,
      data: data ?? null,
      certificate: e.tls?.certPath ?? null,
    }) + "\n"
  );
}
