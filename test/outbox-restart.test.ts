import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startEmulator } from "../src/index.js";
import { REST_KEY } from "./helpers.js";

/**
 * Issue 35, item 6: the notification outbox is volatile, like the request journal (docs/notifications.md, "Across
 * restarts"). A restart with --data keeps the state (providers, push tokens, preferences, messages) and starts
 * with an empty outbox, so GET /notifications/v1/logs answers no logs until new changes are notified.
 */

const dir = mkdtempSync(join(tmpdir(), "outbox-restart-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the notification outbox across restarts", () => {
  it("docs/notifications.md says so", () => {
    const doc = readFileSync(new URL("../docs/notifications.md", import.meta.url), "utf8");
    const section = doc.slice(doc.indexOf("### Across restarts"));
    expect(section).toMatch(/^### Across restarts\n\nThe outbox is \*\*volatile\*\*, like the request journal/);
    expect(section).toContain("`GET /v3/notifications/v1/logs` answers `{data: [], meta: {current: {limit: 20, count: 0}}}`");
  });

  it("is volatile: restarted with --data, the state is kept and the outbox and logs start empty", async () => {
    const data = join(dir, "state.json");
    const N = "/v3/notifications";
    const FCM = { providerId: "fcm-main", serviceAccountCreds: { project_id: "p1", client_email: "sa@p1.test", private_key: "key0123456789" } };
    const call = async (base: string, method: string, path: string, body?: unknown, onBehalfOf?: string) => {
      const headers: Record<string, string> = { apikey: REST_KEY, "content-type": "application/json" };
      if (onBehalfOf) headers.onbehalfof = onBehalfOf;
      const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as any };
    };

    const first = await startEmulator({ quiet: true, data });
    const api = (method: string, path: string, body?: unknown, as?: string) => call(first.url, method, path, body, as);
    expect((await api("POST", `${N}/push/v1/providers/fcm`, FCM)).status).toBe(200);
    const authToken = (await api("POST", "/v3/users/superhero2/auth_tokens", { force: true })).body.data.authToken;
    expect((await api("POST", `${N}/push/v1/tokens`, { platform: "fcm_android", fcmToken: "phone-2", authToken })).status).toBe(200);
    const sent = await api("POST", "/v3/messages", { receiver: "superhero2", receiverType: "user", data: { text: "before the restart" } }, "superhero1");
    expect(sent.status).toBe(200);
    expect(first.notifications.list({ uid: "superhero2", channel: "push" })).toHaveLength(1);
    expect((await api("GET", `${N}/v1/logs`)).body.data).toHaveLength(1);
    await first.close();

    const second = await startEmulator({ quiet: true, data });
    const again = (method: string, path: string, body?: unknown, as?: string) => call(second.url, method, path, body, as);
    try {
      // The state is kept: the message, the provider and the push token.
      expect((await again("GET", `/v3/messages/${sent.body.data.id}`)).body.data.data.text).toBe("before the restart");
      expect(JSON.stringify((await again("GET", `${N}/push/v1/providers/fcm`)).body.data)).toContain('"fcm-main"');
      // The outbox is not: no notification, and the platform's logs operation answers an empty page.
      expect(second.notifications.list()).toEqual([]);
      expect((await fetch(`${second.url}/_emulator/notifications`).then((r) => r.json())).notifications).toEqual([]);
      const logs = await again("GET", `${N}/v1/logs`);
      expect(logs.status).toBe(200);
      expect(logs.body.data).toEqual([]);
      expect(logs.body.meta.current).toEqual({ limit: 20, count: 0 });
      // New changes are notified as before.
      await again("POST", "/v3/messages", { receiver: "superhero2", receiverType: "user", data: { text: "after" } }, "superhero1");
      expect(second.notifications.list({ uid: "superhero2", channel: "push" })).toHaveLength(1);
    } finally {
      await second.close();
    }
  });
});
