import { useState } from "preact/hooks";
import { control } from "../api";
import { Badge, clockTime, Drawer, Empty, Facts, Head, Json } from "../components";
import { clearNotifications, notifications, type OutboxNotification } from "../live";
import { act, useStore } from "../state";

const TONE: Record<OutboxNotification["status"], string> = {
  suppressed: "grey",
  scheduled: "amber",
  sent: "green",
  pending: "grey",
  retrying: "amber",
  delivered: "green",
  failed: "red",
};

function NotificationDrawer({ n, onClose }: { n: OutboxNotification; onClose: () => void }) {
  return (
    <Drawer title={`${n.channel} to ${n.uid}`} onClose={onClose}>
      <Facts
        rows={[
          ["status", <Badge tone={TONE[n.status]}>{n.reason ? `${n.status}: ${n.reason}` : n.status}</Badge>],
          ["provider", `${n.provider}${n.providerId ? ` (${n.providerId})` : ""}`],
          ["token", n.pushToken ? `${n.pushToken} · ${n.tokenType}` : "—"],
          ["event", `${n.event} (${n.trigger})`],
          ["conversation", n.conversationId],
          ["message", String(n.messageId)],
          ["title", n.title ?? "—"],
          ["body", n.body ?? "—"],
          ["created", clockTime(n.createdAt)],
          ["due", n.dueAt ? clockTime(n.dueAt) : "—"],
        ]}
      />
      {n.attempts.length > 0 && (
        <>
          <h3>Attempts</h3>
          <ul class="plain">
            {n.attempts.map((a, i) => (
              <li key={i}>
                {clockTime(a.at)} · {a.status !== undefined ? <Badge tone={a.status < 300 ? "green" : "red"}>{a.status}</Badge> : <Badge tone="red">{a.error}</Badge>} · {a.durationMs} ms
              </li>
            ))}
          </ul>
        </>
      )}
      <h3>Payload</h3>
      {n.payload === undefined ? <Empty>None: nothing went out.</Empty> : <Json value={n.payload} />}
    </Drawer>
  );
}

/**
 * The notification outbox as it fills: every push, email and SMS the platform would send for what your code
 * does, suppressed ones too with the reason. A row opens the provider payload.
 */
export function NotificationsView() {
  const list = useStore(notifications);
  const [selectedId, setSelectedId] = useState<number | undefined>(undefined);
  const [uid, setUid] = useState("");
  const shown = uid ? list.filter((n) => n.uid.includes(uid.toLowerCase())) : list;
  const selected = list.find((n) => n.id === selectedId);
  return (
    <section>
      <div class="toolbar">
        <h1>Notifications</h1>
        <input type="search" placeholder="Filter by uid" aria-label="Filter by uid" value={uid} onInput={(e) => setUid((e.target as HTMLInputElement).value)} />
        <span class="spacer" />
        <button
          class="danger"
          onClick={() =>
            act("Cleared the notification outbox", async () => {
              await control.send("DELETE", "/notifications");
              clearNotifications();
            })
          }
        >
          Clear
        </button>
      </div>
      {shown.length === 0 && (
        <Empty>No notifications yet. Register a push token (or a custom, email or SMS provider); what your code sends is computed here live.</Empty>
      )}
      {shown.length > 0 && (
        <table class="table clickable">
          <Head columns={["#", "Created", "To", "Channel", "Event", "Title / body", "Status"]} />
          <tbody>
            {shown.map((n) => (
              <tr key={n.id} onClick={() => setSelectedId(n.id)}>
                <td class="muted">{n.id}</td>
                <td class="nowrap">{clockTime(n.createdAt)}</td>
                <td>{n.uid}</td>
                <td class="nowrap">
                  {n.channel} · {n.provider}
                </td>
                <td>
                  <code>{n.trigger}</code>
                </td>
                <td>
                  {n.title && <strong>{n.title}</strong>} {n.body && <span class="muted">{n.body}</span>}
                </td>
                <td>
                  <Badge tone={TONE[n.status]}>{n.reason ?? n.status}</Badge>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {selected && <NotificationDrawer n={selected} onClose={() => setSelectedId(undefined)} />}
    </section>
  );
}
