// Screenshots of the web inspector's main views for the docs: docs/inspector-*.png at 1280x800.
//   npm run build && node scripts/screenshots.mjs
// Starts the built emulator with a little demo activity (a second app, a thread, reactions, an edit, a deletion, a member
// added, a webhook that works and one that fails, a fault rule), then takes each view in headless Chromium
// (scripts/chromium.mjs; for emoji in reactions install a colour emoji font, e.g. Debian's fonts-noto-color-emoji).
import { createServer } from "node:http";
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { WebSocket } from "ws";
import { startEmulator } from "../dist/index.js";
import { launchChromium } from "./chromium.mjs";

const DOCS = fileURLToPath(new URL("../docs/", import.meta.url));
mkdirSync(DOCS, { recursive: true });

// Webhook receivers: one answers 200, the other 500.
const receiver = createServer((req, res) => {
  req.resume().on("end", () => {
    res.statusCode = req.url === "/broken" ? 500 : 200;
    res.end();
  });
});
await new Promise((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const hookBase = `http://127.0.0.1:${receiver.address().port}`;

const emulator = await startEmulator({ quiet: true, randomSeed: 7 });
const app = emulator.defaultApp;
const base = emulator.baseUrl();

async function call(method, path, body, onBehalfOf, root = base, headers = {}) {
  const res = await fetch(root + path, {
    method,
    headers: { apikey: app.restApiKey, "content-type": "application/json", ...(onBehalfOf ? { onBehalfOf } : {}), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.json();
}
const say = (from, text, to = "supergroup", receiverType = "group") =>
  call("POST", "/messages", { receiver: to, receiverType, category: "message", type: "text", data: { text } }, from).then((r) => r.data);
const mgmt = (method, path, body) =>
  call(method, path, body, undefined, emulator.management.url, { key: emulator.management.key, secret: emulator.management.secret, "x-webhook-version": "2" });

await mgmt("POST", "/apps", { name: "Staging", region: "eu", skipSampleData: false });
await mgmt("POST", `/apps/${app.appId}/webhooks`, { id: "backend", name: "My backend", webhookURL: `${hookBase}/hooks`, retryOnFailure: false });
await mgmt("POST", `/apps/${app.appId}/webhooks/backend/triggers`, { triggerIds: ["message_sent", "group_member_added", "message_reaction_added"] });
await mgmt("POST", `/apps/${app.appId}/webhooks`, { id: "analytics", name: "Analytics", webhookURL: `${hookBase}/broken` });
await mgmt("POST", `/apps/${app.appId}/webhooks/analytics/triggers`, { triggerIds: ["message_sent"] });

await call("POST", "/users", { uid: "alice", name: "Alice Liddell", tags: ["beta"], withAuthToken: true });
await call("POST", "/users/alice/auth_tokens", {});
await call("POST", "/users", { uid: "old-account", name: "Old Account" });
await call("DELETE", "/users", { uidsToDeactivate: ["old-account"] });

const plan = await say("superhero2", "Team meeting at 5? We need a plan for the weekend.");
await call("POST", `/messages/${plan.id}/reactions/${encodeURIComponent("👍")}`, undefined, "superhero1");
await call("POST", `/messages/${plan.id}/reactions/${encodeURIComponent("🔥")}`, undefined, "superhero3");
await call("POST", `/messages/${plan.id}/thread`, { category: "message", type: "text", data: { text: "5 works for me." } }, "superhero1");
await call("POST", `/messages/${plan.id}/thread`, { category: "message", type: "text", data: { text: "Count me in!" } }, "superhero3");
const typo = await say("superhero3", "I'll bring the snaks");
await call("PUT", `/messages/${typo.id}`, { data: { text: "I'll bring the snacks" } }, "superhero3");
const oops = await say("superhero1", "Wrong chat, sorry");
await call("DELETE", `/messages/${oops.id}`, {}, "superhero1");
await call("POST", "/groups/supergroup/members", { participants: ["alice"] });
await say("alice", "Hi all, thanks for adding me 👋");
await say("superhero1", "Welcome aboard, <@uid:alice>!");
await say("superhero2", "Did you see the new suit?", "superhero1", "user");
await call("GET", "/users/ghost");

// Moderation: a rule that holds a message back, and a message a user flagged.
await call("PUT", "/moderation/rules/text-profanity-filter", { enabled: true }).catch(() => {});
await say("superhero4", "What the hell happened here?", "superhero5", "user");
const rude = await say("superhero2", "Cheap suits, buy now at suits.example!", "supergroup");
await call("POST", `/messages/${rude.id}/flagged`, { id: "spam", remark: "advert" }, "superhero3");

// Extensions: two switched on, one of which changes what a message carries.
await mgmt("POST", `/apps/${app.appId}/extensions`, { enabled: ["profanity-filter", "link-preview"] });
await say("superhero3", "Look: https://example.com/suit");

// Notifications: a push provider, a device token, then a message that notifies.
await call("POST", "/notifications/push/v1/providers/fcm", { providerId: "fcm", serviceAccountCreds: { project_id: "p", client_email: "c@p.test", private_key: "k" } });
const { data: spidey } = await call("POST", "/users/superhero3/auth_tokens", {});
await call("POST", "/notifications/push/v1/tokens", { platform: "fcm_web", fcmToken: "spidey-web", authToken: spidey.authToken });
await say("superhero1", "Briefing in ten minutes.");

// Realtime: superhero2 connected over the WebSocket as the SDK would, then sent a message.
const device = "WEB-4_2_0-screens";
const client = `${emulator.url}/${app.appId}.apiclient-${app.region}/v3.0`;
const { data: hero2 } = await call("POST", "/users/superhero2/auth_tokens", { force: true });
const me = await fetch(`${client}/me`, {
  method: "PUT",
  headers: { appid: app.appId, authtoken: hero2.authToken, resource: device, "content-type": "application/json" },
  body: JSON.stringify({ platform: "WEB", deviceId: `${app.appId}_${device}` }),
}).then((r) => r.json());
const socket = new WebSocket(emulator.url.replace(/^http/, "ws"));
await new Promise((resolve) => socket.once("open", resolve));
socket.send(JSON.stringify({ appId: app.appId, deviceId: device, type: "auth", sender: "superhero2", body: { auth: me.data.jwt, deviceId: device, presenceSubscription: "ALL_USERS" } }));
await new Promise((resolve) => socket.once("message", resolve));
await say("superhero1", "Are you online?", "superhero2", "user");

emulator.rules.add({ match: { method: "POST", path: "/v3/messages" }, effect: { status: 503 }, times: 1 });
emulator.rules.add({ match: { path: "/v3/users*" }, effect: { latencyMs: 250, jitterMs: 100 } });
await say("superhero4", "Anyone there?");
await call("GET", "/users?perPage=5");
emulator.snapshot("after-demo");
await new Promise((resolve) => setTimeout(resolve, 300)); // webhook deliveries

const browser = await launchChromium();
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
const ui = `${emulator.url}/_emulator/ui`;
const at = (hash) => `${ui}#/app/${app.appId}/${hash}`;

async function shot(name, url, prepare) {
  await page.goto(url);
  await page.waitForLoadState("networkidle");
  await prepare?.();
  await page.waitForTimeout(300);
  await page.screenshot({ path: `${DOCS}inspector-${name}.png` });
  console.log(`docs/inspector-${name}.png`);
}

await shot("home", `${ui}#/`);
await shot("conversation", at("conversations/group_supergroup"), async () => {
  await page.click(".replies");
  await page.locator(".thread .message").first().waitFor();
  await page.selectOption('.chat select[aria-label="Send as"]', "superhero2");
  await page.fill('.chat input[aria-label="Message text"]', "On my way!");
});
await shot("users", at("users"), () => page.selectOption('select[aria-label="Deactivated users"]', "all"));
await shot("groups", at("groups/supergroup"));
await shot("requests", `${ui}#/requests`, async () => {
  await page.locator("tr[data-request]", { hasText: "503" }).first().click();
  await page.locator(".drawer").waitFor();
});
await shot("deliveries", `${ui}#/deliveries`);
await shot("rules", `${ui}#/rules`);
await shot("control", `${ui}#/control`);
await shot("moderation", at("moderation"));
await shot("extensions", at("extensions"));
await shot("notifications", `${ui}#/notifications`);
await shot("realtime", `${ui}#/realtime`);
socket.close();

await browser.close();
await emulator.close();
receiver.close();
