/** Trigger ids a webhook can subscribe to (reference §3.3), with the category and a one-line description. */

export interface Trigger {
  id: string;
  category: string;
  description: string;
}

const t = (category: string, id: string, description: string): Trigger => ({ id, category, description });

export const TRIGGERS: readonly Trigger[] = [
  t("messages", "message_sent", "A message was sent."),
  t("messages", "message_edited", "A message was edited."),
  t("messages", "message_deleted", "A message was deleted."),
  t("messages", "message_delivery_receipt", "Messages were marked as delivered."),
  t("messages", "message_read_receipt", "Messages were marked as read."),
  t("messages", "message_reaction_added", "A reaction was added to a message."),
  t("messages", "message_reaction_removed", "A reaction was removed from a message."),
  t("messages", "user_mentioned", "Users were mentioned in a message."),
  t("users", "user_blocked", "A user blocked other users."),
  t("users", "user_unblocked", "A user unblocked other users."),
  t("users", "user_connection_status_changed", "A user connected or disconnected."),
  t("groups", "group_created", "A group was created."),
  t("groups", "group_updated", "A group was updated."),
  t("groups", "group_deleted", "A group was deleted."),
  t("groups", "group_member_joined", "A user joined a group."),
  t("groups", "group_member_left", "A member left a group."),
  t("groups", "group_member_added", "Members were added to a group."),
  t("groups", "group_member_removed", "A member was removed from a group because the user was deleted."),
  t("groups", "group_member_kicked", "A member was kicked from a group."),
  t("groups", "group_member_banned", "A member was banned from a group."),
  t("groups", "group_member_unbanned", "A user was unbanned from a group."),
  t("groups", "group_member_scope_changed", "The scope of a member changed."),
  t("groups", "group_owner_transferred", "The ownership of a group was transferred."),
  ...["call_initiated", "call_started", "call_ended", "call_participant_joined", "call_participant_left", "call_busy", "call_cancelled", "call_rejected", "call_unanswered", "meeting_started", "meeting_ended", "meeting_participant_joined", "meeting_participant_left", "recording_generated", "transcription_generated"].map((id) =>
    t("calls", id, `Calls: ${id.replaceAll("_", " ")}.`),
  ),
  ...["moderation_engine_approved", "moderation_engine_blocked", "moderation_manual_approved", "moderation_engine_failed"].map((id) =>
    t("moderation", id, `Moderation: ${id.replaceAll("_", " ")}.`),
  ),
];

/** The legacy system's events (webhooks registered without `X-Webhook-Version: 2`). */
export const LEGACY_TRIGGERS: readonly Trigger[] = [
  t("messages", "before_message", "Before a message is sent (delivered after it was stored)."),
  t("messages", "after_message", "A message was sent."),
  t("messages", "message_delivery_receipt", "Messages were marked as delivered."),
  t("messages", "message_read_receipt", "Messages were marked as read."),
  t("users", "user_connection_status_change", "A user connected or disconnected."),
];

/** Which legacy events a current trigger also raises. */
export const LEGACY_ALIASES: Record<string, string[]> = {
  message_sent: ["before_message", "after_message"],
  message_delivery_receipt: ["message_delivery_receipt"],
  message_read_receipt: ["message_read_receipt"],
  user_connection_status_changed: ["user_connection_status_change"],
};
