import { apiError, badRequest } from "../../http/errors.js";
import { asBool, type Body } from "../../http/validate.js";
import { bodySchema, type Schema } from "../../http/schema.js";
import type { AgentRecord, JsonObject } from "../../store/types.js";

/** What the two agent services accept (reference/ai-agents.md §3–§4), their checks and defaults. */

const STRINGS = { type: "array", items: { required: true, type: "string", max: 100 } } as const;

const BYO: Schema = {
  name: { filled: true, type: "string", max: 100 },
  icon: { type: "string", max: 3000, url: true },
  isActive: { type: "boolean" },
  integrateWith: { filled: true, type: "string", max: 100 },
  integrationType: { type: "string", in: ["llm", "agent"] },
  integrationMeta: { type: "object", maxKb: 5 },
  actions: STRINGS,
  tools: STRINGS,
  cometchatTools: STRINGS,
  instruction: { type: "string", max: 10_000 },
  suggestions: STRINGS,
  metaData: { type: "object", maxKb: 5 },
};

const BUILDER: Schema = {
  name: { filled: true, type: "string", max: 100 },
  icon: { type: "string", max: 3000, url: true },
  description: { type: "string", max: 1000 },
  isActive: { type: "boolean" },
  tools: STRINGS,
  apiTools: STRINGS,
  mcpServers: STRINGS,
  instruction: { type: "string", max: 10_000 },
  metaData: { type: "object", maxKb: 5 },
  model: { filled: true, type: "string", max: 100 },
  modelMetaData: { type: "object", maxKb: 5 },
};

/** Fields that name tools made through the tool APIs, which the emulator does not serve: none can exist. */
const TOOL_REFERENCES = { byo: ["tools", "actions"], builder: ["apiTools", "mcpServers"] } as const;

function requireTools(kind: AgentRecord["kind"], body: Body): void {
  for (const field of TOOL_REFERENCES[kind]) {
    const first = (body[field] as string[] | undefined)?.[0];
    if (first !== undefined) throw apiError("ERR_TOOL_NOT_FOUND", { id: first });
  }
}

const requiring = (schema: Schema, required: readonly string[]): Schema =>
  Object.fromEntries(Object.entries(schema).map(([k, spec]) => [k, required.includes(k) ? { ...spec, required: true } : spec]));

/** The create and update bodies of each kind, as their operations declare them. */
export const AGENT_BODY: Record<AgentRecord["kind"], { create: Schema; update: Schema }> = {
  byo: { create: requiring(BYO, ["name", "integrateWith", "integrationType"]), update: BYO },
  builder: { create: requiring(BUILDER, ["name"]), update: BUILDER },
};

/** The BYO create body's JSON Schema, for the test operation's check of a configuration to try (compiled once). */
export const BYO_CREATE_JSON = bodySchema(AGENT_BODY.byo.create);

/** The rules of a create or update body beyond its declared fields: what one field requires of another, and tools. */
export function checkAgentRules(kind: AgentRecord["kind"], body: Body, creating: boolean): void {
  if (kind === "byo" && creating && body.integrationType === "agent" && body.integrationMeta === undefined)
    throw badRequest({ integrationMeta: ["The integrationMeta field is required when integration type is agent."] });
  requireTools(kind, body);
}

/** The stored fields of a body: what the schema knows, booleans normalised. */
export function fieldsOf(kind: AgentRecord["kind"], body: Body): JsonObject {
  const out: JsonObject = {};
  for (const k of Object.keys(kind === "byo" ? BYO : BUILDER))
    if (body[k] !== undefined && body[k] !== null) out[k] = k === "isActive" ? asBool(body[k]) : (body[k] as JsonObject[string]);
  return out;
}

export const DEFAULTS: Record<AgentRecord["kind"], JsonObject> = {
  byo: { isActive: true, tools: [], actions: [], integrationMeta: {}, metaData: {} },
  builder: { isActive: true, tools: [], apiTools: [], mcpServers: [], metaData: {}, model: "gpt-4o-mini", modelMetaData: {} },
};

