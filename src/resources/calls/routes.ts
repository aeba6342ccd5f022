import { header, type Ctx } from "../../http/context.js";
import { apiError } from "../../http/errors.js";
import { onBehalfOf } from "../../http/auth.js";
import { backwards, PAGE_QUERY, pageMatching, pageOf } from "../../http/pagination.js";
import { ok, page } from "../../http/reply.js";
import { operation, routes } from "../../http/operation.js";
import { q } from "../../http/query-spec.js";
import { takesPart } from "../../store/calls.js";
import { CALL_MODES, CALL_STATUSES, CALL_TYPES, type CallRecord, type UserRecord } from "../../store/types.js";
import { callView, totalParticipants, transcriptionView } from "../../views/calls.js";
import { groupEntity } from "../../views/groups.js";
import { actorEntity, entity } from "../../views/messages.js";

/** The call named by the path; with `onBehalfOf`, one that user took part in. */
function pathCall(c: Ctx, viewer: UserRecord | undefined): CallRecord {
  const sessionId = c.req.param("sessionId")!;
  const call = c.get("app").calls.get(sessionId);
  if (!call) throw apiError("ERR_CALL_SESSION_NOT_FOUND", { sessionId });
  if (viewer && !takesPart(call, viewer.uid)) throw apiError("ERR_CALL_NOT_A_PART", { uid: viewer.uid, sessionId });
  return call;
}

/**
 * A call as the calls SDK's call logs read it (an `authToken` caller): the calls API's call, with the initiator and
 * the receiver as entities under `data.entities`, which `CallLog.callLogFromJson` turns into its CallUser and
 * CallGroup. The `apikey` caller keeps the calls API's documented call.
 */
function forSdk(c: Ctx, call: CallRecord, view: Record<string, unknown>): Record<string, unknown> {
  if (c.get("authToken") === undefined) return view;
  const app = c.get("app");
  const group = call.receiverType === "group" ? app.groups.get(call.receiver) : undefined;
  const receiver = group ? entity(groupEntity(app, group), "group") : entity(actorEntity(app, call.receiver), "user");
  return { ...view, data: { entities: { initiator: entity(actorEntity(app, call.initiator), "user"), receiver } } };
}

/** A boolean filter selects either way when given (`true`/`false`, 1/0), and not at all when absent or empty. */
const given = (c: Ctx, name: string, value: boolean): boolean | undefined => ((c.req.query(name) ?? "") === "" ? undefined : value);

/**
 * The calls API (`calls.json`): read-only, served on the calls plane; with the calls SDK's token operations
 * (`/call_tokens`), which `calls.json` does not publish.
 */
