import { rest, type AppInfo } from "../api";
import { useLoad } from "../state";
import type { User } from "./props";

/** The app's active users (up to 1000), for pickers and names. */
export function useUsers(app: AppInfo) {
  return useLoad(async () => (await rest(app).list<User>("/users?perPage=1000")).data, [app.appId]);
}

export function UserSelect({
  users,
  value,
  onChange,
  label,
  only,
}: {
  users: User[] | undefined;
  value: string;
  onChange: (uid: string) => void;
  label: string;
  /** Offer only these uids. */
  only?: string[];
}) {
  const list = (users ?? []).filter((u) => !only || only.includes(u.uid));
  return (
    <select aria-label={label} value={value} onChange={(e) => onChange((e.target as HTMLSelectElement).value)}>
      <option value="">{label}…</option>
      {list.map((u) => (
        <option key={u.uid} value={u.uid}>
          {u.name} ({u.uid})
        </option>
      ))}
    </select>
  );
}
