/**
 * The one error catalogue: every platform code the emulator sends, with its HTTP status and message templates.
 * Statuses follow ../shared/reference/errors.md (observed where known, its inferred defaults otherwise).
 * Templates use {name} placeholders filled from the params given to `apiError`.
 */

export interface ErrorSpec {
  status: number;
  message: string;
  /** Defaults to `message` with "please" turned into "so please" where the platform does that; else same text. */
  devMessage?: string;
}

const VALIDATION = "Failed to validate the data sent with the request.";

export const ERRORS = {
  // Authentication and addressing
  AUTH_ERR_EMPTY_APPID: { status: 401, message: "The appId is missing. Please use a correct appId." },
  AUTH_ERR_INVALID_APPID: {
    status: 401,
    message: "The appId {appId} is invalid or does not exist in the region {region}. Please use a correct appId and region.",
  },
  AUTH_ERR_EMPTY_APIKEY: { status: 401, message: "The apiKey is missing. Please provide an apiKey in the request header." },
  AUTH_ERR_APIKEY_NOT_FOUND: {
    status: 401,
    message: "The key {key} does not exist. Please use correct apiKey.",
    devMessage: "The {key} key doesn't work. Please use correct apiKey.",
  },
  // Also the refusal of a call made on behalf of a user whose role or group scope does not allow it.
  AUTH_ERR_NO_ACCESS: { status: 403, message: "{subject} cannot be used to perform this operation. {remedy}" },
  // Client plane (what the SDK calls): the `authToken` header names the acting user.
  AUTH_ERR_EMPTY_AUTH_TOKEN: { status: 401, message: "The authToken is missing. Please provide an authToken in the request header." },
  AUTH_ERR_AUTH_TOKEN_NOT_FOUND: {
    status: 401,
    message: "The auth token {authToken} does not exist. Please log in again with a valid auth token.",
  },
  // The calls SDK's token check (`GET call_tokens` with a `callToken` header); the platform's code is not published.
  AUTH_ERR_INVALID_CALL_TOKEN: {
    status: 401,
    message: "The call token is invalid, or its auth token no longer exists. Generate a new one with CometChatCalls.generateToken().",
  },
  // {missing}: "key and secret headers are" (management plane) or "Basic authorization header is" (`/tenants`).
  AUTH_ERR_EMPTY_AUTH_HEADER: {
    status: 401,
    message: "The {missing} missing. Please provide the management key and secret.",
  },
  AUTH_ERR_INVALID_CREDENTIALS: {
    status: 401,
    message: "The key {key} and the given secret do not match. Please use correct management credentials.",
  },

  // General
  ERR_API_NOT_FOUND: { status: 404, message: "The API endpoint is invalid. Please verify the API call." },
  ERR_BAD_REQUEST: { status: 400, message: VALIDATION },
  ERR_PAYLOAD_TOO_LARGE: { status: 413, message: "The request body is larger than {limit}. Please send a smaller body." },
  ERR_TOO_MANY_REQUESTS: {
    status: 429,
    message: "Too many requests. You have exceeded the rate limit. Please retry after the specified time.",
  },
  ERR_OPERATION_FAILED: { status: 503, message: "The operation failed. Please try again." },
  ERR_PLAN_QUOTA_RESTRICTION: { status: 403, message: "{what} Please contact support to raise the limit." },
  // A feature the app's settings switch off (the AI features: `features.ai.*`).
  ERR_PLAN_RESTRICTION: { status: 403, message: "The feature {feature} is not enabled for the app {appId}. Please enable it first." },
  // Campaigns on the client plane (the notification feed and campaign pushes the SDK reads): the codes the SDK knows.
  FEED_ITEM_NOT_FOUND: { status: 404, message: "The feed item {id} does not exist." },
  PUSH_NOTIFICATION_NOT_FOUND: { status: 404, message: "The push notification {id} does not exist." },

  // The campaigns service (`/v3/campaigns`, docs rest-api/campaigns-apis/overview): its own codes, answered with
  // `source: "campaigns-service"`; messages carry no ids (devMessages and details do), validation details are a list.
  ERR_VALIDATION: { status: 400, message: "Validation failed.", devMessage: "Validation failed: {problems}" },
  ERR_UNAUTHORIZED: { status: 401, message: "{reason}" },
  ERR_FORBIDDEN: { status: 403, message: "{reason}" },
  ERR_NOT_FOUND: { status: 404, message: "Resource not found.", devMessage: "Cannot {method} {path}" },
  ERR_CONFLICT: { status: 409, message: "{reason}", devMessage: "{devReason}" },
  ERR_TEMPLATE_NOT_FOUND: { status: 404, message: "Template not found", devMessage: "Template not found: {id}" },
  ERR_CATEGORY_NOT_FOUND: { status: 404, message: "Category not found", devMessage: "Category not found: {id}" },
  ERR_CHANNEL_NOT_FOUND: { status: 404, message: "Channel not found", devMessage: "Channel not found: {id}" },
  ERR_CAMPAIGN_NOT_FOUND: { status: 404, message: "Campaign not found", devMessage: "Campaign not found: {id}" },
  ERR_FEED_ITEM_NOT_FOUND: { status: 404, message: "Feed item not found", devMessage: "Feed item not found: {id}" },
  ERR_PUSH_NOTIFICATION_NOT_FOUND: { status: 404, message: "Push notification not found", devMessage: "Push notification not found: {id}" },
  ERR_USER_NOT_FOUND: { status: 404, message: "User not found", devMessage: "User not found: {id}" },
  ERR_IMPORT_NOT_FOUND: { status: 404, message: "No active import found", devMessage: "No import found for campaign {id}" },

  // API keys
  ERR_APIKEY_NOT_FOUND: { status: 404, message: "The apiKey {key} does not exist. Please use a correct apiKey." },
  ERR_APIKEY_NO_SELF_ACTION: {
    status: 403,
    message: "The apiKey {key} cannot be used to update or delete itself. Please use another apiKey.",
  },

  // Users
  ERR_UID_NOT_FOUND: {
    status: 404,
    message: "The UID {uid} does not exist, please make sure you have created a user with UID {uid}.",
    devMessage: "The UID {uid} does not exist, so please make sure you have created a user with UID {uid}.",
  },
  ERR_UID_ALREADY_EXISTS: {
    status: 400,
    message: "The uid {uid} already exists. Please use another uid or try after permanently deleting the user.",
  },

  // Auth tokens
  ERR_AUTH_TOKEN_NOT_FOUND: {
    status: 404,
    message: "The auth token {authToken} does not exist for the user {uid}. Please use a valid auth token.",
  },

  // Groups, members, bans
  ERR_GUID_NOT_FOUND: {
    status: 404,
    message: "The GUID {guid} does not exist, please make sure you have created a group with GUID {guid}.",
    devMessage: "The GUID {guid} does not exist, so please make sure you have created a group with GUID {guid}.",
  },
  ERR_GUID_ALREADY_EXISTS: {
    status: 400,
    message: "The guid {guid} already exists. Please use another guid or try after deleting the group.",
  },
  ERR_EMPTY_GROUP_PASS: {
    status: 400,
    message: "The password is required for a password protected group. Please provide a password.",
  },
  ERR_WRONG_GROUP_PASS: { status: 403, message: "The password for the group {guid} is incorrect. Please provide the correct password." },
  ERR_NOT_A_MEMBER: { status: 404, message: "The user with UID {uid} is not a member of the group {guid}." },
  ERR_ALREADY_JOINED: { status: 400, message: "The user with UID {uid} is already a member of the group {guid}." },
  ERR_GROUP_NOT_JOINED: {
    status: 403,
    message: "The user with UID {uid} has not joined the group {guid}. Please join the group to perform this operation.",
  },
  ERR_GROUP_JOIN_NOT_ALLOWED: {
    status: 403,
    message: "The user with UID {uid} cannot join the {type} group {guid}. Please ask an admin to add the user.",
  },
  ERR_SAME_SCOPE: { status: 403, message: "The user with UID {uid} already has the scope {scope} in the group {guid}." },
  ERR_BANNED_GROUPMEMBER: { status: 403, message: "The user with UID {uid} is banned from the group {guid}." },
  ERR_ALREADY_BANNED: { status: 400, message: "The user with UID {uid} is already banned from the group {guid}." },
  ERR_NOT_A_BANNED_USER: { status: 404, message: "The user with UID {uid} is not banned from the group {guid}." },
  ERR_GROUP_NO_CLEARANCE: {
    status: 403,
    message: "The user with UID {uid} does not have the clearance to perform this operation on {target} in the group {guid}.",
  },
  ERR_GROUP_NO_SCOPE_CLEARANCE: {
    status: 403,
    message: "The user with UID {uid} cannot assign the scope {scope} in the group {guid}.",
  },
  ERR_GROUP_NO_ADMIN_SCOPE: {
    status: 403,
    message: "The user with UID {uid} needs the admin scope in the group {guid} to perform this operation.",
  },
  ERR_GROUP_NO_SELF_ACTION: {
    status: 403,
    message: "The user with UID {uid} cannot perform this operation on themselves in the group {guid}.",
  },

  // Messages, threads, reactions, conversations
  ERR_EMPTY_RECEIVER: { status: 400, message: "The receiver is missing. Please provide the uid or guid of the receiver." },
  ERR_INVALID_RECEIVER_TYPE: {
    status: 400,
    message: "The receiverType {receiverType} is invalid. Please use user or group.",
  },
  ERR_INVALID_MESSAGE_CATEGORY: {
    status: 400,
    message: "The category {category} is invalid. Please use message, custom or interactive.",
  },
  ERR_EMPTY_MESSAGE_TYPE: { status: 400, message: "The type is missing. Please provide the type of the custom message." },
  ERR_INVALID_MESSAGE_TYPE: {
    status: 400,
    message: "The type {type} is invalid for the category {category}. Please use one of {allowed}.",
  },
  ERR_INVALID_MESSAGE_DATA: { status: 400, message: "The data of the message must be an object." },
  ERR_EMPTY_MESSAGE_TEXT: { status: 400, message: "The text of the message is missing. Please provide data.text." },
  ERR_INVALID_MESSAGE_TEXT: { status: 400, message: "The text of the message must be a string." },
  ERR_EMPTY_MESSAGE_FILE: {
    status: 400,
    message: "The {type} message has no file. Please provide data.attachments with at least one url.",
  },
  ERR_INVALID_MEDIA_MESSAGE: {
    status: 400,
    message: "The attachments of the media message are invalid: every attachment needs a url.",
  },
  ERR_EMPTY_CUSTOM_DATA: { status: 400, message: "The customData of the custom message is missing. Please provide data.customData." },
  ERR_INVALID_CUSTOM_DATA: { status: 400, message: "The customData of the custom message must be an object." },
  ERR_INVALID_METADATA: { status: 400, message: "The metadata of the message must be an object." },
  ERR_MESSAGE_ID_NOT_FOUND: { status: 404, message: "The message with id {id} does not exist." },
  ERR_MESSAGE_NOT_A_SENDER: {
    status: 403,
    message: "The user with UID {uid} is not the sender of the message {id}. Only the sender can {action} it.",
  },
  ERR_MESSAGE_NO_ACCESS: { status: 403, message: "The user with UID {uid} does not have access to the message {id}." },
  ERR_MESSAGE_ACTION_NOT_ALLOWED: { status: 403, message: "The message {id} cannot be {action}: {reason}." },
  ERR_WRONG_MESSAGE_THREAD: {
    status: 400,
    message: "The thread message must be sent to the conversation of its parent message {id}.",
  },
  ERR_MESSAGE_THREAD_NESTING: {
    status: 400,
    message: "The message {id} is itself a thread message. Threads cannot be nested.",
  },
  ERR_WRONG_MESSAGE_THREAD_CATEGORY: {
    status: 400,
    message: "The message {id} is of category {category}, which cannot have a thread.",
  },
  ERR_CONVERSATION_NOT_ACCESSIBLE: {
    status: 403,
    message: "The conversation {conversationId} is not accessible for the user with UID {uid}.",
  },
  ERR_CONVERSATION_NOT_FOUND: { status: 404, message: "The conversation {conversationId} does not exist." },
  ERR_PERMISSION_DENIED: { status: 403, message: "Permission denied for action {action} with {holder} as per RBAC policy." },

  // Pins, saves (limits as the reference states them)
  ERR_PINNED_MESSAGES_LIMIT_EXCEEDED: {
    status: 400,
    message: "The number of pinned messages for the conversation with id {conversationId} has reached the allowed limit of {limit}.",
  },
  ERR_SAVED_MESSAGES_LIMIT_EXCEEDED: {
    status: 400,
    message: "The number of saved messages for the user with uid {uid} has reached the allowed limit of {limit}.",
  },
  ERR_PINNED_CONVERSATIONS_LIMIT_EXCEEDED: {
    status: 400,
    message: "The number of pinned conversations for the user with uid {uid} has reached the allowed limit of {limit}.",
  },
  ERR_SYSTEM_PINNED_CONVERSATION: {
    status: 403,
    message: "The conversation is pinned for all users by the app and can not be {action} by a user.",
  },
  ERR_SYSTEM_PINNED_CONVERSATIONS_LIMIT_EXCEEDED: {
    status: 400,
    message: "The number of pinned conversations exceeds the allowed limit of {limit}.",
  },

  // Attachments (the SDK's own codes for these cases: MEDIA_UPLOAD_ERRORS)
  ERR_FILE_SIZE_EXCEEDED: { status: 413, message: "The file {name} exceeds the maximum allowed size of {limit} bytes." },
  ERR_FILE_COUNT_EXCEEDED: { status: 400, message: "The number of attachments exceeds the allowed limit of {limit}." },
  ERR_FILE_STORAGE_FULL: {
    status: 507,
    message: "The emulator keeps files in memory and they reach {limit} bytes. Please start it with --data to keep files on disk.",
  },
  ERR_PRESIGNED_URL_EXPIRED: { status: 403, message: "The pre-signed upload URL has expired or was used. Please retry the upload." },
  ERR_MEDIA_NOT_FOUND: { status: 404, message: "The file {key} does not exist." },
  ERR_RANGE_NOT_SATISFIABLE: { status: 416, message: "The range {range} is not satisfiable for a file of {size} bytes." },

  // Calls
  ERR_CALL_SESSION_NOT_FOUND: {
    status: 404,
    message: "The call with sessionId {sessionId} does not exist. Please use a correct sessionId.",
  },
  ERR_CALL_NOT_A_PART: { status: 403, message: "The user with UID {uid} is not a part of the call {sessionId}." },
  // The signalling steps of the SDK's calls (`POST /calls`, `PUT /calls/{sessionId}`) on the client plane.
  ERR_CALLING_SELF: { status: 400, message: "The user with UID {uid} cannot call themselves." },
  ERR_CALL_TERMINATED: { status: 400, message: "The call {sessionId} has already ended ({status}) and cannot be marked {action}." },
  ERR_CALL_NOT_STARTED: { status: 400, message: "The call {sessionId} has not been answered yet and cannot be ended. Please cancel or reject it." },
  ERR_CALL_ONGOING_TO_INVALID: { status: 400, message: "The call {sessionId} is ongoing and cannot be marked {action}. Please end it." },
  ERR_CALL_USER_ALREADY_JOINED: { status: 400, message: "The user with UID {uid} has already joined the call {sessionId}." },
  ERR_CALL_GROUP_ALREADY_JOINED: { status: 400, message: "The user with UID {uid} has already joined the group call {sessionId}." },
  ERR_CALL_INVALID_INIT: { status: 400, message: "The user with UID {uid} cannot mark the call {sessionId} {action}: {reason}." },
  ERR_CALL_BUSY_SELF: { status: 400, message: "The user with UID {uid} is already on another ongoing call {sessionId}." },
  ERR_CALL_BUSY_USER: { status: 400, message: "The user with UID {uid} is already busy on another call." },
  ERR_CALL_BUSY_GROUP: { status: 400, message: "The group with GUID {guid} already has an ongoing call {sessionId}." },
  ERR_CALL_GROUP_INVALID_STATUS: { status: 400, message: "A group call cannot be marked {action}." },

  // Roles
  ERR_ROLE_NOT_FOUND: { status: 404, message: "The role {role} does not exist. Please use a valid role." },
  ERR_ROLE_ALREADY_EXISTS: { status: 400, message: "The role {role} already exists. Please use another role." },
  ERR_ROLE_DELETE_DENIED: { status: 403, message: "The role {role} is the built-in default role and cannot be deleted." },

  // Friends and blocked users
  ERR_CANNOT_FORM_SELF_RELATION: { status: 403, message: "The user with UID {uid} cannot be their own friend." },
  ERR_ALREADY_FRIEND: { status: 400, message: "The user with UID {uid} is already a friend of {friend}." },
  ERR_NOT_A_FRIEND: { status: 403, message: "The user with UID {friend} is not a friend of {uid}." },
  ERR_CANNOT_BLOCK_SELF: { status: 403, message: "The user with UID {uid} cannot block themselves." },
  ERR_BLOCKED_RECEIVER: {
    status: 403,
    message: "The user with UID {uid} has blocked the user with UID {receiver} and cannot send them messages.",
  },
  ERR_BLOCKED_SENDER: {
    status: 403,
    message: "The user with UID {uid} has been blocked by the user with UID {receiver} and cannot send them messages.",
  },

  // Moderation (no codes are documented for these cases: names follow the catalogue's patterns)
  ERR_REASON_NOT_FOUND: { status: 404, message: "The reason with id {id} does not exist. Please use a correct reason id." },
  ERR_REASON_ALREADY_EXISTS: { status: 400, message: "The reason with id {id} already exists. Please use another id." },
  ERR_MODERATION_RULE_NOT_FOUND: { status: 404, message: "The rule with id {id} does not exist. Please use a correct rule id." },
  ERR_MODERATION_RULE_ALREADY_EXISTS: { status: 400, message: "The rule with id {id} already exists. Please use another id." },
  ERR_KEYWORD_NOT_FOUND: { status: 404, message: "The keyword list with id {id} does not exist. Please use a correct keyword id." },
  ERR_KEYWORD_ALREADY_EXISTS: { status: 400, message: "The keyword list with id {id} already exists. Please use another id." },
  ERR_BLOCKED_MESSAGE_NOT_FOUND: { status: 404, message: "The message with id {id} has not been blocked by moderation." },
  ERR_BLOCKED_MESSAGE_ALREADY_REVIEWED: {
    status: 400,
    message: "The blocked message with id {id} has already been {status}. An approved message cannot be reviewed again.",
  },
  ERR_FLAGGED_MESSAGE_NOT_FOUND: { status: 404, message: "The message with id {id} is not waiting for a review of its flags." },
  ERR_MESSAGE_ALREADY_FLAGGED: { status: 400, message: "The user with UID {uid} has already flagged the message {id}." },

  // Bots
  ERR_BOT_NOT_FOUND: { status: 404, message: "The bot with UID {uid} does not exist. Please use the UID of a bot." },
  ERR_BOT_ALREADY_EXISTS: { status: 400, message: "The user with UID {uid} is already a bot. Please update the bot instead." },

  // AI agents (their own service's codes)
  ERR_AGENT_NOT_FOUND: { status: 404, message: "No agent exists with the id {uid}." },
  ERR_TOOL_NOT_FOUND: { status: 404, message: "No tool exists with the id {id}." },

  // Data import (per item, but for the collection checks)
  ERR_IMPORT_MUID_ALREADY_EXISTS: {
    status: 400,
    message: "The message with muid {muid} was already imported. Please use a unique muid.",
  },
  ERR_IMPORT_INVALID_USER_FORMAT: { status: 400, message: "The users must be an object of user objects keyed by uid. {problem}" },
  ERR_IMPORT_INVALID_GROUP_FORMAT: { status: 400, message: "The groups must be an object of group objects keyed by guid. {problem}" },
  ERR_IMPORT_INVALID_MEMBER_FORMAT: {
    status: 400,
    message: "The members must be an object of member objects keyed by <guid>_member_<uid>. {problem}",
  },
  ERR_IMPORT_INVALID_MESSAGE_FORMAT: { status: 400, message: "The messages must be an object of message objects keyed by muid. {problem}" },
  ERR_IMPORT_INVALID_JOINEDAT: {
    status: 400,
    message: "The joinedAt {joinedAt} of {uid} in the group {guid} must be after the group's createdAt {createdAt} and before now.",
  },

  // Webhooks
  ERR_WEBHOOK_NOT_FOUND: { status: 404, message: "The webhook {id} does not exist. Please use a correct webhook id." },
  ERR_TRIGGER_NOT_FOUND: { status: 404, message: "The trigger {id} does not exist. Please use a correct trigger id." },

  // Notifications
  ERR_PROVIDER_NOT_FOUND: { status: 404, message: "{provider} does not exist. Please add it first." },
  ERR_PROVIDER_ALREADY_EXISTS: {
    status: 400,
    message: "{provider} already exists. Please update it or delete it first.",
  },
  ERR_TOKEN_NOT_FOUND: { status: 404, message: "The push token {pushToken} does not exist for the auth token given." },

  // Control API (/_emulator): the emulator's own codes, in the same envelope
  AUTH_ERR_EMPTY_EMULATOR_TOKEN: {
    status: 401,
    message: "The x-emulator-token header is missing. Please send the control token the emulator was started with.",
  },
  AUTH_ERR_INVALID_EMULATOR_TOKEN: {
    status: 401,
    message: "The x-emulator-token header does not match the control token. Please send the token the emulator was started with.",
  },
  ERR_RULE_NOT_FOUND: { status: 404, message: "The rule {id} does not exist. GET /_emulator/rules lists the rules." },
  ERR_SNAPSHOT_NOT_FOUND: {
    status: 404,
    message: "The snapshot {name} does not exist. Please take it first with POST /_emulator/snapshots/{name}.",
  },
  ERR_SCHEMA_NOT_FOUND: {
    status: 404,
    message: "The schema {name} does not exist. The schemas are /_emulator/schemas/seed.schema.json and /_emulator/schemas/state.schema.json.",
  },
  ERR_HOST_NOT_ALLOWED: {
    status: 403,
    message:
      "The host {host} may not reach the control API and the inspector. If you reach the emulator under this name, start it with --allowed-host {host} (or CHAT_EMULATOR_ALLOWED_HOSTS).",
  },
  ERR_CROSS_ORIGIN_REQUEST: {
    status: 403,
    message: "The control API and the inspector answer same-origin requests only; this request came from {from}.",
  },
  ERR_UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    message: "The request body must be JSON. Please send it with Content-Type: application/json.",
  },
  ERR_HTTPS_REQUIRED: {
    status: 400,
    message: "This port serves HTTPS (the emulator was started with --https or --cert): use https:// instead of http://.",
  },
  ERR_EMULATOR_DEGRADED: {
    status: 503,
    message: "The emulator answers, but {reason}.",
  },
  // --data: a write the change log cannot hold is refused, on every plane (docs/durability.md).
  ERR_STORAGE_UNAVAILABLE: {
    status: 503,
    message: "The change was not saved, and not applied: {file} cannot be written ({cause}). Reads go on; writes resume by themselves once it can be written again.",
  },
  ERR_WAIT_TIMEOUT: { status: 408, message: "No request matching the filters arrived within {timeoutMs} ms." },
  // Strict mode (`--strict`): request advice answered as a refusal. The emulator's own code, never the platform's.
  ERR_EMULATOR_STRICT: {
    status: 400,
    message: "The request has what the platform would ignore: {advice}. (chat-emulator strict mode; not a platform error)",
  },

  // Management
  ERR_APP_NOT_FOUND: { status: 404, message: "The app {appId} does not exist. Please use a correct appId." },
  ERR_APP_ARCHIVED: {
    status: 403,
    message: "The app {appId} has been deleted and is archived. Please use another app.",
  },
  ERR_EXTENSION_NOT_FOUND: { status: 404, message: "The extension {id} does not exist. Please use a correct extension id." },
  ERR_EXTENSION_INACTIVE: {
    status: 403,
    message: "The extension {id} is not enabled for the app {appId}. Please enable it first.",
  },
  ERR_BLOCKED_BY_EXTENSION: { status: 403, message: "The message was dropped by the {id} extension: {reason}." },
  ERR_ALREADY_AN_OWNER: { status: 400, message: "The email {email} belongs to the owner of the app {appId}." },
  ERR_SELF_ACTION_DENIED: { status: 403, message: "The email {email} is the account's own. You cannot add yourself as a collaborator." },
  ERR_NOT_A_COLLABORATOR: { status: 404, message: "The email {email} is not a collaborator of the app {appId}." },
} satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERRORS;

