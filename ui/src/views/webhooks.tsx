import { management } from "../api";
import { Badge, Empty, ErrorLine, Head, shortTime } from "../components";
import { useLoad } from "../state";
import type { AppViewProps } from "./props";

interface Webhook {
  id: string;
  name: string;
  webhookURL: string;
  enabled: boolean;
  retryOnFailure: boolean;
  useBasicAuth: boolean;
  createdAt: number;
}

/** Webhooks of both systems (X-Webhook-Version 2 and legacy) with their triggers, through the management API. */
export function WebhooksView({ app, dir }: AppViewProps) {
  const hooks = useLoad(async () => {
    const base = `/apps/${app.appId}/webhooks`;
    const out: (Webhook & { version: 1 | 2; triggers: string[] })[] = [];
    for (const version of [2, undefined] as const) {
      const api = management(dir, version);
      for (const w of (await api.list<Webhook>(`${base}?perPage=100`)).data) {
        const triggers = (await api.list<{ id: string }>(`${base}/${encodeURIComponent(w.id)}/triggers`)).data.map((t) => t.id);
        out.push({ ...w, version: version ?? 1, triggers });
      }
    }
    return out;
  }, [app.appId]);
  return (
    <section>
      <h1>Webhooks</h1>
      <ErrorLine error={hooks.error} />
      {hooks.data?.length === 0 && <Empty>No webhooks. Register one through the management API (see docs/webhooks.md).</Empty>}
      {!!hooks.data?.length && (
        <table class="table">
          <Head columns={["Webhook", "URL", "Options", "Triggers", "Created"]} />
          <tbody>
            {hooks.data.map((w) => (
              <tr key={`${w.version}/${w.id}`}>
                <td>
                  <strong>{w.name || w.id}</strong> <code class="small">{w.id}</code> <Badge>{w.version === 2 ? "v2" : "legacy"}</Badge>
                </td>
                <td>
                  <code class="wrap">{w.webhookURL}</code>
                </td>
                <td>
                  <Badge tone={w.enabled ? "green" : "grey"}>{w.enabled ? "enabled" : "disabled"}</Badge> {w.retryOnFailure && <Badge>retries</Badge>}{" "}
                  {w.useBasicAuth && <Badge>basic auth</Badge>}
                </td>
                <td>{w.triggers.join(", ") || "—"}</td>
                <td>{shortTime(w.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p>
        <a href={`#/deliveries`}>Deliveries of every webhook →</a>
      </p>
    </section>
  );
}
