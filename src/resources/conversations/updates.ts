import type { AppState } from "../../store/app-state.js";
import type { MessageRecord } from "../../store/types.js";

type Updater = (m: MessageRecord) => boolean;

/** The updater for each combination of the five settings (built once each). */
const UPDATERS = new Map<string, Updater>();

/** The `core.conversations.*` settings that decide which messages update a conversation, as a short key. */
export function updateRules(app: AppState): string {
  const s = app.management.settings;
  const on = (key: string) => (s[`core.conversations.${key}`] !== false ? "1" : "0");
  return (
    (s["core.conversations.updateOnReplies"] === true ? "1" : "0") +
    on("updateOnGroupActions") +
    on("updateOnMessageActions") +
    on("updateOnCallActivity") +
    on("updateOnCustomMessage")
  );
}

/**
 * Which messages become a conversation's last message (and move it up the list), as the app's
 * `core.conversations.*` settings say: thread replies (`updateOnReplies`), group-member actions
 * (`updateOnGroupActions`), edit/delete actions (`updateOnMessageActions`), call messages (`updateOnCallActivity`)
 * and custom messages (`updateOnCustomMessage`). A key that was un-mapped counts as on, except replies.
 */
export function conversationUpdater(app: AppState, rules = updateRules(app)): Updater {
  let updater = UPDATERS.get(rules);
  if (updater) return updater;
  const [replies, groupActions, messageActions, calls, custom] = [...rules].map((c) => c === "1");
  updater = (m) => {
    if (m.largeGroup) return false;
    if (m.parentId !== undefined) return replies;
    if (m.category === "action") return m.type === "groupMember" ? groupActions : messageActions;
    if (m.category === "call") return calls;
    if (m.category === "custom") return custom;
    return true;
  };
  UPDATERS.set(rules, updater);
  return updater;
}