/** The data-import variant of ERR_TOO_MANY_REQUESTS (reference/errors.md §7). */
export const IMPORT_RATE_LIMIT_MESSAGE =
  "Too many requests for data import API. {limit} per minute is the maximum request allowed. Please retry after {retryAfter} seconds.";

export type Details = Record<string, string[]>;

/**
 * An empty map keyed by what callers send (field names, ids): without a prototype, so that keys such as
 * `constructor`, `toString` or `__proto__` are plain keys like any other.
 */
export function keyedMap<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** A platform error: thrown anywhere, rendered once by the root error handler. */
export class ApiError extends Error {
  readonly status: number;
  readonly devMessage: string;
  /** A hint for the caller (an address mistake), already part of devMessage; the request log prints it too. */
  hint?: string;
  /** Who answers, when not the plane's service: the emulator itself (strict mode), another of the platform's services. */
  source?: string;
  /** A service whose `details` are not field sentences (the campaigns service: a list, or an object of ids). */
  serviceDetails?: readonly string[] | Record<string, string>;
  constructor(
    readonly code: string,
    status: number,
    message: string,
    devMessage?: string,
    readonly details?: Details,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.status = status;
    this.devMessage = devMessage ?? message;
  }

  toBody(source = "chat-api") {
    const error: Record<string, unknown> = {
      message: this.message,
      devMessage: this.devMessage,
      source: this.source ?? source,
      code: this.code,
    };
    if (this.serviceDetails) error.details = this.serviceDetails;
    else if (this.details) error.details = this.details;
    return { error };
  }
}

