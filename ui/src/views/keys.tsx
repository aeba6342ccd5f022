import { useState } from "preact/hooks";
import { rest } from "../api";
import { Badge, Empty, ErrorLine, Facts, fullTime, Head, shortTime } from "../components";
import { appHref } from "../router";
import { useLoad } from "../state";
import type { AppViewProps } from "./props";
import { UserSelect, useUsers } from "./shared";

interface ApiKey {
  apiKey: string;
  name: string;
  scope: "fullAccess" | "authOnly";
  createdAt: number;
  createdBy?: string;
}

/** API keys of the app, the addresses and management credentials to call it with, and a user's auth tokens. */
export function KeysView({ app, dir, param }: AppViewProps) {
  const keys = useLoad(() => rest(app).list<ApiKey>("/apikeys?perPage=100"), [app.appId]);
  const users = useUsers(app);
  const [uid, setUid] = useState(param ?? "");
  const tokens = useLoad(
    async () => (uid ? (await rest(app).list<{ authToken: string; createdAt: number }>(`/users/${encodeURIComponent(uid)}/auth_tokens?perPage=100`)).data : []),
    [app.appId, uid],
  );
  const origin = location.origin;
  return (
    <section>
      <h1>Keys & tokens</h1>
      <Facts
        rows={[
          ["REST base URL", <code>{origin + app.restPath}</code>],
          ["Calls base URL", <code>{origin + app.callsPath}</code>],
          ["Management URL", <code>{origin + dir.management.path}</code>],
          ["Management key", <code>{dir.management.key}</code>],
          ["Management secret", <code>{dir.management.secret}</code>],
        ]}
      />
      <h2>API keys</h2>
      <ErrorLine error={keys.error} />
      <table class="table">
        <Head columns={["Key", "Name", "Scope", "Created"]} />
        <tbody>
          {keys.data?.data.map((k) => (
            <tr key={k.apiKey}>
              <td>
                <code>{k.apiKey}</code>
              </td>
              <td>{k.name}</td>
              <td>
                <Badge tone={k.scope === "fullAccess" ? "green" : "blue"}>{k.scope}</Badge>
              </td>
              <td title={fullTime(k.createdAt)}>{shortTime(k.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Auth tokens</h2>
      <div class="toolbar">
        <UserSelect
          users={users.data}
          value={uid}
          onChange={(next) => {
            setUid(next);
            history.replaceState(null, "", appHref(app.appId, "keys", next || undefined));
          }}
          label="Pick a user"
        />
      </div>
      <ErrorLine error={tokens.error} />
      {uid && tokens.data?.length === 0 && <Empty>{uid} has no auth tokens.</Empty>}
      {uid && !!tokens.data?.length && (
        <table class="table">
          <Head columns={["Auth token", "Created"]} />
          <tbody>
            {tokens.data.map((t) => (
              <tr key={t.authToken}>
                <td>
                  <code>{t.authToken}</code>
                </td>
                <td title={fullTime(t.createdAt)}>{shortTime(t.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
