import { useState } from "preact/hooks";
import { ApiError, control, type AppInfo, type Directory } from "../api";
import { Badge, Empty, ErrorLine, Field, Head, RemoveButton } from "../components";
import { act, useLoad } from "../state";

interface Rule {
  id: string;
  match: { method?: string; path?: string; appId?: string; plane?: string };
  effect: { status?: number; code?: string; message?: string; latencyMs?: number; jitterMs?: number; reset?: boolean; retryAfter?: number };
  probability: number;
  times: number | null;
  hits: number;
  expired: boolean;
}

interface Draft {
  method: string;
  path: string;
  appOnly: boolean;
  status: string;
  code: string;
  latencyMs: string;
  jitterMs: string;
  reset: boolean;
  probability: string;
  times: string;
}

const EMPTY: Draft = { method: "", path: "/v3/*", appOnly: false, status: "503", code: "", latencyMs: "", jitterMs: "", reset: false, probability: "1", times: "" };

const PRESETS: { label: string; draft: Partial<Draft> }[] = [
  { label: "Next message send fails (503)", draft: { method: "POST", path: "/v3/messages", status: "503", times: "1" } },
  { label: "Every call is slow (+800 ms)", draft: { method: "", path: "/v3/*", status: "", latencyMs: "800" } },
  { label: "Rate limited (429) ×3", draft: { method: "", path: "/v3/*", status: "429", times: "3" } },
  { label: "Flaky: 30% of calls fail", draft: { method: "", path: "/v3/*", status: "500", probability: "0.3" } },
  { label: "Socket logins dropped ×3 (reconnects)", draft: { method: "WS", path: "", status: "", reset: true, times: "3" } },
];

const num = (s: string) => (s.trim() === "" ? undefined : Number(s));

/** The rule a draft stands for, as POST /_emulator/rules takes it. */
function ruleBody(d: Draft, app: AppInfo | undefined) {
  const match = { method: d.method || undefined, path: d.path.trim() || undefined, appId: d.appOnly ? app?.appId : undefined };
  const effect = {
    status: d.reset ? undefined : num(d.status),
    code: d.reset ? undefined : d.code.trim() || undefined,
    latencyMs: num(d.latencyMs),
    jitterMs: num(d.jitterMs),
    reset: d.reset || undefined,
  };
  return { match, effect, probability: num(d.probability), times: num(d.times) ?? null };
}

function describeEffect(r: Rule): string {
  const parts: string[] = [];
  if (r.effect.reset) parts.push("reset the connection");
  if (r.effect.status || r.effect.code) parts.push(`fail ${[r.effect.status, r.effect.code].filter(Boolean).join(" ")}`);
  if (r.effect.latencyMs || r.effect.jitterMs) parts.push(`+${r.effect.latencyMs ?? 0}${r.effect.jitterMs ? `–${(r.effect.latencyMs ?? 0) + r.effect.jitterMs}` : ""} ms`);
  return parts.join(", ") || "nothing";
}

