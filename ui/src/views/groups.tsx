import { useState } from "preact/hooks";
import { ApiError, rest, type AppInfo } from "../api";
import { Avatar, Badge, Empty, ErrorLine, Facts, fullTime, Head, Json, RemoveButton, shortTime } from "../components";
import { appHref } from "../router";
import { act, useLoad } from "../state";
import type { AppViewProps, Group } from "./props";
import { UserSelect, useUsers } from "./shared";

interface Member {
  uid: string;
  name: string;
  scope: "admin" | "moderator" | "participant";
  joinedAt?: number;
  status?: string;
}

const SCOPES = ["participant", "moderator", "admin"] as const;
const SCOPE_TONE = { admin: "purple", moderator: "blue", participant: "grey" } as const;

function GroupDetail({ app, guid }: { app: AppInfo; guid: string }) {
  const api = rest(app);
  const path = `/groups/${encodeURIComponent(guid)}`;
  const group = useLoad(() => api.get<{ data: Group }>(path), [app.appId, guid]);
  const members = useLoad(() => api.list<Member>(`${path}/members?perPage=1000`), [app.appId, guid]);
  const banned = useLoad(() => api.list<{ uid: string; name: string }>(`${path}/bannedusers?perPage=100`), [app.appId, guid]);
  const users = useUsers(app);
  const [uid, setUid] = useState("");
  const [scope, setScope] = useState<Member["scope"]>("participant");

  const g = group.data?.data;
  if (group.error) return <ErrorLine error={group.error} />;
  if (!g) return null;
  const memberUids = new Set(members.data?.data.map((m) => m.uid));
  const add = async (e: Event) => {
    e.preventDefault();
    if (!uid) return;
    const key = scope === "admin" ? "admins" : scope === "moderator" ? "moderators" : "participants";
    await act(`Added ${uid} as ${scope}`, async () => {
      const reply = await api.send<{ data: Record<string, Record<string, { success: boolean; message?: string; error?: { code: string } }>> }>("POST", `${path}/members`, { [key]: [uid] });
      // Per-uid results: the call answers 200 even when the uid could not be added.
      const result = reply.data[key]?.[uid];
      if (result && !result.success) throw new ApiError(200, result.error?.code ?? "NOT_ADDED", result.message ?? `${uid} was not added.`);
    });
    setUid("");
  };
  return (
    <div class="detail">
      <div class="detail-head">
        <Avatar name={g.name} size={40} />
        <div>
          <h2>{g.name}</h2>
          <p class="muted">
            <code>{g.guid}</code> · {g.type} · {g.membersCount} members · owner <code>{g.owner}</code>
          </p>
        </div>
        <span class="spacer" />
        <a class="button" href={appHref(app.appId, "conversations", `group_${g.guid}`)}>
          Open conversation
        </a>
      </div>
      <Facts
        rows={[
          ["description", g.description],
          ["tags", g.tags?.join(", ") || "—"],
          ["created", fullTime(g.createdAt)],
        ]}
      />
      {g.metadata !== undefined && <Json value={g.metadata} />}
      <h3>Members</h3>
      <ErrorLine error={members.error} />
      <table class="table">
        <Head columns={["Member", "Scope", "Joined", ""]} />
        <tbody>
          {members.data?.data.map((m) => (
            <tr key={m.uid}>
              <td>
                <span class="who">
                <Avatar name={m.name} size={24} /> {m.name} <code>{m.uid}</code> {m.uid === g.owner && <Badge tone="amber">owner</Badge>}
              </span>
              </td>
              <td>
                <select
                  aria-label={`Scope of ${m.uid}`}
                  class={`scope ${SCOPE_TONE[m.scope]}`}
                  value={m.scope}
                  onChange={(e) => {
                    const next = (e.target as HTMLSelectElement).value;
                    void act(`${m.uid} is now ${next}`, () => api.send("PUT", `${path}/members/${encodeURIComponent(m.uid)}`, { scope: next }));
                  }}
                >
                  {SCOPES.map((s) => (
                    <option key={s} value={s}>
                      {s}
                    </option>
                  ))}
                </select>
              </td>
              <td>{shortTime(m.joinedAt)}</td>
              <td class="right">
                <RemoveButton done={`Removed ${m.uid}`} run={() => api.send("DELETE", `${path}/members/${encodeURIComponent(m.uid)}`)} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form class="inline-form" onSubmit={add}>
        <UserSelect users={users.data?.filter((u) => !memberUids.has(u.uid))} value={uid} onChange={setUid} label="Add a user" />
        <select aria-label="Scope" value={scope} onChange={(e) => setScope((e.target as HTMLSelectElement).value as Member["scope"])}>
          {SCOPES.map((s) => (
            <option key={s} value={s}>
              as {s}
            </option>
          ))}
        </select>
        <button type="submit" disabled={!uid}>
          Add member
        </button>
      </form>
      {banned.data && banned.data.data.length > 0 && (
        <>
          <h3>Banned</h3>
          <ul class="plain">
            {banned.data.data.map((b) => (
              <li key={b.uid}>
                {b.name} <code>{b.uid}</code>
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

/** Groups of the app; one group's members and scopes, with add, remove and scope changes. */
export function GroupsView({ app, param }: AppViewProps) {
  const groups = useLoad(() => rest(app).list<Group>("/groups?perPage=1000&withTags=true"), [app.appId]);
  const selected = param ?? groups.data?.data[0]?.guid;
  return (
    <section class="split">
      <div class="list-pane">
        <h1>Groups {groups.data && <span class="muted">({groups.data.data.length})</span>}</h1>
        <ErrorLine error={groups.error} />
        {groups.data?.data.length === 0 && <Empty>No groups.</Empty>}
        {groups.data?.data.map((g) => (
          <a key={g.guid} class={`list-item ${g.guid === selected ? "active" : ""}`} href={appHref(app.appId, "groups", g.guid)}>
            <Avatar name={g.name} size={30} />
            <span>
              <strong>{g.name}</strong>
              <span class="muted small">
                {g.guid} · {g.type} · {g.membersCount} members
              </span>
            </span>
          </a>
        ))}
      </div>
      <div class="detail-pane">{selected ? <GroupDetail app={app} guid={selected} /> : <Empty>Pick a group.</Empty>}</div>
    </section>
  );
}
