import { badRequest, keyedMap, type Details } from "../../http/errors.js";
import { ok, success } from "../../http/reply.js";
import { operation, routes } from "../../http/operation.js";
import { pathApp } from "../apps/routes.js";

/** Setting keys are dotted names (`core.conversations.updateOnReplies`). */
const KEY = /^[A-Za-z][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$/;
const MAX_KEYS = 100;

/** Management plane: an app's settings map (`POST` maps keys to booleans, `DELETE` un-maps them). */
export const appSettings = routes(
  operation({ id: "list-settings", method: "GET", path: "/apps/:appId/settings", plane: "management", handler: (c) => ok(c, pathApp(c).management.settings) }),
  operation({
    id: "map-settings",
    method: "POST",
    path: "/apps/:appId/settings",
    plane: "management",
    body: { settings: { required: true, type: "object" } },
    handler: (c, { body }) => {
      const app = pathApp(c);
      const entries = Object.entries(body.settings as Record<string, unknown>);
      const details: Details = keyedMap();
      if (entries.length === 0) details.settings = ["The settings field is required."];
      if (entries.length > MAX_KEYS) details.settings = [`The settings may not have more than ${MAX_KEYS} keys.`];
      for (const [key, value] of entries) {
        if (!KEY.test(key) || key.length > 100) details[`settings.${key}`] = [`The settings key ${key} is invalid.`];
        else if (typeof value !== "boolean") details[`settings.${key}`] = [`The settings.${key} field must be true or false.`];
      }
      if (Object.keys(details).length > 0) throw badRequest(details);
      const settings = { ...app.management.settings };
      const data: Record<string, unknown> = keyedMap();
      for (const [key, value] of entries) {
        settings[key] = value as boolean;
        data[key] = { success: true, message: "Added setting(s) successfully." };
      }
      app.management.settings = settings;
      return ok(c, data);
    },
  }),
  operation({
    id: "unmap-settings",
    method: "DELETE",
    path: "/apps/:appId/settings",
    plane: "management",
    // The keys to un-map: `{"settings": ["key", ...]}` or a map like the one POST takes.
    body: { settings: { required: true } },
    handler: (c, { body }) => {
      const app = pathApp(c);
      const raw = body.settings;
      const keys = Array.isArray(raw) ? raw : typeof raw === "object" && raw !== null ? Object.keys(raw) : undefined;
      if (!keys || keys.length === 0 || !keys.every((k) => typeof k === "string"))
        throw badRequest({ settings: ["The settings must be a list of setting keys."] });
      const settings = { ...app.management.settings };
      for (const k of keys as string[]) delete settings[k];
      app.management.settings = settings;
      return success(c, "Removed setting(s) successfully.");
    },
  }),
);
