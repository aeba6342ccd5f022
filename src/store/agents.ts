import type { AppState } from "./app-state.js";

/**
 * Whether `uid` is an AI agent: a BYO or agent-builder agent (their conversations are the "agentic" ones the
 * conversation filters `hideAgentic` / `onlyAgentic` select). Bots with a callback URL are not agents
 * (reference/ai-agents.md §1).
 */
export function isAgentic(app: AppState, uid: string): boolean {
  return app.agents.has(uid);
}
