import type { AppState } from "../store/app-state.js";
import type { DomainEvent } from "../store/events.js";
import type { BotRecord, MessageRecord } from "../store/types.js";
import type { Dispatcher } from "../webhooks/dispatcher.js";

/** The trigger id bots' callbacks receive (reference/ai-agents.md §2.2). */
export const BOT_TRIGGER = "after_message";

/** Whether `bot` is sent message `m`: every one-on-one message to it, group messages as its groupChatSetting says. */
function selects(app: AppState, bot: BotRecord, m: MessageRecord): boolean {
  if (!bot.enabled || m.sender === bot.uid || !app.activeUser(bot.uid)) return false;
  if (m.receiverType === "user") return m.receiver === bot.uid;
  if (!app.groups.member(m.receiver, bot.uid)) return false;
  switch (bot.groupChatSetting) {
    case "allMessages":
      return true;
    case "slashedMessages":
      return typeof m.data.text === "string" && m.data.text.startsWith("/");
    case "mentionedMessages":
      return m.mentionedUids?.includes(bot.uid) ?? false;
    case "none":
      return false;
  }
}

/**
 * Bot relays as a subscriber of the store's event stream: each sent message a bot is selected for is POSTed to
 * its callback (`{trigger: "after_message", data: <message>, appId}`) through the dispatcher, which brings the
 * queue, timeout, retries on the emulator clock and the delivery log. Costs one size check while no app has bots.
 */
export function botRelay(dispatcher: Dispatcher) {
  return (e: DomainEvent): void => {
    const m = e.message;
    if (e.trigger !== "message_sent" || !m || e.app.bots.size === 0) return;
    const direct = m.receiverType === "user" ? e.app.bots.get(m.receiver) : undefined;
    const candidates = m.receiverType === "user" ? (direct ? [direct] : []) : e.app.bots.values();
    for (const bot of candidates) {
      if (!selects(e.app, bot, m)) continue;
      // The message as webhooks show it: the event's memoized payload is `{message}`.
      const data = (e.data() as { message: unknown }).message;
      dispatcher.relay(e.app, bot.uid, BOT_TRIGGER, { trigger: BOT_TRIGGER, data, appId: e.app.meta.appId });
    }
  };
}
