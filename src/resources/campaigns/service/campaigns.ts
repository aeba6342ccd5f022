import { Hono } from "hono";
import type { Ctx, Env } from "../../../http/context.js";
import { ApiError, apiError, keyedMap } from "../../../http/errors.js";
import { operation } from "../../../http/operation.js";
import { q } from "../../../http/query-spec.js";
import { readText } from "../../../http/validate.js";
import type { CampaignRecord, RecipientRecord, TemplateRecord } from "../../../store/campaigns.js";
import type { JsonObject } from "../../../store/types.js";
import { randomHex } from "../../../util/random.js";
import { campaignView, importView, recipientSummary, recipientView } from "../views.js";
import { deliverTo, startCampaign, stepsOf, variablesFor, type Send } from "../sends.js";
import { template } from "./catalog.js";
import { parseCsv } from "./csv.js";
import { adminOnly, campaignsOf, conflict, cursorPage, invalid, notFound, nowOf, PAGE_QUERY, refused, withDetails } from "./service.js";

/**
 * Campaigns (draft → scheduled → sending → completed, or cancelled), their recipients (by uid or from a CSV file
 * put at the upload address the service gives), and template sends (`POST /notifications/messages`).
 */

/** Recipients one campaign may have (the emulator's bound; a call adds at most 10,000, the published maximum). */
export const MAX_RECIPIENTS = 100_000;
export const MAX_IDS_PER_CALL = 10_000;
/** Receivers of one template send; up to 10 are a realtime send, more a batch. */
export const REALTIME_RECEIVERS = 10;
/** The CSV file an upload address takes, and how long the address is valid. */
export const MAX_CSV_BYTES = 5 * 1024 * 1024;
export const UPLOAD_URL_SECONDS = 900;
const UID = /^[A-Za-z0-9_-]{1,100}$/;

const STATUSES = ["draft", "scheduled", "sending", "completed", "cancelled"] as const;

function campaign(c: Ctx): CampaignRecord {
  const id = c.req.param("id")!;
  const found = campaignsOf(c).campaigns.get(id);
  if (!found) throw notFound("ERR_CAMPAIGN_NOT_FOUND", id, "campaignId");
  return found;
}

function draft(cam: CampaignRecord): CampaignRecord {
  if (cam.status !== "draft") throw refused("Campaign not in draft status", { campaignId: cam.id, status: cam.status });
  return cam;
}

const view = (c: Ctx, cam: CampaignRecord) => campaignView(cam, campaignsOf(c).templates.get(cam.templateId));

/** Variables as the service keeps them: names to text. */
function variables(raw: unknown, at: string): Record<string, string> {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== "object" || Array.isArray(raw)) throw invalid(`${at} must be an object of variable values.`);
  const out = keyedMap<string>();
  for (const [k, v] of Object.entries(raw as JsonObject)) {
    if (typeof v !== "string" && typeof v !== "number" && typeof v !== "boolean") throw invalid(`${at}.${k} must be a string, number or boolean.`);
    out[k] = String(v);
  }
  return out;
}

/** Per-user variables keyed by uid (`userVariables`, a template send's `variables`). */
function perUser(raw: unknown, at: string): Map<string, Record<string, string>> {
  const out = new Map<string, Record<string, string>>();
  if (raw === undefined || raw === null) return out;
  if (typeof raw !== "object" || Array.isArray(raw)) throw invalid(`${at} must be an object keyed by user id.`);
  for (const [uid, vars] of Object.entries(raw as JsonObject)) out.set(uid.toLowerCase(), variables(vars, `${at}.${uid}`));
  return out;
}

function approved(t: TemplateRecord): void {
  if (t.status !== "approved") throw refused("Template not approved", { templateId: t.id, status: t.status });
}

/** Adds recipients not there yet; the ids refused with why. */
function addRecipients(c: Ctx, cam: CampaignRecord, entries: { uid: string; vars?: Record<string, string> }[]) {
  const app = c.get("app");
  const have = new Set(cam.recipients.map((r) => r.userId));
  const now = nowOf(c);
  const refusedIds: { userId: string; reason: string }[] = [];
  let added = 0;
  for (const { uid: raw, vars } of entries) {
    const uid = raw.toLowerCase();
    const reason = !UID.test(raw)
      ? "The user id may only contain letters, numbers, underscores and dashes (at most 100)."
      : have.has(uid)
        ? "Already a recipient of the campaign."
        : !app.activeUser(uid)
          ? "The user does not exist in the app."
          : cam.recipients.length >= MAX_RECIPIENTS
            ? `A campaign has at most ${MAX_RECIPIENTS} recipients.`
            : undefined;
    if (reason) {
      refusedIds.push({ userId: raw, reason });
      continue;
    }
    have.add(uid);
    const r: RecipientRecord = { id: campaignsOf(c).nextId("recipient"), userId: uid, variables: vars ?? {}, status: "pending", createdAt: now, updatedAt: now };
    cam.recipients.push(r);
    added++;
  }
  if (added > 0) cam.updatedAt = now;
  return { added, refused: refusedIds };
}

