import type { Json, JsonObject } from "../store/types.js";

/**
 * The one table of extensions: what `GET /apps/{appId}/extensions` lists, which ids enable/disable accepts, and
 * for those with settings, the operations their `/extensions/{id}/v1/settings` path serves and the fields each
 * accepts (from the platform's management OpenAPI file: its `*RequestSchema` per extension). Settings handlers
 * are generic over this table; effects on messages live in effects.ts.
 */

export type SettingType = "string" | "boolean" | "number" | "integer" | "object" | "strings" | "objects";

export interface SettingField {
  type: SettingType;
  required?: boolean;
  /** Allowed values (numbers for the push provider and version codes). */
  in?: readonly Json[];
}

/** `crud`: POST store, PUT update, GET, DELETE. `upsert`: PUT stores or updates, GET, DELETE (no POST). */
export type SettingsOps = "crud" | "upsert";

export interface SettingsSpec {
  ops: SettingsOps;
  fields: Record<string, SettingField>;
  /** What GET shows before anything was stored (and what stored settings are merged over). */
  defaults?: JsonObject;
  /** The body's fields sit at the top level instead of under `settings` (stickers). */
  topLevel?: boolean;
  /**
   * The service hands out the URL its platform posts replies to (Intercom, Chatwoot): store, update and get show
   * it as `settings.webhookURL`, next to `settings.appId`.
   */
  replyWebhook?: boolean;
  /**
   * Where the extension's published replies differ from the common `{data: {settings}}` / `{data: {success}}`:
   * `bare` answers `{success: true}` as the body itself (SMS notification), `settingsSuccess` nests the delete's
   * flag under `settings` (Giphy), `settingsAfter` answers the settings left after a delete (XSS filter).
   */
  replies?: { write?: "bare"; delete?: "bare" | "settingsSuccess" | "settingsAfter" };
}

export interface ExtensionSpec {
  id: string;
  name: string;
  tagLine: string;
  /** Internal platform hooks the extension runs on (shown in the list). */
  hooks: readonly ("before_message" | "after_message")[];
  isThirdParty?: boolean;
  settings?: SettingsSpec;
}

const str = (required = true): SettingField => ({ type: "string", required });
const bool = (required = true): SettingField => ({ type: "boolean", required });
const num = (required = true): SettingField => ({ type: "number", required });
const strings = (required = true): SettingField => ({ type: "strings", required });
const objects = (required = true): SettingField => ({ type: "objects", required });
const obj = (required = true): SettingField => ({ type: "object", required });

const crud = (fields: Record<string, SettingField>, extra: Partial<SettingsSpec> = {}): SettingsSpec => ({ ops: "crud", fields, ...extra });
const drop = crud({ dropMessage: bool() });
const report = crud({ maxReports: num(), useWebhook: bool(), webhookURL: str(false), basicAuthUsername: str(false), basicAuthPassword: str(false) });

const PUSH_FLAGS = [
  "sendNewMessageNotification", "sendEditMessageNotification", "sendDeleteMessageNotification",
  "sendThreadedMessageNotification", "sendIncomingCallNotification", "sendMissedCallNotification",
  "sendMemberJoinedNotification", "sendMemberLeftNotification", "sendMemberKickedNotification",
  "sendMemberBannedNotification", "sendMemberUnbannedNotification", "sendMemberAddedNotification",
  "sendMemberScopeChangedNotification",
] as const;

/** Data masking's built-in masks (the dashboard's defaults, switched on). */
export const DEFAULT_MASKS: JsonObject[] = [
  { enableFlag: true, id: "1", name: "US Phone numbers", regex: "[2-9]\\d{2}-\\d{3}-\\d{4}" },
  { enableFlag: true, id: "2", name: "Emails", regex: "\\w+([.-]?\\w+)*@\\w+([.-]?\\w+)*(\\.\\w{2,10})+" },
  { enableFlag: true, id: "3", name: "SSN", regex: "\\d{3}-\\d{2}-\\d{4}" },
];

const BEFORE = ["before_message"] as const;
const AFTER = ["after_message"] as const;
const NONE = [] as const;

function ext(id: string, name: string, tagLine: string, hooks: ExtensionSpec["hooks"], more: Partial<ExtensionSpec> = {}): ExtensionSpec {
  return { id, name, tagLine, hooks, ...more };
}

