import { useState } from "preact/hooks";
import { control, management } from "../api";
import { Badge, Drawer, Empty, ErrorLine, Head, Json, shortTime } from "../components";
import { act, useLoad } from "../state";
import type { AppViewProps } from "./props";

interface Extension {
  id: string;
  name: string;
  tagLine: string;
  isActive: boolean;
  isThirdParty: boolean;
  hooks: { data: { hook: string }[] };
}

interface ExtensionCall {
  seq: number;
  at: number;
  extension: string;
  messageId: string;
  service: string;
  action: string;
  input: string;
}

/**
 * An app's extensions with an on/off switch each (through the management API, like any caller), the settings of
 * an enabled one, and the outside calls enabled extensions would have made for recent messages.
 */
export function ExtensionsView({ app, dir }: AppViewProps) {
  const api = management(dir);
  const base = `/apps/${app.appId}/extensions`;
  const list = useLoad(() => api.list<Extension>(`${base}?perPage=1000`), [app.appId]);
  const calls = useLoad(() => control.get<{ calls: ExtensionCall[] }>(`/extensions/calls?appId=${app.appId}`), [app.appId]);
  const [openId, setOpenId] = useState<string | undefined>(undefined);
  const open = list.data?.data.find((e) => e.id === openId);
  const settings = useLoad(
    async () => (open?.isActive ? api.send<{ data: { body: unknown } }>("GET", `${base}/${open.id}/v1/settings`) : undefined),
    [open?.id, open?.isActive],
  );
  // Extensions without a settings path answer the unknown-route error.
  const noSettings = settings.error?.code === "ERR_API_NOT_FOUND";
  const toggle = (e: Extension) =>
    act(`${e.name} ${e.isActive ? "disabled" : "enabled"}`, () => api.send("POST", base, e.isActive ? { disabled: [e.id] } : { enabled: [e.id] }));
  const enabled = list.data?.data.filter((e) => e.isActive).length ?? 0;
  return (
    <section>
      <h1>Extensions</h1>
      <p class="muted small">
        {enabled} enabled. Enabled extensions act on the messages sent and edited from now on (see docs/extensions.md); settings are
        stored through the management API.
      </p>
      <ErrorLine error={list.error} />
      {!!list.data?.data.length && (
        <table class="table">
          <Head columns={["Extension", "What it does", "Hooks", "On"]} />
          <tbody>
            {list.data.data.map((e) => (
              <tr key={e.id} data-extension={e.id} onClick={() => setOpenId(e.id)}>
                <td>
                  <strong>{e.name}</strong> <code class="small">{e.id}</code> {e.isThirdParty && <Badge>third party</Badge>}
                </td>
                <td class="small">{e.tagLine}</td>
                <td class="small">{e.hooks.data.map((h) => h.hook).join(", ") || "—"}</td>
                <td>
                  <label class="switch" onClick={(ev) => ev.stopPropagation()}>
                    <input type="checkbox" aria-label={`${e.name} enabled`} checked={e.isActive} onChange={() => toggle(e)} />{" "}
                    <Badge tone={e.isActive ? "green" : "grey"}>{e.isActive ? "enabled" : "disabled"}</Badge>
                  </label>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Outside calls not made</h2>
      <ErrorLine error={calls.error} />
      {calls.data?.calls.length === 0 && <Empty>None yet: enable an extension that calls a service (link preview, sentiment analysis, …) and send a message.</Empty>}
      {!!calls.data?.calls.length && (
        <table class="table">
          <Head columns={["Time", "Extension", "Message", "Would have asked", "Input"]} />
          <tbody>
            {calls.data.calls
              .slice(-50)
              .reverse()
              .map((c) => (
                <tr key={c.seq}>
                  <td>{shortTime(c.at)}</td>
                  <td>
                    <code class="small">{c.extension}</code>
                  </td>
                  <td>#{c.messageId}</td>
                  <td class="small">
                    {c.service}: {c.action}
                  </td>
                  <td>
                    <code class="wrap">{c.input}</code>
                  </td>
                </tr>
              ))}
          </tbody>
        </table>
      )}
      {open && (
        <Drawer title={open.name} onClose={() => setOpenId(undefined)}>
          <p>{open.tagLine}</p>
          {!open.isActive && <p class="muted">Disabled in this app.</p>}
          {open.isActive && noSettings && <p class="muted">This extension has no settings.</p>}
          {!noSettings && <ErrorLine error={settings.error} />}
          {settings.data && <Json value={settings.data.data.body} />}
        </Drawer>
      )}
    </section>
  );
}