/** Fault and latency rules: the list with hits and what is left, presets, a form and removal. */
export function RulesView({ app, dir }: { app: AppInfo | undefined; dir: Directory }) {
  const rules = useLoad(() => control.get<{ rules: Rule[] }>("/rules"), []);
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const set = (k: keyof Draft) => (e: Event) => {
    const t = e.target as HTMLInputElement;
    setDraft({ ...draft, [k]: t.type === "checkbox" ? t.checked : t.value });
  };
  const addRule = async (d: Draft) => {
    setError(undefined);
    try {
      const rule = await control.send<Rule>("POST", "/rules", ruleBody(d, app));
      await act(`Added rule ${rule.id}`, async () => rule);
    } catch (err) {
      setError(err as ApiError);
    }
  };
  const add = (e: Event) => {
    e.preventDefault();
    void addRule(draft);
  };
  const preset = (d: Partial<Draft>) => {
    const full = { ...EMPTY, ...d };
    setDraft(full);
    void addRule(full);
  };
  const appName = (id: string) => dir.apps.find((a) => a.appId === id)?.name ?? id;
  const list = rules.data?.rules ?? [];
  return (
    <section>
      <div class="toolbar">
        <h1>Faults & latency</h1>
        <span class="spacer" />
        {list.length > 0 && (
          <button class="danger" onClick={() => act("Removed every rule", () => control.send("DELETE", "/rules"))}>
            Remove all
          </button>
        )}
      </div>
      <p class="muted small">Rules apply to your code's API calls (and to the writes made from this page), never to control calls.</p>
      <ErrorLine error={rules.error} />
      {list.length === 0 && <Empty>No rules: every call is answered normally.</Empty>}
      {list.length > 0 && (
        <table class="table rules">
          <Head columns={["Id", "Matches", "Effect", "Probability", "Left", "Hits", ""]} />
          <tbody>
            {list.map((r) => (
              <tr key={r.id} class={r.expired ? "dim" : ""} data-rule={r.id}>
                <td>
                  <Badge tone="purple">{r.id}</Badge>
                </td>
                <td>
                  <code>
                    {r.match.method ?? "ANY"} {r.match.path ?? "*"}
                  </code>
                  {r.match.appId && <span class="muted"> · {appName(r.match.appId)}</span>}
                  {r.match.plane && <span class="muted"> · {r.match.plane}</span>}
                </td>
                <td>{describeEffect(r)}</td>
                <td>{r.probability}</td>
                <td>{r.expired ? <Badge>expired</Badge> : (r.times ?? "∞")}</td>
                <td>{r.hits}</td>
                <td class="right">
                  <RemoveButton done={`Removed rule ${r.id}`} run={() => control.send("DELETE", `/rules/${r.id}`)} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Add a rule</h2>
      <p class="muted small">A preset adds its rule at once, and fills the form below with it to add a variant.</p>
      <div class="presets">
        {PRESETS.map((p) => (
          <button key={p.label} class="small" onClick={() => preset(p.draft)}>
            {p.label}
          </button>
        ))}
      </div>
      <form class="rule-form" onSubmit={add}>
        <Field label="Method">
          <select value={draft.method} onChange={set("method")}>
            <option value="">any</option>
            {["GET", "POST", "PUT", "PATCH", "DELETE"].map((m) => (
              <option key={m}>{m}</option>
            ))}
            <option value="WS">WS (socket logins)</option>
          </select>
        </Field>
        <Field label="Path (glob)">
          <input value={draft.path} onInput={set("path")} placeholder="/v3/messages*" />
        </Field>
        <Field label="App">
          <label class="check">
            <input type="checkbox" checked={draft.appOnly} onChange={set("appOnly")} disabled={!app} /> {app ? `${app.name} only` : "any"}
          </label>
        </Field>
        <Field label="Status">
          <input value={draft.status} onInput={set("status")} placeholder="none" inputMode="numeric" disabled={draft.reset} />
        </Field>
        <Field label="Code">
          <input value={draft.code} onInput={set("code")} placeholder="from the status" disabled={draft.reset} />
        </Field>
        <Field label="Latency ms">
          <input value={draft.latencyMs} onInput={set("latencyMs")} placeholder="0" inputMode="numeric" />
        </Field>
        <Field label="Jitter ms">
          <input value={draft.jitterMs} onInput={set("jitterMs")} placeholder="0" inputMode="numeric" />
        </Field>
        <Field label="Probability">
          <input value={draft.probability} onInput={set("probability")} inputMode="decimal" />
        </Field>
        <Field label="Times">
          <input value={draft.times} onInput={set("times")} placeholder="unlimited" inputMode="numeric" />
        </Field>
        <Field label="Reset">
          <label class="check">
            <input type="checkbox" checked={draft.reset} onChange={set("reset")} /> close the connection
          </label>
        </Field>
        <div class="form-actions">
          <button type="submit">Add rule</button>
        </div>
      </form>
      <ErrorLine error={error} />
    </section>
  );
}
