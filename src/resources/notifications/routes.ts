import { Hono } from "hono";
import type { Env } from "../../http/context.js";
import { preferences } from "./preferences.js";
import { providers } from "./providers.js";
import { pushTokens } from "./tokens.js";
import { logs } from "./logs.js";

/** The notification operations of the REST plane (reference §18). */
export const notifications = new Hono<Env>().route("/", preferences).route("/", providers).route("/", pushTokens).route("/", logs);