export const campaignOperations = [
  operation({
    id: "CampaignsController_findAll",
    method: "GET",
    path: "/campaigns",
    plane: "campaigns",
    query: { updatedAt: q.int(), ...PAGE_QUERY, sort: q.oneOf(["updatedAt", "createdAt", "name"]), status: q.oneOf(STATUSES), search: q.str({ max: 255 }) },
    handler: (c, { query }) => {
      const search = query.search?.toLowerCase();
      const found = [...campaignsOf(c).campaigns.values()].filter((cam) => (query.status === undefined || cam.status === query.status) && (search === undefined || cam.name.toLowerCase().includes(search)));
      const sort = query.sort ?? "updatedAt";
      const page = cursorPage(found, sort, (cam) => cam[sort], query, sort === "name" ? "asc" : "desc");
      return c.json({ data: page.data.map((cam) => view(c, cam)), meta: page.meta });
    },
  }),
  operation({
    id: "CampaignsController_create",
    method: "POST",
    path: "/campaigns",
    plane: "campaigns",
    body: {
      name: { required: true, type: "string", max: 255 },
      templateId: { required: true, type: "string", max: 100 },
      templateVersion: { required: true, type: "number" },
      variables: { type: "object", maxKb: 16 },
      config: { type: "object", maxKb: 16 },
    },
    handler: (c, { body }) => {
      const t = template(c, body.templateId as string);
      const version = body.templateVersion as number;
      if (!Number.isInteger(version) || version < 1) throw invalid("templateVersion must be an integer of at least 1.");
      if (version > t.versions.length) throw invalid(`templateVersion ${version} does not exist: the template has ${t.versions.length} version(s).`);
      if (t.status === "archived") throw refused("The template is archived.", { templateId: t.id });
      const config = (body.config as JsonObject | undefined) ?? {};
      // The overview documents campaign defaults as `config.variables`, the file as `variables`: both count.
      const defaults = { ...variables(config.variables, "config.variables"), ...variables(body.variables, "variables") };
      const now = nowOf(c);
      const cam: CampaignRecord = {
        id: campaignsOf(c).nextId("campaign"),
        name: body.name as string,
        templateId: t.id,
        templateVersion: version,
        variables: defaults,
        config,
        status: "draft",
        createdAt: now,
        updatedAt: now,
        recipients: [],
      };
      campaignsOf(c).campaigns.set(cam.id, cam);
      return c.json({ data: view(c, cam) }, 201);
    },
  }),
  operation({
    id: "CampaignsController_findById",
    method: "GET",
    path: "/campaigns/:id",
    plane: "campaigns",
    handler: (c) => c.json({ data: view(c, campaign(c)) }),
  }),
  operation({
    id: "CampaignsController_update",
    method: "PUT",
    path: "/campaigns/:id",
    plane: "campaigns",
    body: { name: { filled: true, type: "string", max: 255 }, config: { type: "object", maxKb: 16 } },
    handler: (c, { body }) => {
      const cam = draft(campaign(c));
      if (typeof body.name === "string") cam.name = body.name;
      if (body.config !== undefined && body.config !== null) {
        cam.config = body.config as JsonObject;
        if (cam.config.variables !== undefined) cam.variables = { ...cam.variables, ...variables(cam.config.variables, "config.variables") };
      }
      cam.updatedAt = nowOf(c);
      return c.json({ data: view(c, cam) });
    },
  }),
  operation({
    id: "CampaignsController_delete",
    method: "DELETE",
    path: "/campaigns/:id",
    plane: "campaigns",
    handler: (c) => {
      const cam = draft(campaign(c));
      campaignsOf(c).campaigns.delete(cam.id);
      for (const [key, u] of campaignsOf(c).uploads) if (u.campaignId === cam.id) campaignsOf(c).uploads.delete(key);
      return c.json({ data: { id: cam.id, deletedAt: new Date(c.get("emulator").clock.nowMs()).toISOString() } });
    },
  }),
  operation({
    id: "CampaignsController_getRecipients",
    method: "GET",
    path: "/campaigns/:id/recipients",
    plane: "campaigns",
    query: { updatedAt: q.int(), ...PAGE_QUERY, sort: q.oneOf(["updatedAt", "createdAt"]), status: q.oneOf(["pending", "processing", "completed", "failed"]) },
    handler: (c, { query }) => {
      const cam = campaign(c);
      const found = query.status === undefined ? [...cam.recipients] : cam.recipients.filter((r) => r.status === query.status);
      const sort = query.sort ?? "createdAt";
      const page = cursorPage(found, sort, (r) => r[sort], query, "asc");
      return c.json({ data: page.data.map(recipientView), meta: page.meta });
    },
  }),
  operation({
    id: "CampaignsController_addRecipients",
    method: "POST",
    path: "/campaigns/:id/recipients",
    plane: "campaigns",
    body: {
      userIds: { required: true, type: "array", minItems: 1, maxItems: MAX_IDS_PER_CALL, items: { required: true, type: "string", max: 100 } },
      userVariables: { type: "object" },
    },
    bodyLimit: 2 * 1024 * 1024,
    handler: (c, { body }) => {
      const cam = draft(campaign(c));
      const vars = perUser(body.userVariables, "userVariables");
      const result = addRecipients(c, cam, (body.userIds as string[]).map((uid) => ({ uid, vars: vars.get(uid.toLowerCase()) })));
      return c.json({ data: { campaignId: cam.id, added: result.added, refused: result.refused, summary: recipientSummary(cam) } }, 201);
    },
  }),
  operation({
    id: "CampaignsController_getRecipientSummary",
    method: "GET",
    path: "/campaigns/:id/recipients/summary",
    plane: "campaigns",
    handler: (c) => {
      const cam = campaign(c);
      return c.json({ data: { campaignId: cam.id, ...recipientSummary(cam) } });
    },
  }),
  operation({
    id: "CampaignsController_getUploadUrl",
    method: "POST",
    path: "/campaigns/:id/recipients/upload-url",
    plane: "campaigns",
    handler: (c) => {
      const cam = draft(campaign(c));
      const s3Key = `${cam.id}-${randomHex(12)}.csv`;
      const signature = randomHex(32);
      const expiresAt = nowOf(c) + UPLOAD_URL_SECONDS;
      const { uploads } = campaignsOf(c);
      for (const [key, u] of uploads) if (u.expiresAt < nowOf(c)) uploads.delete(key);
      uploads.set(s3Key, { s3Key, campaignId: cam.id, signature, expiresAt });
      // The address on this emulator, as the caller reached it (host or path label alike).
      const url = c.req.url;
      const base = url.slice(0, url.indexOf("/v3/campaigns/") + "/v3/campaigns".length);
      const uploadUrl = `${base}/csv-uploads/${s3Key}?signature=${signature}`;
      return c.json({ data: { uploadUrl, s3Key, method: "PUT", headers: { "content-type": "text/csv" }, expiresIn: UPLOAD_URL_SECONDS, expiresAt } }, 201);
    },
  }),
  operation({
    id: "CampaignsController_importCsv",
    method: "POST",
    path: "/campaigns/:id/import-csv",
    plane: "campaigns",
    body: { s3Key: { required: true, type: "string", max: 200 } },
    handler: (c, { body }) => {
      const cam = draft(campaign(c));
      if (cam.import?.status === "processing") throw conflict("Import already in progress", `Campaign ${cam.id} is importing ${cam.import.s3Key}.`);
      const upload = campaignsOf(c).uploads.get(body.s3Key as string);
      if (!upload || upload.campaignId !== cam.id || upload.csv === undefined)
        throw invalid(`No CSV file was uploaded at ${String(body.s3Key)} for this campaign: PUT it to the address upload-url gave first.`);
      campaignsOf(c).uploads.delete(upload.s3Key);
      cam.import = importCsv(c, cam, upload.s3Key, upload.csv);
      return c.json({ data: importView(cam.id, cam.import) }, 202);
    },
  }),
  operation({
    id: "CampaignsController_getImportStatus",
    method: "GET",
    path: "/campaigns/:id/import-status",
    plane: "campaigns",
    handler: (c) => {
      const cam = campaign(c);
      if (!cam.import) throw notFound("ERR_IMPORT_NOT_FOUND", cam.id, "campaignId");
      return c.json({ data: importView(cam.id, cam.import) });
    },
  }),
  operation({
    id: "CampaignsController_send",
    method: "POST",
    path: "/campaigns/:id/send",
    plane: "campaigns",
    handler: (c) => {
      const cam = campaign(c);
      if (cam.status !== "draft" && cam.status !== "scheduled") throw refused("Campaign not in sendable status", { campaignId: cam.id, status: cam.status });
      if (cam.recipients.length === 0) throw refused("Campaign has no recipients", { campaignId: cam.id });
      approved(campaignsOf(c).templates.get(cam.templateId)!);
      startCampaign(c.get("app"), nowOf(c), cam);
      return c.json({ data: view(c, cam) });
    },
  }),
  operation({
    id: "CampaignsController_schedule",
    method: "POST",
    path: "/campaigns/:id/schedule",
    plane: "campaigns",
    body: { scheduledAt: { required: true, type: "number" } },
    handler: (c, { body }) => {
      const cam = draft(campaign(c));
      const at = body.scheduledAt as number;
      const now = nowOf(c);
      if (!Number.isInteger(at) || at <= now) throw refused("scheduledAt must be a future time in Unix seconds", { scheduledAt: String(at), now: String(now) });
      if (cam.recipients.length === 0) throw refused("Campaign has no recipients", { campaignId: cam.id });
      approved(campaignsOf(c).templates.get(cam.templateId)!);
      cam.status = "scheduled";
      cam.scheduledAt = at;
      cam.updatedAt = now;
      campaignsOf(c).scheduled.add(cam.id);
      return c.json({ data: view(c, cam) });
    },
  }),
  operation({
    id: "CampaignsController_getSequenceMetrics",
    method: "GET",
    path: "/campaigns/:id/sequence-metrics",
    plane: "campaigns",
    handler: (c) => {
      const cam = campaign(c);
      const version = campaignsOf(c).templates.get(cam.templateId)!.versions[cam.templateVersion - 1];
      const steps = stepsOf(version);
      const rows = (steps.length > 0 ? steps : [undefined]).map((step) => {
        const channels = version.channels.filter((ch) => step === undefined || ch.sequenceOrder === step);
        const counts = { sent: 0, delivered: 0, viewed: 0, clicked: 0, interacted: 0, failed: 0 };
        return { step: step ?? 1, channelTypes: channels.map((ch) => ch.channelType), waitMinutes: Math.max(0, ...channels.map((ch) => ch.waitMinutes ?? 0)), stopConditions: channels.map((ch) => ch.stopCondition ?? null), counts, raw: step };
      });
      for (const e of campaignsOf(c).events) {
        if (e.campaignId !== cam.id) continue;
        const row = rows.find((r) => r.raw === e.step);
        if (row) row.counts[e.type]++;
      }
      // A step is sent once the send reached it; the steps after a cancel are cancelled, the others pending.
      const done = (step: number | undefined) => {
        const next = cam.nextStep?.step;
        if (cam.sentAt !== undefined && (next === undefined || (step !== undefined && step < next))) return "sent";
        return cam.status === "cancelled" ? "cancelled" : "pending";
      };
      return c.json({
        data: {
          campaignId: cam.id,
          status: cam.status,
          sequenced: steps.length > 0,
          nextStep: cam.nextStep ?? null,
          steps: rows.map(({ raw, counts, ...r }) => ({ ...r, status: done(raw), ...counts })),
        },
      });
    },
  }),
  operation({
    id: "CampaignsController_cancel",
    method: "POST",
    path: "/campaigns/:id/cancel",
    plane: "campaigns",
    handler: (c) => {
      const cam = campaign(c);
      if (cam.status !== "scheduled" && !(cam.status === "sending" && cam.nextStep)) throw refused("Campaign not in cancellable status", { campaignId: cam.id, status: cam.status });
      const now = nowOf(c);
      cam.status = "cancelled";
      cam.cancelledAt = cam.updatedAt = now;
      campaignsOf(c).scheduled.delete(cam.id);
      return c.json({ data: view(c, cam) });
    },
  }),
  operation({
    id: "NotificationSendController_send",
    method: "POST",
    path: "/notifications/messages",
    plane: "campaigns",
    headers: ["onbehalfof"],
    body: {
      templateId: { required: true, type: "string", max: 100 },
      receivers: { required: true, type: "array", minItems: 1, maxItems: MAX_IDS_PER_CALL, items: { required: true, type: "string", max: 100 } },
      variables: { type: "object" },
      tag: { type: "string", max: 100 },
    },
    bodyLimit: 2 * 1024 * 1024,
    handler: (c, { body }) => {
      adminOnly(c, 403);
      let t: TemplateRecord;
      try {
        t = template(c, body.templateId as string);
      } catch (e) {
        // This operation answers an unknown template with 400 (the published file).
        if (e instanceof ApiError) throw withDetails(new ApiError(e.code, 400, e.message, e.devMessage), { templateId: String(body.templateId) });
        throw e;
      }
      approved(t);
      const vars = perUser(body.variables, "variables");
      const receivers = [...new Set((body.receivers as string[]).map((r) => r.toLowerCase()))];
      const bad = receivers.find((r) => !UID.test(r));
      if (bad !== undefined) throw invalid(`receivers: ${bad} is not a user id (letters, numbers, underscores and dashes, at most 100).`);
      const app = c.get("app");
      const version = t.versions[t.currentVersion - 1];
      const send: Send = { app, now: nowOf(c), template: t, version, notificationId: campaignsOf(c).nextId("notification") };
      for (const uid of receivers) deliverTo(send, uid, variablesFor(version, {}, vars.get(uid)), version.channels);
      const channels = version.channels.map((ch) => ch.channelType);
      if (receivers.length <= REALTIME_RECEIVERS) return c.json({ data: { notificationId: send.notificationId, channels, mode: "realtime", ...(body.tag !== undefined && { tag: body.tag }) } });
      return c.json({ data: { batchId: send.notificationId, total: receivers.length, channels, mode: "batch", ...(body.tag !== undefined && { tag: body.tag }) } });
    },
  }),
];

