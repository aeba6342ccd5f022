/**
 * What roles and group scopes can restrict: the feature keys of "Restrict Features" and the RBAC permission
 * descriptors (ids, value types, allowed values, defaults) as the reference lists them. The enforcement lives in
 * ./enforce.ts; this file is the data both the endpoints and the enforcement read.
 */

export interface Feature {
  key: string;
  title: string;
  description: string;
  path: string;
}

const feature = (key: string, title: string, what: string, path: string): Feature => ({
  key,
  title,
  description: `Allows logged-in user to ${what}.`,
  path,
});

export const FEATURES: readonly Feature[] = [
  feature("u.listUsers", "List Users", "fetch the user list", "/v3/users"),
  feature("u.getUser", "Get User", "fetch the details of a user", "/v3/users/{{uid}}"),
  feature("u.createGroup", "Create Group", "create a group", "/v3/groups"),
  feature("u.listGroups", "List Groups", "fetch the group list", "/v3/groups"),
  feature("u.getGroup", "Get Group", "fetch the details of a group", "/v3/groups/{{guid}}"),
  feature("u.updateGroup", "Update Group", "update a group", "/v3/groups/{{guid}}"),
  feature("u.deleteGroup", "Delete Group", "delete a group", "/v3/groups/{{guid}}"),
  feature("u.joinGroup", "Join Group", "join a group", "/v3/groups/{{guid}}/members"),
  feature("u.addMembers", "Add Members", "add members to a group", "/v3/groups/{{guid}}/members"),
  feature("u.kickMembers", "Kick Members", "kick members from a group", "/v3/groups/{{guid}}/members/{{uid}}"),
  feature("u.changeScope", "Change Scope", "change the scope of a group member", "/v3/groups/{{guid}}/members/{{uid}}"),
  feature("u.banMembers", "Ban Members", "ban and unban group members", "/v3/groups/{{guid}}/bannedusers/{{uid}}"),
  feature("u.sendMessage", "Send Message", "send a message", "/v3/messages"),
  feature("u.listMessages", "List Messages", "fetch messages", "/v3/messages"),
  feature("u.editMessage", "Edit Message", "edit a message", "/v3/messages/{{id}}"),
  feature("u.deleteMessage", "Delete Message", "delete a message", "/v3/messages/{{id}}"),
  feature("u.sendThreadedMessage", "Send Threaded Message", "reply in a thread", "/v3/messages/{{id}}/thread"),
  feature("u.addReaction", "Add Reaction", "react to a message", "/v3/messages/{{id}}/reactions/{{reaction}}"),
  feature("u.listConversations", "List Conversations", "fetch the conversation list", "/v3/conversations"),
];

export const FEATURE_KEYS = new Set(FEATURES.map((f) => f.key));

export type Value = string | string[];

export interface PermissionSpec {
  id: string;
  title: string;
  description: string;
  dataType: "string" | "stringArray";
  availableValues: string[];
  defaultValue: Value;
}

const ALLOW = ["allow", "deny"];
const MODES = ["all", "friends"];
const MESSAGE_TYPES = ["text", "image", "audio", "video", "file"];
const GROUP_TYPES = ["public", "password", "private"];
const SCOPES = ["admin", "moderator", "participant"];

const flag = (id: string, title: string, description: string): PermissionSpec => ({
  id,
  title,
  description,
  dataType: "string",
  availableValues: ALLOW,
  defaultValue: "allow",
});
const choice = (id: string, title: string, description: string, values: string[], def: string): PermissionSpec => ({
  id,
  title,
  description,
  dataType: "string",
  availableValues: values,
  defaultValue: def,
});
/** An allow-list: empty (the default) allows everything. */
const list = (id: string, title: string, description: string, values: string[]): PermissionSpec => ({
  id,
  title,
  description,
  dataType: "stringArray",
  availableValues: values,
  defaultValue: [],
});

