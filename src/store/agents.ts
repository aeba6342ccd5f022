import type { AppState } from "./app-state.js";

/**
 * Whether a user is an AI agent, which makes their one-on-one conversations "agentic" for the conversation list's
 * `hideAgentic` / `onlyAgentic` filters. The app has no agents yet (bots and agents arrive with issue #22, which
 * answers this from its records), so no user is one and no conversation is agentic.
 */
export function isAgentic(_app: AppState, _uid: string): boolean {
  return false;
}
