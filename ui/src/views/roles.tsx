import { useState } from "preact/hooks";
import { rest, type AppInfo } from "../api";
import { Drawer, ErrorLine, fullTime, Head, Json, shortTime } from "../components";
import { useLoad } from "../state";
import type { AppViewProps } from "./props";

interface Role {
  role: string;
  name: string;
  description?: string;
  settings?: unknown;
  metadata?: unknown;
  createdAt: number;
}

function RoleDrawer({ app, role, onClose }: { app: AppInfo; role: Role; onClose: () => void }) {
  const path = `/roles/${encodeURIComponent(role.role)}`;
  const extra = useLoad(async () => {
    const api = rest(app);
    const [restricted, permissions] = await Promise.all([api.get(`${path}/restrictedfeatures`), api.get(`${path}/permissions`)]);
    return { restricted: restricted.data, permissions: permissions.data };
  }, [app.appId, role.role]);
  return (
    <Drawer title={role.name} onClose={onClose}>
      <Json value={role} />
      <ErrorLine error={extra.error} />
      <h3>Restricted features</h3>
      <Json value={extra.data?.restricted} />
      <h3>Permissions</h3>
      <Json value={extra.data?.permissions} />
    </Drawer>
  );
}

export function RolesView({ app }: AppViewProps) {
  const roles = useLoad(() => rest(app).list<Role>("/roles?perPage=100"), [app.appId]);
  const [selected, setSelected] = useState<Role | undefined>(undefined);
  return (
    <section>
      <h1>Roles</h1>
      <ErrorLine error={roles.error} />
      <table class="table clickable">
        <Head columns={["Role", "Name", "Description", "Settings", "Created"]} />
        <tbody>
          {roles.data?.data.map((r) => (
            <tr key={r.role} onClick={() => setSelected(r)}>
              <td>
                <code>{r.role}</code>
              </td>
              <td>{r.name}</td>
              <td>{r.description}</td>
              <td>
                <code class="small">{r.settings ? JSON.stringify(r.settings) : ""}</code>
              </td>
              <td title={fullTime(r.createdAt)}>{shortTime(r.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {selected && <RoleDrawer app={app} role={selected} onClose={() => setSelected(undefined)} />}
    </section>
  );
}
