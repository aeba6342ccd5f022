import { Hono } from "hono";
import type { Env } from "../http/context.js";
import { apiError, badRequest } from "../http/errors.js";
import { readBody } from "../http/validate.js";
import { parseCall, SeedError } from "../store/seed.js";
import type { CallRecord } from "../store/types.js";
import { callView } from "../resources/calls/view.js";

/** A call body with many transcriptions or participants outgrows the platform's 10 KB limit. */
const CALL_BODY_LIMIT = 1024 * 1024;

/**
 * `POST /_emulator/apps/{appId}/calls`: records a call as the platform would have logged it (the calls API is
 * read-only, so this is how calls come to exist), checked like seed calls, with its call messages left in its
 * conversation. Answers the call as the calls API shows it and the ids of the messages it left.
 */
export const controlCalls = new Hono<Env>().post("/apps/:appId/calls", async (c) => {
  const { store, clock } = c.var.emulator;
  const appId = c.req.param("appId").toLowerCase();
  const app = store.apps.get(appId);
  if (!app) throw apiError("ERR_APP_NOT_FOUND", { appId });
  const body = await readBody(c, CALL_BODY_LIMIT);
  const now = clock.now();
  let call: CallRecord;
  try {
    call = parseCall(body, {
      appId,
      region: app.meta.region,
      now,
      isUser: (uid) => app.activeUser(uid) !== undefined,
      isGroup: (guid) => app.groups.get(guid) !== undefined,
      isMember: (guid, uid) => app.groups.member(guid, uid) !== undefined,
      isTaken: (sessionId) => app.calls.get(sessionId) !== undefined,
    });
  } catch (e) {
    if (e instanceof SeedError && e.path !== undefined) throw badRequest({ [e.path]: [`The ${e.path} ${e.problem}.`] });
    throw e;
  }
  const messages = app.addCall(call);
  store.changed();
  return c.json({ call: callView(call, now), messageIds: messages.map((m) => String(m.id)) }, 201);
});
