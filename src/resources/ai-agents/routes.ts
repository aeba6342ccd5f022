import type { Ctx } from "../../http/context.js";
import { apiError } from "../../http/errors.js";
import type { Body } from "../../http/validate.js";
import { operation, routes } from "../../http/operation.js";
import type { AppState } from "../../store/app-state.js";
import type { AgentRecord, JsonObject, UserRecord } from "../../store/types.js";
import { randomUuid } from "../../util/random.js";
import { TEST_BODY, testAgent } from "./test-agent.js";
import { AGENT_BODY, checkAgentRules, DEFAULTS, fieldsOf } from "./fields.js";

/**
 * The AI-agent services (reference/ai-agents.md §3–§4): BYO agents (`/ai-agents/agents`) and agent-builder agents
 * (`/ai-agents/agent-builder/agents`). Each agent is also a user (uid = the agent's UUID, name and avatar from the
 * agent) so it can take part in conversations. Their replies have their own style: no `data` envelope, `{agent}`,
 * `{agents}` or `{success: true}`; BYO times are ISO 8601, agent-builder times milliseconds.
 */

/** An agent as its service shows it. */
function agentView(app: AppState, a: AgentRecord): Record<string, unknown> {
  const base = { uid: a.uid, appId: app.meta.appId };
  if (a.kind === "byo")
    return { ...base, ...a.fields, deletedAt: null, createdAt: new Date(a.createdAt).toISOString(), updatedAt: new Date(a.updatedAt).toISOString() };
  const instruction = typeof a.fields.instruction === "string" ? a.fields.instruction : "";
  return {
    ...base,
    ...a.fields,
    files: [],
    websites: [],
    otherKbIntegrations: [],
    frontendActions: [],
    ragVersion: "v2",
    lastMessageAt: null,
    instruction,
    formattedInstruction: instruction,
    createdAt: a.createdAt,
    updatedAt: a.updatedAt,
  };
}

/** The agent's user follows its name and icon. */
function syncUser(app: AppState, user: UserRecord, fields: JsonObject): void {
  app.updateUser(user, (u) => {
    u.name = fields.name as string;
    if (typeof fields.icon === "string") u.avatar = fields.icon;
  });
}

function pathAgent(c: Ctx, kind: AgentRecord["kind"]): AgentRecord {
  const uid = c.req.param("uid")!.toLowerCase();
  const agent = c.get("app").agents.get(uid);
  if (!agent || agent.kind !== kind) throw apiError("ERR_AGENT_NOT_FOUND", { uid });
  return agent;
}

function create(kind: AgentRecord["kind"]) {
  return (c: Ctx, { body }: { body: Body }) => {
    checkAgentRules(kind, body, true);
    const app = c.get("app");
    const { clock } = c.get("emulator");
    let uid = randomUuid();
    while (app.users.has(uid)) uid = randomUuid();
    const nowMs = clock.nowMs();
    const fields = { ...DEFAULTS[kind], ...fieldsOf(kind, body) };
    const user: UserRecord = { uid, name: fields.name as string, role: "default", tags: [], status: "offline", createdAt: clock.now() };
    if (typeof fields.icon === "string") user.avatar = fields.icon;
    app.addUser(user);
    const agent: AgentRecord = { uid, kind, fields, createdAt: nowMs, updatedAt: nowMs };
    app.agents.set(uid, agent);
    return c.json({ agent: agentView(app, agent) });
  };
}

function update(kind: AgentRecord["kind"]) {
  return (c: Ctx, { body }: { body: Body }) => {
    const agent = pathAgent(c, kind);
    checkAgentRules(kind, body, false);
    const app = c.get("app");
    agent.fields = { ...agent.fields, ...fieldsOf(kind, body) };
    agent.updatedAt = c.get("emulator").clock.nowMs();
    syncUser(app, app.users.get(agent.uid)!, agent.fields);
    return c.json({ success: true });
  };
}

function remove(kind: AgentRecord["kind"]) {
  return (c: Ctx) => {
    const agent = pathAgent(c, kind);
    const app = c.get("app");
    // The agent's user goes with it (soft delete: its uid stays taken and its messages stay).
    app.softDeleteUser(app.users.get(agent.uid)!, c.get("emulator").clock.now());
    return c.json({ success: true });
  };
}

function list(kind: AgentRecord["kind"]) {
  return (c: Ctx) => {
    const app = c.get("app");
    const agents = [...app.agents.values()].filter((a) => a.kind === kind).sort((a, b) => a.createdAt - b.createdAt);
    return c.json({ agents: agents.map((a) => agentView(app, a)) });
  };
}

/**
 * The two services' operations; ids as the reference captured them (reference/ai-agents.md §3–§4): the others are
 * not published (or were cut, as the builder's create).
 */
const BYO = "/ai-agents/agents";
const BUILDER = "/ai-agents/agent-builder/agents";
export const aiAgents = routes(
  operation({ id: "AgentsController_getAgents", method: "GET", path: BYO, plane: "rest", handler: list("byo") }),
  operation({ method: "POST", path: BYO, plane: "rest", body: AGENT_BODY.byo.create, handler: create("byo") }),
  operation({ method: "POST", path: `${BYO}/test`, plane: "rest", body: TEST_BODY, handler: (c, { body }) => testAgent(c, body) }),
  operation({ id: "AgentsController_updateAgent", method: "PATCH", path: `${BYO}/:uid`, plane: "rest", body: AGENT_BODY.byo.update, handler: update("byo") }),
  operation({ method: "DELETE", path: `${BYO}/:uid`, plane: "rest", handler: remove("byo") }),
  operation({ method: "GET", path: BUILDER, plane: "rest", handler: list("builder") }),
  operation({ method: "POST", path: BUILDER, plane: "rest", body: AGENT_BODY.builder.create, handler: create("builder") }),
  operation({
    method: "GET",
    path: `${BUILDER}/:uid`,
    plane: "rest",
    handler: (c) => c.json({ agent: agentView(c.get("app"), pathAgent(c, "builder")) }),
  }),
  operation({ id: "AgentBuilderController_update", method: "PATCH", path: `${BUILDER}/:uid`, plane: "rest", body: AGENT_BODY.builder.update, handler: update("builder") }),
  operation({ method: "DELETE", path: `${BUILDER}/:uid`, plane: "rest", handler: remove("builder") }),
);