export const ROLE_PERMISSIONS: readonly PermissionSpec[] = [
  flag("listUsers", "List users", "Whether users of the role can fetch the user list."),
  choice("listUsers.mode", "List users: mode", "Everyone, or friends only.", MODES, "all"),
  list("listUsers.allowedRoles", "List users: roles", "Only users of these roles are listed.", []),
  choice("getUserDetails.mode", "User details: mode", "Everyone, or friends only.", MODES, "all"),
  list("getUserDetails.allowedRoles", "User details: roles", "Only users of these roles can be fetched.", []),
  flag("sendMessage", "Send messages", "Whether users of the role can send messages."),
  choice("sendMessage.mode", "Send messages: mode", "To everyone, or to friends only.", MODES, "all"),
  list("sendMessage.allowedReceiverTypes", "Send messages: receiver types", "Receiver types allowed.", ["user", "group"]),
  list("sendMessage.allowedReceiverRoles", "Send messages: receiver roles", "Roles of users that can receive.", []),
  list("sendMessage.allowedMessageTypes", "Send messages: types", "Message types allowed.", MESSAGE_TYPES),
  list("sendMessage.allowedMessageCategories", "Send messages: categories", "Message categories allowed.", ["message", "custom"]),
  list("sendMessage.allowedMimeTypes", "Send messages: MIME types", "MIME types of attachments allowed.", []),
  list("sendMessage.allowedCustomTypes", "Send messages: custom types", "Custom message types allowed.", []),
  flag("editMessage", "Edit messages", "Whether users of the role can edit their messages."),
  list("editMessage.denyForScopes", "Edit messages: denied scopes", "Group scopes in which editing is denied.", SCOPES),
  flag("deleteMessage", "Delete messages", "Whether users of the role can delete messages."),
  list("deleteMessage.denyForScopes", "Delete messages: denied scopes", "Group scopes in which deleting is denied.", SCOPES),
  flag("pinMessage", "Pin messages", "Whether users of the role can pin and unpin messages."),
  flag("initiateCall", "Initiate calls", "Whether users of the role can start calls."),
  choice("initiateCall.mode", "Initiate calls: mode", "Everyone, or friends only.", MODES, "all"),
  list("initiateCall.allowedReceiverRoles", "Initiate calls: receiver roles", "Roles of users that can be called.", []),
  flag("createGroup", "Create groups", "Whether users of the role can create groups."),
  list("createGroup.allowedGroupTypes", "Create groups: types", "Group types allowed.", GROUP_TYPES),
  flag("listGroups", "List groups", "Whether users of the role can fetch the group list."),
  list("listGroups.allowedGroupTypes", "List groups: types", "Group types listed.", GROUP_TYPES),
  flag("joinGroup", "Join groups", "Whether users of the role can join groups."),
  list("joinGroup.allowedGroupTypes", "Join groups: types", "Group types that can be joined.", GROUP_TYPES),
  list("listMessages.allowedMessageCategories", "List messages: categories", "Message categories listed.", ["message", "custom", "interactive", "action", "call"]),
  list("listMessages.allowedMessageTypes", "List messages: types", "Message types listed.", []),
];

export const SCOPE_PERMISSIONS: readonly PermissionSpec[] = [
  flag("sendMessage", "Send messages", "Whether members of the scope can send messages in the group."),
  flag("listMembers", "List members", "Whether members of the scope can list the group's members."),
  list("listMembers.allowedScopes", "List members: scopes", "Member scopes listed.", SCOPES),
  flag("addReaction", "Add reactions", "Whether members of the scope can react to messages."),
  flag("listReactions", "List reactions", "Whether members of the scope can list reactions."),
  list("listReactions.allowedScopes", "List reactions: scopes", "Scopes of reactors listed.", SCOPES),
  flag("sendThreadedMessage", "Send threaded messages", "Whether members of the scope can reply in threads."),
  flag("initiateCall", "Initiate calls", "Whether members of the scope can start calls."),
  list("initiateCall.allowedScopes", "Initiate calls: scopes", "Scopes that can be called.", SCOPES),
  list("initiateCall.allowedType", "Initiate calls: types", "Call types allowed.", ["audio", "video"]),
  flag("editMessage", "Edit messages", "Whether members of the scope can edit their messages."),
  flag("pinMessage", "Pin messages", "Whether members of the scope can pin and unpin messages in the group."),
];

/** Why `value` is not valid for `spec`, or undefined when it is. Free lists (no available values) take any strings. */
export function invalidValue(spec: PermissionSpec, value: unknown): string | undefined {
  if (spec.dataType === "string") {
    return typeof value === "string" && spec.availableValues.includes(value)
      ? undefined
      : `The value of ${spec.id} must be one of ${spec.availableValues.join(", ")}.`;
  }
  const items = typeof value === "string" ? value.split(",").map((s) => s.trim()).filter(Boolean) : value;
  if (!Array.isArray(items) || !items.every((v) => typeof v === "string")) return `The value of ${spec.id} must be an array of strings.`;
  if (spec.availableValues.length && !items.every((v) => spec.availableValues.includes(v as string)))
    return `The values of ${spec.id} must be among ${spec.availableValues.join(", ")}.`;
  return undefined;
}

/** Array ids may be sent as comma-separated strings (the reference's scope example does). */
export function normalizeValue(spec: PermissionSpec, value: unknown): Value {
  if (spec.dataType === "stringArray" && typeof value === "string")
    return value.split(",").map((s) => s.trim()).filter(Boolean);
  return value as Value;
}
