import type { Ctx } from "../http/context.js";
import type { AppState } from "../store/app-state.js";
import { FILE_COUNT_MAX, FILE_SIZE_MAX } from "../store/files.js";

/** A path label of the client plane as the request wrote it: `/{appId}.apiclient-{region}`. */
const CLIENT_PATH_LABEL = /^\/[a-z0-9]+\.apiclient-[a-z]+(?=\/|$)/i;

/**
 * The app settings the SDK caches at login (`PUT /me`, `GET /settings`) and builds every later URL from: they
 * point it back at this emulator, on the host, port and label form the request came in on. The client API is
 * `https://{CLIENT_API_HOST}/{CHAT_API_VERSION}/...`, so a path label rides in the host string; the WebSocket is
 * `wss://{CHAT_HOST}:{CHAT_WSS_PORT}` on the same port. Analytics pings, polling and extensions are off.
 */
export function clientSettings(c: Ctx, app: AppState): Record<string, unknown> {
  const url = new URL(c.req.url);
  const secure = url.protocol === "https:";
  const port = url.port || (secure ? "443" : "80");
  const { appId, region } = app.meta;
  const label = CLIENT_PATH_LABEL.exec(url.pathname)?.[0];
  const clientHost = clientHostOf(url);
  const adminHost = label ? `${url.host}/${appId}.api-${region}` : url.host.replace(/\.apiclient-/i, ".api-");
  return {
    CHAT_HOST: url.hostname,
    CHAT_WSS_PORT: port,
    CHAT_WS_PORT: port,
    CHAT_USE_SSL: secure,
    CLIENT_API_HOST: clientHost,
    ADMIN_API_HOST: adminHost,
    CHAT_API_VERSION: "v3.0",
    WS_API_VERSION: "v3.0",
    MODE: "DEFAULT",
    REGION: region,
    MAIN_DOMAIN: url.hostname,
    EXTENSION_DOMAIN: url.hostname,
    POLLING_ENABLED: false,
    DENY_FALLBACK_TO_POLLING: true,
    ANALYTICS_PING_DISABLED: true,
    extensions: [],
    // The SDK's upload limits (`getUploadLimits`).
    "file.size.max": FILE_SIZE_MAX,
    "file.count.max": FILE_COUNT_MAX,
    // The app's settings map: the SDK reads its conversation-update switches and AI feature flags here.
    parameters: app.management.settings,
  };
}

/** `CLIENT_API_HOST`: the request's host, with the path label when it came with one. */
function clientHostOf(url: URL): string {
  const label = CLIENT_PATH_LABEL.exec(url.pathname)?.[0];
  return label ? `${url.host}${label}` : url.host;
}

/** The client API's base URL as the request reached it (`https://127.0.0.1:4780/{appId}.apiclient-us/v3.0`). */
export function clientApiBase(c: Ctx): string {
  const url = new URL(c.req.url);
  return `${url.protocol}//${clientHostOf(url)}/v3.0`;
}
