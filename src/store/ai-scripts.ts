import type { Json } from "./types.js";

/** The AI features of the client plane, by the path segment the SDK uses. */
export const AI_FEATURES = ["conversation-starter", "smart-replies", "conversation-summary", "bots"] as const;
export type AiFeature = (typeof AI_FEATURES)[number];

/** What a test scripted for one feature: the answer's value as the SDK reads it (`data["<key>"]`). */
export type AiAnswers = Partial<Record<AiFeature, Json>>;

/** Scripted answers, app-wide (`*`) or for one conversation (its conversation id), replacing the computed ones. */
export class AiScripts {
  private readonly byScope = new Map<string, AiAnswers>();

  set(scope: string, answers: AiAnswers): void {
    this.byScope.set(scope, { ...this.byScope.get(scope), ...answers });
  }

  clear(scope?: string): void {
    if (scope === undefined) this.byScope.clear();
    else this.byScope.delete(scope);
  }

  /** The scripted answer for `feature` in the conversation, else the app-wide one. */
  answer(conversationId: string, feature: AiFeature): Json | undefined {
    return this.byScope.get(conversationId)?.[feature] ?? this.byScope.get("*")?.[feature];
  }

  list(): Record<string, AiAnswers> {
    return Object.fromEntries(this.byScope);
  }
}