export const EXTENSIONS: readonly ExtensionSpec[] = [
  ext("widget", "Chat Widget", "Drag-n-drop chat plugin for your website", NONE),
  ext("document", "Collaborative document", "Allows you create and share documents for collaboration", NONE),
  ext("whiteboard", "Collaborative whiteboard", "Allows you create and share whiteboards for collaboration", NONE),
  ext("data-masking", "Data Masking", "Hide phone numbers, email addresses and other sensitive information in messages.", BEFORE, {
    settings: {
      ops: "upsert",
      fields: { dropMessage: bool(), defaultRegexData: objects(false), customregexData: objects(false), deleteCustomRegexData: strings(false) },
      defaults: { dropMessage: false, customregexData: [], defaultRegexData: DEFAULT_MASKS },
    },
  }),
  ext("email-notification", "Email Notification", "Notify users via email for unread messages.", AFTER, {
    isThirdParty: true,
    settings: crud({
      sendGridApiKey: str(false), messageDelay: num(), senderEmail: str(), senderName: str(), sendGridTemplateId: str(),
      sendGridUnsubscribeGroupId: str(), useWebhook: bool(), webhookURL: str(), useWebhookBasicAuth: bool(),
      webhookUsername: str(), webhookPassword: str(),
    }),
  }),
  ext("email-replies", "Email Replies", "Reply to texts directly via emails", NONE, {
    settings: crud({ senderEmailForReplies: str(false), sendEmailReplies: bool() }),
  }),
  ext("emojis", "Emojis", "Emojis for web", BEFORE),
  ext("gifs-gfycat", "Gfycat", "Get the best GIFS for all your conversations", NONE),
  ext("gifs-giphy", "Giphy", "Be Animated", NONE, { settings: crud({ giphyApiKey: str() }, { replies: { delete: "settingsSuccess" } }) }),
  ext("image-moderation", "Image Moderation", "AI-powered image moderation to detect unsafe content.", BEFORE, { isThirdParty: true, settings: drop }),
  ext("report-user", "Report User", "Enable users to report other users", NONE, { settings: report }),
  ext("report-message", "Report Message", "Enable users to report messages in chat", NONE, { settings: report }),
  ext("stickers-stipop", "Stipop", "Used to create meaningful experiences in your app with stickers that users love.", NONE, {
    isThirdParty: true,
    settings: crud({ stipopApiKey: str(), stipopAppId: str() }),
  }),
  ext("url-shortener-tinyurl", "TinyURL", "Helps you convert your long website links into short, manageable URLs.", NONE, {
    isThirdParty: true,
    settings: crud({ tinyUrlAPIToken: str(), tinyUrlDomain: str() }),
  }),
  ext("url-shortener-bitly", "Bitly", "Shorten the links in your messages with Bitly.", NONE, {
    isThirdParty: true,
    settings: crud({ bitlyAccessToken: str(), groupGUID: str() }),
  }),
  ext("human-moderation", "In-flight Message Moderation", "Review messages before they reach their receivers.", BEFORE, {
    settings: crud({
      allUserMessages: bool(), allGroupMessages: bool(), senders: strings(), receiverGroups: strings(), receiverUsers: strings(), allMessages: bool(),
    }),
  }),
  ext("link-preview", "Link Preview", "Show a preview of the web page for every link in a message.", BEFORE),
  ext("mentions", "Mentions", "Mention users in group conversations.", NONE),
  ext("voice-transcription", "Voice Transcription", "Transcribe audio messages to text.", AFTER, {
    isThirdParty: true,
    settings: crud({ revaiAPIKey: str() }),
  }),
  ext("message-translation", "Message Translation", "Translate messages into multiple languages.", NONE),
  ext("pin-message", "Pin Message", "Pin messages in a conversation.", NONE),
  ext("polls", "Polls", "Create polls in conversations.", NONE),
  ext("profanity-filter", "Profanity Filter", "Mask or hide profanity in messages.", BEFORE, {
    settings: crud({ dropMessage: bool(), badwords: strings() }, { defaults: { dropMessage: false, badwords: [] } }),
  }),
  ext("push-notification", "Push Notification", "Notify users of new messages on their devices.", AFTER, {
    settings: crud({
      version: { type: "integer", required: true, in: [0, 1, 2] },
      pushProvider: { type: "integer", required: true, in: [0, 1, 2] },
      fcmCredentials: obj(false),
      notificationInPayload: obj(false),
      useP8: bool(false),
      keyId: str(false),
      teamId: str(false),
      bundleId: str(false),
      sendApnsProduction: bool(false),
      ...Object.fromEntries(PUSH_FLAGS.map((f) => [f, bool(false)])),
      appId: str(false),
      cometchatMessagePayloadOptions: obj(false),
    }),
  }),
  ext("reactions", "Reactions", "React to messages with emojis.", NONE),
  ext("rich-media", "Rich Media Preview", "Ready-to-render previews of links in messages.", BEFORE, {
    isThirdParty: true,
    settings: crud({ iframelyApiKey: str() }),
  }),
  ext("save-message", "Save Message", "Save messages for later.", NONE),
  ext("sentiment-analysis", "Sentiment Analysis", "Understand the tone of messages.", BEFORE, { isThirdParty: true, settings: drop }),
  ext("smart-reply", "Smart Reply", "Suggested replies for messages.", AFTER),
  ext("sms-notification", "SMS Notification", "Notify users via sms for unread messages.", AFTER, {
    settings: crud(
      { fromMobileNo: str(), messageDelay: num(), twilioAccountSid: str(), twilioAuthToken: str(), websiteURL: str() },
      { replies: { write: "bare", delete: "bare" } },
    ),
  }),
  ext("gifs-tenor", "Tenor", "Search and send GIFs from Tenor.", NONE, { isThirdParty: true, settings: crud({ tenorApiKey: str() }) }),
  ext("e2ee", "End-to-end Encryption", "Encrypt messages end to end with Virgil.", NONE, {
    isThirdParty: true,
    settings: crud({ virgilAppID: str(), virgilAppKeyID: str(), virgilAppKey: str() }),
  }),
  ext("stickers", "Stickers", "Enables Stickers.", AFTER, {
    settings: {
      ops: "upsert",
      topLevel: true,
      fields: { defaultMasterStickersData: objects(false), customStickersData: objects(false) },
      defaults: { dropMessage: false, defaultMasterStickersData: [], customStickersData: [] },
    },
  }),
  ext("intercom", "Intercom", "Connect and exchange messages between CometChat and Intercom", AFTER, {
    isThirdParty: true,
    settings: crud({ intercomAccessToken: str(), customerSupportUid: str() }, { replyWebhook: true }),
  }),
  ext("chatwoot", "Chatwoot", "Connect and exchange messages between CometChat and Chatwoot", AFTER, {
    isThirdParty: true,
    settings: crud({ chatwootAccessToken: str(), chatwootAccountId: str(), chatwootInboxId: str(), customerSupportUid: str() }, { replyWebhook: true }),
  }),
  ext("broadcast", "Video Broadcasting", "Real-time live video streaming & broadcasting to 1000s of viewers", NONE, {
    isThirdParty: true,
    settings: crud({ apiVideoKey: str(), recordVideo: bool() }),
  }),
  ext("virus-malware-scanner", "Virus Malware Scanner", "Scan user uploaded files & media for viruses and malware.", AFTER, {
    isThirdParty: true,
    settings: crud({ scaniiApiKey: str(), scaniiSecretKey: str() }),
  }),
  ext("xss-filter", "XSS Filter", "Sanitize messages to prevent cross-site scripting.", BEFORE, {
    settings: crud({ dropMessage: bool() }, { defaults: { dropMessage: false }, replies: { delete: "settingsAfter" } }),
  }),
  ext("message-shortcuts", "Message Shortcuts", "Send frequent messages with shortcuts.", NONE, { settings: crud({ shortcuts: obj() }) }),
  ext("thumbnail-generation", "Thumbnail Generation", "Thumbnails for the images and videos in messages.", AFTER),
];

export const EXTENSION_BY_ID: ReadonlyMap<string, ExtensionSpec> = new Map(EXTENSIONS.map((e) => [e.id, e]));

/** The extensions with a `/v1/settings` path (the published file documents 26 of them). */
export const WITH_SETTINGS = EXTENSIONS.filter((e) => e.settings);
