import type { AppState } from "../../store/app-state.js";
import type { MessageRecord } from "../../store/types.js";

/**
 * Which messages become a conversation's last message (and move it up the list), as the app's
 * `core.conversations.*` settings say: thread replies (`updateOnReplies`), group-member actions
 * (`updateOnGroupActions`), edit/delete actions (`updateOnMessageActions`), call messages (`updateOnCallActivity`)
 * and custom messages (`updateOnCustomMessage`). A key that was un-mapped counts as on, except replies.
 */
export function conversationUpdater(app: AppState): (m: MessageRecord) => boolean {
  const s = app.management.settings;
  const on = (key: string) => s[`core.conversations.${key}`] !== false;
  const replies = s["core.conversations.updateOnReplies"] === true;
  const groupActions = on("updateOnGroupActions");
  const messageActions = on("updateOnMessageActions");
  const calls = on("updateOnCallActivity");
  const custom = on("updateOnCustomMessage");
  return (m) => {
    if (m.parentId !== undefined) return replies;
    if (m.category === "action") return m.type === "groupMember" ? groupActions : messageActions;
    if (m.category === "call") return calls;
    if (m.category === "custom") return custom;
    return true;
  };
}
