import { AI_FEATURES } from "./ai-scripts.js";
import type { Json, JsonObject } from "./types.js";
import { firstPatternProblem, maskProblem } from "../util/safe-regex.js";

/**
 * What the management plane stores per app besides apps, keys and webhooks: extensions (on/off and their
 * settings), chat widgets, push certificates (recorded, never used), collaborators, app settings and, for an app
 * created through `POST /tenants`, its tenant. Part of the app's data: persisted, snapshotted, reset to birth.
 */

export interface ExtensionState {
  enabled: boolean;
  /** As stored through `/extensions/{id}/v1/settings` (absent: never stored, or deleted). */
  settings?: JsonObject;
  updatedAt: number;
}

export interface WidgetRecord {
  widgetId: string;
  settings: JsonObject;
  createdAt: number;
  updatedAt: number;
}

/** An uploaded APNs credential: what the file said about itself. It is never used to contact Apple. */
export interface CertificateRecord {
  type: "p12" | "p8";
  fileName: string;
  size: number;
  sha256: string;
  uploadedAt: number;
  /** p12: the certificate's topic (UID of its subject); unknown when the file could not be read without a password. */
  bundleId?: string;
  subject?: string;
  /** p12: the certificate's notAfter (Unix seconds). A p8 key never expires. */
  expiresAt?: number;
}

export type CollaboratorRole = "admin" | "developer" | "moderator";

export interface CollaboratorRecord {
  id: string;
  name: string;
  email: string;
  role: CollaboratorRole;
  createdAt: number;
}

/** The account `POST /tenants` created with this app (its password is never kept). */
export interface TenantRecord {
  name: string;
  email: string;
  createdAt: number;
  contactNumber?: string;
  role?: string;
  industry?: string;
  technology?: string;
}

export interface ManagementData {
  extensions: Record<string, ExtensionState>;
  widgets: WidgetRecord[];
  certificates: CertificateRecord[];
  collaborators: CollaboratorRecord[];
  lastCollaboratorId: number;
  /** App settings (`/apps/{appId}/settings`), by key. */
  settings: Record<string, Json>;
  tenant?: TenantRecord;
}

/**
 * The settings every app is born with (the keys the platform's settings example lists). Thread replies do not
 * update their conversation unless `updateOnReplies` is switched on (the conversation list's behaviour so far).
 */
export const BIRTH_SETTINGS: Readonly<Record<string, Json>> = {
  "core.conversations.updateOnGroupActions": true,
  "core.conversations.updateOnReplies": false,
  "core.threads.updateOnMessageActions": false,
  "core.conversations.updateOnCallActivity": true,
  "core.conversations.updateOnMessageActions": true,
  "core.conversations.updateOnCustomMessage": true,
  // Push notifications: available to the app, not switched on, no advanced payload fields included.
  "core.notifications.push.accessible": true,
  "core.notifications.push.enabled": false,
  "core.notifications.push.advanced.enabled": false,
  "core.notifications.push.advanced.included": [],
  // The AI features of the client plane, on at birth so that the UI kit's panels work out of the box (the SDK's
  // isAIFeatureEnabled reads these four kinds of key); a test switches one off through the settings.
  "features.ai.accessible": true,
  "features.ai.enabled": true,
  ...Object.fromEntries(AI_FEATURES.flatMap((f) => [[`features.ai.${f}.accessible`, true], [`features.ai.${f}.enabled`, true]])),
};

export function emptyManagement(): ManagementData {
  return { extensions: {}, widgets: [], certificates: [], collaborators: [], lastCollaboratorId: 0, settings: { ...BIRTH_SETTINGS } };
}

/** Management data is small and nested: a structured clone is its copy. */
export function copyManagement(m: ManagementData): ManagementData {
  return structuredClone(m);
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Data masking's custom masks must pass the checks its settings route ran on them (util/safe-regex.ts). */
function masks(raw: unknown, path: string, fail: (path: string, problem: string) => never): void {
  if (raw === undefined) return;
  if (!Array.isArray(raw) || !raw.every(isObj)) fail(path, "must be an array of objects");
  const found = firstPatternProblem(raw.map((m) => m.regex), maskProblem);
  if (found) fail(found.index === undefined ? path : `${path}[${found.index}].regex`, found.problem);
}

/**
 * Reads the `management` entry of a seed or state file (absent in files written before it existed: birth
 * defaults). `fail(path, problem)` reports the first bad field the way the seed loader does.
 */
export function parseManagement(raw: unknown, path: string, fail: (path: string, problem: string) => never): ManagementData {
  const m = emptyManagement();
  if (raw === undefined) return m;
  if (!isObj(raw)) fail(path, "must be an object");
  const arr = (k: string): Obj[] => {
    const v = raw[k];
    if (v === undefined) return [];
    if (!Array.isArray(v) || !v.every(isObj)) fail(`${path}.${k}`, "must be an array of objects");
    return v as Obj[];
  };
  if (raw.extensions !== undefined) {
    if (!isObj(raw.extensions)) fail(`${path}.extensions`, "must be an object");
    for (const [id, s] of Object.entries(raw.extensions)) {
      if (!isObj(s) || typeof s.enabled !== "boolean") fail(`${path}.extensions.${id}`, "must be an object with a boolean enabled");
      if (s.settings !== undefined && !isObj(s.settings)) fail(`${path}.extensions.${id}.settings`, "must be an object");
      m.extensions[id] = { enabled: s.enabled, updatedAt: typeof s.updatedAt === "number" ? s.updatedAt : 0 };
      if (s.settings !== undefined) m.extensions[id].settings = s.settings as JsonObject;
      if (id === "data-masking" && s.settings !== undefined) masks(s.settings.customregexData, `${path}.extensions.${id}.settings.customregexData`, fail);
    }
  }
  m.widgets = arr("widgets") as unknown as WidgetRecord[];
  m.certificates = arr("certificates") as unknown as CertificateRecord[];
  m.collaborators = arr("collaborators") as unknown as CollaboratorRecord[];
  if (typeof raw.lastCollaboratorId === "number") m.lastCollaboratorId = raw.lastCollaboratorId;
  if (raw.settings !== undefined) {
    if (!isObj(raw.settings)) fail(`${path}.settings`, "must be an object");
    m.settings = raw.settings as Record<string, Json>;
  }
  if (raw.tenant !== undefined) {
    if (!isObj(raw.tenant) || typeof raw.tenant.email !== "string") fail(`${path}.tenant`, "must be an object with an email");
    m.tenant = raw.tenant as unknown as TenantRecord;
  }
  return m;
}
