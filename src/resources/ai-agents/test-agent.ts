import type { Ctx } from "../../http/context.js";
import { apiError, badRequest } from "../../http/errors.js";
import type { Body } from "../../http/validate.js";
import type { Schema } from "../../http/schema.js";
import { checkBody } from "../../http/body-check.js";
import type { JsonObject } from "../../store/types.js";
import { randomUuid } from "../../util/random.js";
import { CREDENTIALS_REFUSED, holdsCredentials } from "../../util/called-url.js";
import { AGENT_BODY, BYO_CREATE_JSON, checkAgentRules } from "./fields.js";

const TIMEOUT_MS = 10_000;

/** The deployment URL of a BYO agent: `integrationMeta.baseUrl` (as the docs' example) or `integrationMeta.url`. */
function deploymentUrl(meta: JsonObject | undefined): string | undefined {
  const url = meta?.baseUrl ?? meta?.url;
  return typeof url === "string" && /^https?:\/\/\S+$/i.test(url) ? url : undefined;
}

/**
 * The test operation's body: `uid` (a stored agent) and `message`, or else a BYO create body, whose fields are
 * checked only then (in the handler, against the create body's compiled schema): here they are named, not typed.
 */
export const TEST_BODY: Schema = {
  uid: { type: "string", max: 100 },
  message: { description: "The user's text (default \"Hello\")." },
  ...Object.fromEntries(Object.keys(AGENT_BODY.byo.create).map((k) => [k, { description: "The agent's configuration to try, without `uid`." }])),
};

/**
 * `POST /ai-agents/agents/test`: calls a BYO agent for real, as CometChat does (an AG-UI `RunAgentInput` POSTed to
 * its deployment URL, with the configured `integrationMeta.headers`), and reports whether it answered 2xx within
 * 10 s. The body names a stored agent (`uid`) or carries a configuration to try (a create body); `message` is the
 * user's text (default "Hello").
 */
export async function testAgent(c: Ctx, body: Body) {
  let config = body;
  if (body.uid !== undefined) {
    const uid = String(body.uid).toLowerCase();
    const agent = c.get("app").agents.get(uid);
    if (!agent || agent.kind !== "byo") throw apiError("ERR_AGENT_NOT_FOUND", { uid });
    config = agent.fields;
  } else {
    await checkBody(body, BYO_CREATE_JSON);
    checkAgentRules("byo", body, true);
  }
  const meta = config.integrationMeta as JsonObject | undefined;
  const url = deploymentUrl(meta);
  if (config.integrationType !== "agent" || !url)
    throw badRequest({
      integrationMeta: ["Only agents of integration type agent with an integrationMeta.baseUrl can be tested: the emulator runs no language model."],
    });
  if (holdsCredentials(url)) throw badRequest({ "integrationMeta.baseUrl": [`The integrationMeta.baseUrl ${CREDENTIALS_REFUSED}.`] });
  const headers: Record<string, string> = { "content-type": "application/json", accept: "text/event-stream" };
  if (meta?.headers && typeof meta.headers === "object" && !Array.isArray(meta.headers))
    for (const [k, v] of Object.entries(meta.headers)) if (typeof v === "string") headers[k] = v;
  const input = {
    threadId: randomUuid(),
    runId: randomUuid(),
    messages: [{ id: randomUuid(), role: "user", content: typeof body.message === "string" ? body.message : "Hello" }],
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
  };
  const started = performance.now();
  try {
    const res = await fetch(url, { method: "POST", headers, body: JSON.stringify(input), signal: AbortSignal.timeout(TIMEOUT_MS) });
    await res.arrayBuffer().catch(() => undefined);
    const durationMs = Math.round(performance.now() - started);
    const ok = res.status >= 200 && res.status < 300;
    return c.json(ok ? { success: true, status: res.status, durationMs } : { success: false, status: res.status, error: `the agent answered ${res.status}`, durationMs });
  } catch (e) {
    const error = (e as Error).name === "TimeoutError" ? `no answer within ${TIMEOUT_MS} ms` : String((e as Error).cause ?? (e as Error).message);
    return c.json({ success: false, error, durationMs: Math.round(performance.now() - started) });
  }
}
