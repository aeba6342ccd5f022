import { rest, type AppInfo, type Directory } from "../api";
import { Badge, clockTime, Empty, Facts, Head, statusTone } from "../components";
import { requests, type JournalEntry } from "../live";
import { appHref } from "../router";
import { useLoad, useStore } from "../state";

const plural = (n: number, noun: string) => `${n.toLocaleString()} ${noun}${n === 1 ? "" : "s"}`;

/** The error code of a journaled answer, if it was an error envelope. */
export function errorCode(entry: JournalEntry): string | undefined {
  const body = entry.responseBody as { error?: { code?: unknown } } | undefined;
  return typeof body?.error?.code === "string" ? body.error.code : undefined;
}

function Counts({ app }: { app: AppInfo }) {
  const counts = useLoad(async () => {
    const api = rest(app);
    const [users, groups] = await Promise.all([api.list("/users?perPage=1"), api.list("/groups?perPage=1")]);
    return { users: users.meta?.pagination?.total ?? 0, groups: groups.meta?.pagination?.total ?? 0 };
  }, [app.appId]);
  if (!counts.data) return null;
  return (
    <p class="counts">
      {plural(counts.data.users, "user")} · {plural(counts.data.groups, "group")} · {plural(app.apiKeys.length, "API key")}
    </p>
  );
}

/** Where a backend and a frontend reach this app, and with which keys. */
function Addresses({ app, dir }: { app: AppInfo; dir: Directory }) {
  const origin = location.origin;
  const key = (scope: string) => app.apiKeys.find((k) => k.scope === scope)?.apiKey;
  return (
    <Facts
      rows={[
        ["REST", <code class="wrap">{origin + app.restPath}</code>],
        ["Calls", <code class="wrap">{origin + app.callsPath}</code>],
        ["Client SDK", <code class="wrap">{`${location.host}/${app.appId}.apiclient-${app.region}/v3.0`}</code>],
        ["REST API Key", <code class="wrap">{key("fullAccess") ?? "none"}</code>],
        ["Auth Key", <code class="wrap">{key("authOnly") ?? "none"}</code>],
        ...(app.default
          ? ([
              ["Management", <code class="wrap">{origin + dir.management.path}</code>],
              ["Management key", <code class="wrap">{`${dir.management.key} / ${dir.management.secret}`}</code>],
            ] as [string, preact.ComponentChildren][])
          : []),
      ]}
    />
  );
}

function RecentTable({ entries, empty }: { entries: JournalEntry[]; empty: string }) {
  if (entries.length === 0) return <Empty>{empty}</Empty>;
  return (
    <table class="table recent">
      <Head columns={["Time", "Method", "Path", "Status", "Code"]} />
      <tbody>
        {entries.map((e) => (
          <tr key={e.id}>
            <td class="nowrap">{clockTime(e.timeMs)}</td>
            <td>
              <span class={`method ${e.method}`}>{e.method}</span>
            </td>
            <td class="path">
              <a href="#/requests">
                <code>{e.path}</code>
              </a>
            </td>
            <td>
              <Badge tone={statusTone(e.status)}>{e.status ?? "reset"}</Badge>
            </td>
            <td class="nowrap">{errorCode(e) && <code>{errorCode(e)}</code>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Home: every app with its counts, addresses and keys (the default one first), then the latest requests and errors. */
export function AppsView({ dir }: { dir: Directory }) {
  const apps = [...dir.apps].sort((a, b) => Number(b.default) - Number(a.default));
  const journal = useStore(requests);
  const recent = journal.slice(0, 6);
  const errors = journal.filter((e) => e.status === null || e.status >= 400).slice(0, 6);
  return (
    <section class="home">
      <h1>Apps</h1>
      {apps.length === 0 && <p class="empty">No apps. Create one through the management API (POST /apimgmt/apps).</p>}
      <div class="cards wide">
        {apps.map((app) => (
          <div class="card app-card" key={app.appId} data-app={app.appId}>
            <h2>
              <a href={appHref(app.appId, "conversations")}>{app.name}</a> {app.default && <Badge tone="blue">default</Badge>}
            </h2>
            <p>
              <code>{app.appId}</code> · region <code>{app.region}</code>
            </p>
            <Counts app={app} />
            <Addresses app={app} dir={dir} />
          </div>
        ))}
      </div>
      <div class="cards wide recent-cards">
        <div class="card">
          <h2>
            Recent requests <a class="small" href="#/requests">all</a>
          </h2>
          <RecentTable entries={recent} empty="No requests yet: call the API and they show here." />
        </div>
        <div class="card">
          <h2>Recent errors</h2>
          <RecentTable entries={errors} empty="No errors." />
        </div>
      </div>
    </section>
  );
}