/** Reads an uploaded CSV: a header row naming `uid` (or `userId`), every other column a per-user variable. */
function importCsv(c: Ctx, cam: CampaignRecord, s3Key: string, text: string) {
  const now = nowOf(c);
  const record = { id: campaignsOf(c).nextId("import"), s3Key, status: "completed" as const, totalRows: 0, accepted: 0, refused: [] as { row: number; userId?: string; reason: string }[], createdAt: now, completedAt: now };
  const { rows, truncated } = parseCsv(text, MAX_RECIPIENTS + 1);
  const header = (rows[0] ?? []).map((h) => h.trim());
  const uidAt = header.findIndex((h) => /^(uid|userid|user_id)$/i.test(h));
  if (uidAt < 0) {
    record.refused.push({ row: 1, reason: "The header row names no uid (or userId) column." });
    return { ...record, status: "failed" as const };
  }
  const entries: { uid: string; vars: Record<string, string>; row: number }[] = [];
  const seen = new Set<string>();
  for (let i = 1; i < rows.length; i++) {
    const row = rows[i];
    record.totalRows++;
    const uid = (row[uidAt] ?? "").trim();
    const problem =
      row.length !== header.length ? `The row has ${row.length} fields; the header has ${header.length}.` : uid === "" ? "The uid is empty." : seen.has(uid.toLowerCase()) ? "The uid appears earlier in the file." : undefined;
    if (problem) {
      record.refused.push({ row: i + 1, ...(uid && { userId: uid }), reason: problem });
      continue;
    }
    seen.add(uid.toLowerCase());
    const vars = keyedMap<string>();
    header.forEach((h, k) => k !== uidAt && h !== "" && (vars[h] = row[k]));
    entries.push({ uid, vars, row: i + 1 });
  }
  const result = addRecipients(c, cam, entries);
  record.accepted = result.added;
  // addRecipients reports in the order given: match each refusal back to its row.
  let at = 0;
  for (const r of result.refused) {
    while (entries[at].uid !== r.userId) at++;
    record.refused.push({ row: entries[at].row, userId: r.userId, reason: r.reason });
    at++;
  }
  if (truncated) record.refused.push({ row: rows.length + 1, reason: `The file has more than ${MAX_RECIPIENTS} rows: the rest were not read.` });
  record.refused.sort((a, b) => a.row - b.row);
  return record;
}

/**
 * The upload address `upload-url` gives (the emulator's stand-in for a presigned S3 URL): `PUT` the CSV file there,
 * no credentials but the address's signature, within its validity.
 */
export const csvUploads = new Hono<Env>().put("/csv-uploads/:s3Key", async (c) => {
  const app = c.get("app");
  const upload = app.campaigns.uploads.get(c.req.param("s3Key"));
  if (!upload || c.req.query("signature") !== upload.signature || upload.expiresAt < c.get("emulator").clock.now())
    throw apiError("ERR_FORBIDDEN", { reason: "The upload URL is invalid or has expired. Ask for a new one with upload-url." });
  upload.csv = await readText(c, MAX_CSV_BYTES);
  return c.body(null, 200, { etag: `"${randomHex(16)}"` });
});
