import { Hono } from "hono";
import type { Env } from "../../http/context.js";
import { keywords } from "./keywords.js";
import { moderationMessages } from "./messages.js";
import { queues } from "./queues.js";
import { reasons } from "./reasons.js";
import { rules } from "./rules.js";

/** The moderation area of the REST plane: 28 operations (catalogue §17 and the newest file's additions). */
export const moderation = new Hono<Env>()
  .route("/", reasons)
  .route("/", queues)
  .route("/", rules)
  .route("/", keywords)
  .route("/", moderationMessages);
