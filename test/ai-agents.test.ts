import { beforeEach, describe, expect, it } from "vitest";
import { emulator, expectError, type TestEmulator } from "./helpers.js";
import { isAgentic } from "../src/store/agents.js";
import { useReceiver } from "./receiver.helpers.js";

let e: TestEmulator;
beforeEach(async () => {
  e = await emulator();
});

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const byo = (extra: Record<string, unknown> = {}) =>
  e.post("/v3/ai-agents/agents", { name: "Weather", integrateWith: "mastra", integrationType: "agent", integrationMeta: { baseUrl: "https://agent.example.com", agentId: "weatherAgent" }, tools: [], actions: [], ...extra });

describe("BYO agents", () => {
  it("creates, lists, updates and deletes agents, each a user with its own reply style (no data envelope, ISO times)", async () => {
    const created = await byo({ icon: "https://example.com/w.png", instruction: "Be brief" });
    expect(created.status).toBe(200);
    const agent = created.body.agent;
    expect(created.body).not.toHaveProperty("data");
    expect(agent).toMatchObject({
      uid: expect.stringMatching(UUID),
      appId: expect.any(String),
      name: "Weather",
      icon: "https://example.com/w.png",
      isActive: true,
      integrateWith: "mastra",
      integrationType: "agent",
      tools: [],
      actions: [],
      instruction: "Be brief",
      metaData: {},
      deletedAt: null,
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
    // The agent is a user the chat API knows, and an agentic one; it is no bot.
    expect((await e.get(`/v3/users/${agent.uid}`)).body.data).toMatchObject({ uid: agent.uid, name: "Weather", avatar: "https://example.com/w.png" });
    const app = e.store.defaultApp!;
    expect(isAgentic(app, agent.uid)).toBe(true);
    expect(isAgentic(app, "superhero1")).toBe(false);
    expectError(await e.get(`/v3/bots/${agent.uid}`), 404, "ERR_BOT_NOT_FOUND");
    expectError(await e.put(`/v3/bots/${agent.uid}`, { enabled: true }), 404, "ERR_BOT_NOT_FOUND");
    const asBot = expectError(await e.post("/v3/bots", { uid: agent.uid, webhookURL: "https://example.com/bot" }), 400, "ERR_BAD_REQUEST");
    expect(asBot.details).toEqual({ uid: ["The uid belongs to an AI agent, which the bots API does not manage."] });
    expect((await e.get("/v3/bots")).body.data).toEqual([]);

    expect((await e.get("/v3/ai-agents/agents")).body).toEqual({ agents: [agent] });
    const patched = await e.call("PATCH", `/v3/ai-agents/agents/${agent.uid}`, { body: { name: "Forecast", isActive: false, metaData: { greetingMessage: "Hi" } } });
    expect(patched.body).toEqual({ success: true });
    expect((await e.get("/v3/ai-agents/agents")).body.agents[0]).toMatchObject({ name: "Forecast", isActive: false, metaData: { greetingMessage: "Hi" } });
    expect((await e.get(`/v3/users/${agent.uid}`)).body.data.name).toBe("Forecast");

    expect((await e.del(`/v3/ai-agents/agents/${agent.uid}`)).body).toEqual({ success: true });
    expect((await e.get("/v3/ai-agents/agents")).body).toEqual({ agents: [] });
    expectError(await e.get(`/v3/users/${agent.uid}`), 404, "ERR_UID_NOT_FOUND");
    expect(isAgentic(app, agent.uid)).toBe(false);
    expectError(await e.call("PATCH", `/v3/ai-agents/agents/${agent.uid}`, { body: { name: "x" } }), 404, "ERR_AGENT_NOT_FOUND");
    expectError(await e.del(`/v3/ai-agents/agents/${agent.uid}`), 404, "ERR_AGENT_NOT_FOUND");
  });

  it("validates bodies: required fields, enums, lengths, integrationMeta for agents, tools that must exist", async () => {
    const bad = expectError(await e.post("/v3/ai-agents/agents", { integrationType: "robot", name: "x".repeat(101) }), 400, "ERR_BAD_REQUEST");
    expect(Object.keys(bad.details!).sort()).toEqual(["integrateWith", "integrationType", "name"]);
    expectError(await e.post("/v3/ai-agents/agents", { name: "A", integrateWith: "mastra", integrationType: "agent" }), 400, "ERR_BAD_REQUEST");
    expect((await e.post("/v3/ai-agents/agents", { name: "A", integrateWith: "openai", integrationType: "llm" })).status).toBe(200);
    // Tools and actions are made through the tool APIs, which the emulator does not serve: none exists.
    expectError(await byo({ tools: ["tool1"] }), 404, "ERR_TOOL_NOT_FOUND");
    expectError(await byo({ actions: ["action1"] }), 404, "ERR_TOOL_NOT_FOUND");
    const uid = (await byo()).body.agent.uid;
    expectError(await e.call("PATCH", `/v3/ai-agents/agents/${uid}`, { body: { icon: "not a url", isActive: "perhaps" } }), 400, "ERR_BAD_REQUEST");
    expectError(await e.call("PATCH", `/v3/ai-agents/agents/${uid}`, { body: { name: "" } }), 400, "ERR_BAD_REQUEST");
    expect((await e.get("/v3/ai-agents/agents")).body.agents.map((a: any) => a.name)).toEqual(["A", "Weather"]);
  });
});

describe("testing a BYO agent", () => {
  const rx = useReceiver("/agent", (_, res) => {
    res.setHeader("content-type", "text/event-stream");
    res.end('data: {"type":"RUN_STARTED"}\n\n');
  });

  it("POSTs an AG-UI RunAgentInput to the deployment URL with the configured headers and reports the answer", async () => {
    const uid = (await byo({ integrationMeta: { baseUrl: rx.url, headers: { authorization: "Bearer t" } } })).body.agent.uid;
    const r = await e.post("/v3/ai-agents/agents/test", { uid, message: "Weather in Paris?" });
    expect(r.body).toEqual({ success: true, status: 200, durationMs: expect.any(Number) });
    expect(rx.received[0].headers.authorization).toBe("Bearer t");
    expect(rx.received[0].body).toMatchObject({ threadId: expect.any(String), runId: expect.any(String), messages: [{ role: "user", content: "Weather in Paris?" }] });
    // An unsaved configuration can be tried too; a failing agent is reported, not an error of the call.
    rx.answer = (_, res) => {
      res.statusCode = 500;
      res.end();
    };
    const failed = await e.post("/v3/ai-agents/agents/test", { name: "Try", integrateWith: "mastra", integrationType: "agent", integrationMeta: { baseUrl: rx.url } });
    expect(failed.body).toEqual({ success: false, status: 500, error: "the agent answered 500", durationMs: expect.any(Number) });
    expectError(await e.post("/v3/ai-agents/agents/test", { uid: "00000000-0000-4000-8000-000000000000" }), 404, "ERR_AGENT_NOT_FOUND");
    expectError(await e.post("/v3/ai-agents/agents/test", { name: "L", integrateWith: "openai", integrationType: "llm" }), 400, "ERR_BAD_REQUEST");
  });
});

describe("agent-builder agents", () => {
  it("creates, gets, lists, updates and deletes agents with millisecond times and the builder's defaults", async () => {
    const created = await e.post("/v3/ai-agents/agent-builder/agents", { name: "Support", description: "Helps", tools: ["gmail"], instruction: "Be kind", modelMetaData: { temperature: 0.7 } });
    expect(created.status).toBe(200);
    const agent = created.body.agent;
    expect(agent).toMatchObject({
      uid: expect.stringMatching(UUID),
      name: "Support",
      description: "Helps",
      isActive: true,
      tools: ["gmail"],
      apiTools: [],
      mcpServers: [],
      files: [],
      websites: [],
      frontendActions: [],
      ragVersion: "v2",
      lastMessageAt: null,
      instruction: "Be kind",
      formattedInstruction: "Be kind",
      model: "gpt-4o-mini",
      modelMetaData: { temperature: 0.7 },
      createdAt: expect.any(Number),
    });
    expect(agent.createdAt).toBeGreaterThan(1e12);
    expect((await e.get(`/v3/ai-agents/agent-builder/agents/${agent.uid}`)).body).toEqual({ agent });
    expect((await e.get("/v3/ai-agents/agent-builder/agents")).body).toEqual({ agents: [agent] });
    // The two families are apart.
    expect((await e.get("/v3/ai-agents/agents")).body).toEqual({ agents: [] });
    expectError(await e.call("PATCH", `/v3/ai-agents/agents/${agent.uid}`, { body: { name: "x" } }), 404, "ERR_AGENT_NOT_FOUND");
    expect((await e.call("PATCH", `/v3/ai-agents/agent-builder/agents/${agent.uid}`, { body: { model: "gpt-4o" } })).body).toEqual({ success: true });
    expect((await e.get(`/v3/ai-agents/agent-builder/agents/${agent.uid}`)).body.agent.model).toBe("gpt-4o");
    expectError(await e.post("/v3/ai-agents/agent-builder/agents", { name: "X", mcpServers: ["srv"] }), 404, "ERR_TOOL_NOT_FOUND");
    expectError(await e.post("/v3/ai-agents/agent-builder/agents", {}), 400, "ERR_BAD_REQUEST");
    expect(isAgentic(e.store.defaultApp!, agent.uid)).toBe(true);
    expect((await e.del(`/v3/ai-agents/agent-builder/agents/${agent.uid}`)).body).toEqual({ success: true });
    expectError(await e.get(`/v3/ai-agents/agent-builder/agents/${agent.uid}`), 404, "ERR_AGENT_NOT_FOUND");
    // Paths the reference does not know stay unserved.
    expectError(await e.get("/v3/ai-agents/agent-builder/tools"), 404, "ERR_API_NOT_FOUND");
    expectError(await e.get("/v3/ai-agents/agents/x"), 404, "ERR_API_NOT_FOUND");
  });

  it("keeps agents in the app's state", async () => {
    const uid = (await e.post("/v3/ai-agents/agent-builder/agents", { name: "Keep" })).body.agent.uid;
    const state = (await e.get("/_emulator/state", { key: null })).body;
    expect(state.apps[0].agents).toEqual([expect.objectContaining({ uid, kind: "builder" })]);
    await e.post("/_emulator/reset", {}, { key: null });
    expect((await e.get("/v3/ai-agents/agent-builder/agents")).body.agents).toEqual([]);
    expect((await e.put("/_emulator/state", state, { key: null })).status).toBe(200);
    expect((await e.get(`/v3/ai-agents/agent-builder/agents/${uid}`)).body.agent.name).toBe("Keep");
    expect(isAgentic(e.store.defaultApp!, uid)).toBe(true);
  });
});
