import { inject } from "vitest";

/**
 * `chat-emulator/vitest/setup` (setupFiles): runs before each test file, against the emulator that
 * chat-emulator/vitest started, and does what its `perFile` option says (reset the apps, or make the file an app
 * of its own).
 */

const context = inject("chatEmulator");
if (!context) throw new Error("chat-emulator/vitest/setup: add chat-emulator/vitest to globalSetup as well.");

async function call(url: string, init: RequestInit = {}): Promise<any> {
  const res = await fetch(url, { method: "POST", ...init, headers: { "content-type": "application/json", ...init.headers } });
  if (!res.ok) throw new Error(`chat-emulator/vitest/setup: ${url} answered ${res.status}: ${await res.text()}`);
  return res.json();
}

Object.assign(process.env, context.env);
if (context.perFile === "reset") {
  const token: Record<string, string> = context.controlToken ? { "x-emulator-token": context.controlToken } : {};
  await call(`${context.env.CHAT_EMULATOR_URL}/_emulator/reset`, { body: "{}", headers: token });
} else if (context.perFile === "app") {
  const { url, key, secret } = context.management;
  const region = context.env.CHAT_EMULATOR_REGION ?? "us";
  const { data } = await call(`${url}/apps`, { headers: { key, secret }, body: JSON.stringify({ name: "vitest file", region }) });
  const keys = Object.values(data.apiKeys as Record<string, { apiKey: string; scope: string }>);
  Object.assign(process.env, {
    CHAT_EMULATOR_APP_ID: data.id,
    CHAT_EMULATOR_REGION: data.region,
    CHAT_EMULATOR_API_KEY: keys.find((k) => k.scope === "fullAccess")!.apiKey,
    CHAT_EMULATOR_AUTH_KEY: keys.find((k) => k.scope === "authOnly")!.apiKey,
    CHAT_EMULATOR_BASE_URL: `${context.env.CHAT_EMULATOR_URL}/${data.id}.api-${data.region}/v3`,
  });
}