/** The calls plane's declared operations (coverage counts the published ones: control/coverage.ts). */
export const CALLS_OPERATIONS = [
  operation({
    id: "list-calls",
    method: "GET",
    path: "/calls",
    plane: "calls",
    query: {
      type: q.oneOf(CALL_TYPES),
      mode: q.oneOf(CALL_MODES),
      status: q.oneOf(CALL_STATUSES),
      receiverType: q.oneOf(["user", "group"]),
      participantsCount: q.int(),
      startedAt: q.int(),
      endedAt: q.int(),
      hasRecording: q.bool(),
      hasTranscription: q.bool(),
      uid: q.str(),
      // The calls SDK's call logs: a group's calls, and (for the viewer) the ones they made or received.
      guid: q.str(),
      direction: q.oneOf(["incoming", "outgoing"]),
      hideTranscription: q.bool(),
      ...PAGE_QUERY,
    },
    headers: ["onBehalfOf"],
    handler: (c, { query }) => {
      const viewer = onBehalfOf(c, "optional");
      const f = {
        ...query,
        hasRecording: given(c, "hasRecording", query.hasRecording),
        hasTranscription: given(c, "hasTranscription", query.hasTranscription),
        uid: query.uid?.toLowerCase(),
        guid: query.guid?.toLowerCase(),
      };
      // Candidates: the calls of one user (onBehalfOf, else uid) or all, cut at `endedAt` (a call ends after it is
      // initiated), walked most recent first.
      const owner = viewer?.uid ?? f.uid;
      const alsoPart = viewer && f.uid !== undefined && f.uid !== viewer.uid ? f.uid : undefined;
      const candidates = c.get("app").calls.list(owner, f.endedAt);
      const tests: ((k: CallRecord) => boolean)[] = [];
      for (const key of ["type", "mode", "status", "receiverType"] as const)
        if (f[key] !== undefined) tests.push((k) => k[key] === f[key]);
      if (f.participantsCount !== undefined) tests.push((k) => totalParticipants(k) === f.participantsCount);
      if (f.startedAt !== undefined) tests.push((k) => k.startedAt !== undefined && k.startedAt >= f.startedAt!);
      if (f.endedAt !== undefined) tests.push((k) => k.endedAt !== undefined && k.endedAt <= f.endedAt!);
      if (f.hasRecording !== undefined) tests.push((k) => k.recordings.length > 0 === f.hasRecording);
      if (f.hasTranscription !== undefined) tests.push((k) => k.transcriptions.length > 0 === f.hasTranscription);
      if (alsoPart !== undefined) tests.push((k) => takesPart(k, alsoPart));
      if (f.guid !== undefined) tests.push((k) => k.receiverType === "group" && k.receiver === f.guid);
      const me = viewer?.uid;
      if (f.direction !== undefined && me !== undefined) tests.push((k) => (k.initiator === me) === (f.direction === "outgoing"));
      const matches = tests.length > 0 ? (k: CallRecord) => tests.every((t) => t(k)) : undefined;
      const { items, pagination } = pageMatching(backwards(candidates), matches, f.perPage, f.page, matches ? undefined : candidates.length);
      const now = c.get("emulator").clock.now();
      return page(c, items.map((k) => forSdk(c, k, callView(k, now, { hideTranscription: f.hideTranscription }))), pagination);
    },
  }),

  operation({
    id: "retrieve-call-details",
    method: "GET",
    path: "/calls/:sessionId",
    plane: "calls",
    query: { hideTranscription: q.bool() },
    headers: ["onBehalfOf"],
    handler: (c, { query }) => {
      const call = pathCall(c, onBehalfOf(c, "optional"));
      const view = forSdk(c, call, callView(call, c.get("emulator").clock.now(), { single: true, hideTranscription: query.hideTranscription }));
      // The calls SDK's getCallDetails (authToken) reads a list of call logs: `(data || []).map(callLogFromJson)`.
      return ok(c, c.get("authToken") !== undefined ? [view] : view);
    },
  }),

  // The calls SDK's `generateToken(sessionId, authToken)` before it joins a session's media (the media itself is not
  // emulated): a token naming the user (the token's owner, or `onBehalfOf` with an apikey) and the session, with
  // the payload the SDK decodes (`data.sessionId`, `data.user`, `data.appId`, `data.region`, `room`).
  operation({
    method: "POST",
    path: "/call_tokens",
    plane: "calls",
    body: { sessionId: { required: true, type: "string", max: 255 } },
    headers: ["onBehalfOf"],
    handler: (c, { body }) => {
      const user = onBehalfOf(c, "required");
      const { jwt, clock } = c.get("emulator");
      const app = c.get("app");
      const authToken = c.get("authToken")?.authToken ?? "";
      const sessionId = body.sessionId as string;
      const data = { appId: app.meta.appId, region: app.meta.region, authToken, user: { uid: user.uid, name: user.name, avatar: user.avatar ?? "" }, sessionId };
      return ok(c, { token: jwt.sign({ appId: app.meta.appId, uid: user.uid, authToken, sessionId, data, room: sessionId }, clock.now()) });
    },
  }),

  // The calls SDK's check of a call token at `startSession` (header `callToken`, see callsAuth): the token's payload
  // and the settings its media client reads. WEBRTC_HOST names this emulator: the media client's connection
  // (XMPP over a WebSocket to xmpp.{WEBRTC_HOST}) is where the emulation stops (docs/calls.md).
  operation({
    method: "GET",
    path: "/call_tokens",
    plane: "calls",
    handler: (c) => {
      const claims = c.get("callToken");
      if (!claims) throw apiError("AUTH_ERR_INVALID_CALL_TOKEN");
      const { iat: _iat, ...payload } = claims;
      return ok(c, { payload, settings: { WEBRTC_HOST: header(c, "host") ?? "localhost", PRESENTER_MODE_ENABLED: true } });
    },
  }),

  operation({
    id: "retrieve-call-transcriptions",
    method: "GET",
    path: "/calls/:sessionId/transcriptions",
    plane: "calls",
    query: PAGE_QUERY,
    headers: ["onBehalfOf"],
    handler: (c, { query }) => {
      const call = pathCall(c, onBehalfOf(c, "optional"));
      const { data, pagination } = pageOf(call.transcriptions, query.perPage, query.page);
      return page(c, data.map((t) => transcriptionView(call, t)), pagination);
    },
  }),
];
export const calls = routes(...CALLS_OPERATIONS);