/** The error with a hint for the caller appended to its devMessage. */
export function withHint(err: ApiError, hint: string | undefined): ApiError {
  if (!hint) return err;
  const hinted = new ApiError(err.code, err.status, err.message, `${err.devMessage} ${hint}`, err.details, err.headers);
  hinted.hint = hint;
  return hinted;
}

/**
 * Where an answered error's code (and hint) is noted on Node's response, for the request log, which sees only
 * the response: `res[ANSWERED_ERROR]`.
 */
export const ANSWERED_ERROR = Symbol("chat-emulator answered error");
export interface AnsweredError {
  code: string;
  hint?: string;
}

function fill(template: string, params: Record<string, unknown>): string {
  return template.replace(/\{(\w+)\}/g, (_, k: string) => (k in params ? String(params[k]) : `{${k}}`));
}

/** Builds the catalogue error for `code`, filling message templates from `params`. */
export function apiError(code: ErrorCode, params: Record<string, unknown> = {}, details?: Details): ApiError {
  const spec: ErrorSpec = ERRORS[code];
  return new ApiError(
    code,
    spec.status,
    fill(spec.message, params),
    fill(spec.devMessage ?? spec.message, params),
    details,
  );
}

/** A validation failure: 400 ERR_BAD_REQUEST with Laravel-style `details`. */
export function badRequest(details: Details): ApiError {
  return apiError("ERR_BAD_REQUEST", {}, details);
}

/** Keys quoted in messages keep their first and last five characters; the rest become stars. */
export function maskKey(key: string): string {
  if (key.length <= 10) return "*".repeat(key.length);
  return key.slice(0, 5) + "*".repeat(key.length - 10) + key.slice(-5);
}
