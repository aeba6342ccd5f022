import { rest, type AppInfo, type Directory } from "../api";
import { Badge } from "../components";
import { appHref } from "../router";
import { useLoad } from "../state";

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

function Counts({ app }: { app: AppInfo }) {
  const counts = useLoad(async () => {
    const api = rest(app);
    const [users, groups] = await Promise.all([api.list("/users?perPage=1"), api.list("/groups?perPage=1")]);
    return { users: users.meta?.pagination?.total ?? 0, groups: groups.meta?.pagination?.total ?? 0 };
  }, [app.appId]);
  if (!counts.data) return null;
  return (
    <p class="muted">
      {plural(counts.data.users, "user")} · {plural(counts.data.groups, "group")}
    </p>
  );
}

/** Home: every app, the default one first; a card opens the app. */
export function AppsView({ dir }: { dir: Directory }) {
  const apps = [...dir.apps].sort((a, b) => Number(b.default) - Number(a.default));
  return (
    <section>
      <h1>Apps</h1>
      {apps.length === 0 && <p class="empty">No apps. Create one through the management API (POST /apimgmt/apps).</p>}
      <div class="cards">
        {apps.map((app) => (
          <a class="card app-card" key={app.appId} href={appHref(app.appId, "conversations")} data-app={app.appId}>
            <h2>
              {app.name} {app.default && <Badge tone="blue">default</Badge>}
            </h2>
            <p>
              <code>{app.appId}</code> · region <code>{app.region}</code>
            </p>
            <Counts app={app} />
            <p class="muted small">
              REST base <code class="wrap">{location.origin + app.restPath}</code>
            </p>
          </a>
        ))}
      </div>
    </section>
  );
}
