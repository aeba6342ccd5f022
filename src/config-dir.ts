import { homedir } from "node:os";
import { join } from "node:path";

/**
 * The user's configuration folder for chat-emulator, where what should outlive one run is kept (the local
 * certificate authority). `CHAT_EMULATOR_CONFIG_DIR` wins (tests and CI point it elsewhere); otherwise each
 * system's convention: `%APPDATA%\chat-emulator` on Windows, `~/Library/Application Support/chat-emulator` on macOS,
 * `$XDG_CONFIG_HOME/chat-emulator` (default `~/.config/chat-emulator`) elsewhere.
 */
export function configDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform, home = homedir()): string {
  if (env.CHAT_EMULATOR_CONFIG_DIR) return env.CHAT_EMULATOR_CONFIG_DIR;
  if (platform === "win32") return join(env.APPDATA || join(home, "AppData", "Roaming"), "chat-emulator");
  if (platform === "darwin") return join(home, "Library", "Application Support", "chat-emulator");
  return join(env.XDG_CONFIG_HOME || join(home, ".config"), "chat-emulator");
}
