import { useState } from "preact/hooks";
import { qs, rest } from "../api";
import { Avatar, Badge, Drawer, Empty, ErrorLine, Facts, fullTime, Head, Json, Pager, shortTime } from "../components";
import { appHref } from "../router";
import { useLoad } from "../state";
import type { AppViewProps, User } from "./props";

type Which = "active" | "all" | "deactivated";
const PER_PAGE = 50;

function UserDrawer({ app, user, onClose }: { app: AppViewProps["app"]; user: User; onClose: () => void }) {
  const tokens = useLoad(() => rest(app).list<{ authToken: string; createdAt: number }>(`/users/${encodeURIComponent(user.uid)}/auth_tokens?perPage=100`), [app.appId, user.uid]);
  return (
    <Drawer title={user.name} onClose={onClose}>
      <Facts
        rows={[
          ["uid", <code>{user.uid}</code>],
          ["role", user.role],
          ["status", user.status],
          ["tags", user.tags?.join(", ") || "—"],
          ["created", fullTime(user.createdAt)],
          ["deactivated", user.deactivatedAt ? fullTime(user.deactivatedAt) : "no"],
          ["link", user.link],
          ["avatar", user.avatar],
        ]}
      />
      <h3>Metadata</h3>
      <Json value={user.metadata ?? {}} />
      <h3>Auth tokens</h3>
      <ErrorLine error={tokens.error} />
      {tokens.data && tokens.data.data.length === 0 && <Empty>No auth tokens.</Empty>}
      <ul class="plain">
        {tokens.data?.data.map((t) => (
          <li key={t.authToken}>
            <code class="wrap">{t.authToken}</code> <span class="muted">{shortTime(t.createdAt)}</span>
          </li>
        ))}
      </ul>
      <p>
        <a href={appHref(app.appId, "conversations")}>Conversations</a> · <a href={appHref(app.appId, "keys", user.uid)}>Keys & tokens</a>
      </p>
    </Drawer>
  );
}

/** Users of the app: search by name or uid prefix, active / deactivated. */
export function UsersView({ app }: AppViewProps) {
  const [search, setSearch] = useState("");
  const [which, setWhich] = useState<Which>("active");
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<User | undefined>(undefined);
  const users = useLoad(
    () =>
      rest(app).list<User>(
        "/users" +
          qs({
            searchKey: search.trim(),
            withTags: true,
            withDeactivated: which === "all" || undefined,
            onlyDeactivated: which === "deactivated" || undefined,
            perPage: PER_PAGE,
            page,
          }),
      ),
    [app.appId, search, which, page],
  );
  const pagination = users.data?.meta?.pagination;
  return (
    <section>
      <div class="toolbar">
        <h1>Users {pagination && <span class="muted">({pagination.total})</span>}</h1>
        <input
          type="search"
          placeholder="Search name or uid…"
          aria-label="Search users"
          value={search}
          onInput={(e) => {
            setSearch((e.target as HTMLInputElement).value);
            setPage(1);
          }}
        />
        <select
          aria-label="Deactivated users"
          value={which}
          onChange={(e) => {
            setWhich((e.target as HTMLSelectElement).value as Which);
            setPage(1);
          }}
        >
          <option value="active">Active users</option>
          <option value="all">Active and deactivated</option>
          <option value="deactivated">Deactivated only</option>
        </select>
      </div>
      <ErrorLine error={users.error} />
      <table class="table clickable">
        <Head columns={["User", "uid", "Role", "Status", "Tags", "Created"]} />
        <tbody>
          {users.data?.data.map((u) => (
            <tr key={u.uid} onClick={() => setSelected(u)} class={u.deactivatedAt ? "dim" : ""}>
              <td>
                <span class="who">
                <Avatar name={u.name} size={26} /> {u.name} {u.deactivatedAt && <Badge tone="red">deactivated</Badge>}
              </span>
              </td>
              <td>
                <code>{u.uid}</code>
              </td>
              <td>{u.role}</td>
              <td>
                <Badge tone={u.status === "available" ? "green" : "grey"}>{u.status}</Badge>
              </td>
              <td>{u.tags?.join(", ")}</td>
              <td title={fullTime(u.createdAt)}>{shortTime(u.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {users.data?.data.length === 0 && <Empty>No users match.</Empty>}
      {pagination && <Pager page={pagination.current_page} pages={pagination.total_pages} onPage={setPage} />}
      {selected && <UserDrawer app={app} user={selected} onClose={() => setSelected(undefined)} />}
    </section>
  );
}
