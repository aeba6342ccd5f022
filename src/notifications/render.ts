import type { AppState } from "../store/app-state.js";
import type { Json, JsonObject } from "../store/types.js";
import { at, isObject } from "./settings.js";

/**
 * Template rendering as the platform does it: `{{path}}` placeholders are read from the event payload (the
 * message as the API shows it, under `message`); a placeholder with no value makes the caller fall back to the
 * template's `body_fallback`. Mentions (`<@uid:UID>`) read as `@Name`.
 */

const PLACEHOLDER = /\{\{\s*([\w.]+)\s*\}\}/g;
const MENTION = /<@uid:([A-Za-z0-9_-]+)>/g;

/** The rendered text, or undefined when a placeholder has no value. */
export function render(template: unknown, context: JsonObject): string | undefined {
  if (typeof template !== "string") return undefined;
  let missing = false;
  const text = template.replace(PLACEHOLDER, (_, path: string) => {
    const v = at(context, path);
    if (v === undefined || v === null || isObject(v) || Array.isArray(v)) {
      missing = true;
      return "";
    }
    return String(v);
  });
  return missing ? undefined : text;
}

export function withMentionNames(app: AppState, text: string): string {
  return text.replace(MENTION, (whole, uid: string) => {
    const user = app.users.get(uid.toLowerCase());
    return user ? `@${user.name}` : whole;
  });
}

/** Which template family a message uses. */
export function templateFamily(category: string, type: string): "text" | "media" | "custom" | "poll" | "reminder" {
  if (category === "custom") return type === "extension_poll" ? "poll" : type === "reminder" ? "reminder" : "custom";
  return type === "text" ? "text" : "media";
}

export interface Rendered {
  title: string;
  body: string;
}

/**
 * Title and body of a chat message notification for one receiver: the mention template when they are
 * mentioned, else the template of the message's family; default or privacy variant.
 */
export function renderMessage(
  app: AppState,
  templates: JsonObject,
  context: JsonObject,
  opts: { group: boolean; privacy: boolean; mentioned: boolean; category: string; type: string },
): Rendered {
  const variant = opts.privacy ? "Privacy" : "Default";
  const family = templateFamily(opts.category, opts.type);
  const t = (opts.mentioned ? templates[`userMentionTemplate${variant}`] : templates[`${family}MessageTemplate${variant}`]) as JsonObject | undefined;
  const template = t ?? {};
  const title = render(opts.group ? template.titleGroup : template.titleOneOnOne, context) ?? "";
  let bodyTemplate: Json | undefined = template.body;
  if (opts.mentioned) bodyTemplate = opts.group ? template.bodyGroup : template.bodyOneOnOne;
  else if (family === "media") bodyTemplate = template[`body_${opts.type}`];
  const body = render(bodyTemplate, context) ?? render(template.body_fallback, context) ?? "";
  return { title, body: withMentionNames(app, body) };
}
