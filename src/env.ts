import type { RunningEmulator } from "./index.js";

/**
 * The environment a program under test needs to reach a running emulator, as `exec`, the test-runner helpers
 * and CI examples hand it over. Only the URL is set when the emulator has no apps.
 */
export function emulatorEnv(e: Pick<RunningEmulator, "url" | "defaultApp" | "baseUrl" | "management" | "tls">): Record<string, string> {
  const env: Record<string, string> = { CHAT_EMULATOR_URL: e.url, CHAT_EMULATOR_MANAGEMENT_URL: e.management.url };
  const app = e.defaultApp;
  if (app) {
    env.CHAT_EMULATOR_APP_ID = app.appId;
    env.CHAT_EMULATOR_REGION = app.region;
    env.CHAT_EMULATOR_API_KEY = app.restApiKey;
    env.CHAT_EMULATOR_AUTH_KEY = app.authKey;
    env.CHAT_EMULATOR_BASE_URL = e.baseUrl();
  }
  if (e.tls) env.CHAT_EMULATOR_CA_CERT = e.tls.certPath;
  return env;
}
