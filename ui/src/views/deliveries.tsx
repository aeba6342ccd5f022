import { useState } from "preact/hooks";
import { control } from "../api";
import { Badge, clockTime, Drawer, Empty, Facts, Head, Json } from "../components";
import { clearDeliveries, deliveries, type Delivery } from "../live";
import { act, useStore } from "../state";

const TONE: Record<Delivery["status"], string> = { pending: "grey", retrying: "amber", delivered: "green", failed: "red" };

/** Where a delivery went: a webhook id, or the bot whose callback got the relayed message. */
const recipient = (d: Delivery) => (d.kind === "bot" ? `bot ${d.bot}` : d.webhook);

function DeliveryDrawer({ d, onClose }: { d: Delivery; onClose: () => void }) {
  return (
    <Drawer title={`${d.event} → ${recipient(d)}`} onClose={onClose}>
      <Facts
        rows={[
          ["status", <Badge tone={TONE[d.status]}>{d.status}</Badge>],
          ["app", d.appId],
          ["created", clockTime(d.createdAt)],
        ]}
      />
      <h3>Attempts</h3>
      {d.attempts.length === 0 && <Empty>None yet.</Empty>}
      <ul class="plain">
        {d.attempts.map((a, i) => (
          <li key={i}>
            {clockTime(a.at)} · {a.status !== undefined ? <Badge tone={a.status < 300 ? "green" : "red"}>{a.status}</Badge> : <Badge tone="red">{a.error}</Badge>} · {a.durationMs} ms
          </li>
        ))}
      </ul>
      <h3>Payload</h3>
      <Json value={d.payload} />
    </Drawer>
  );
}

/** Webhook deliveries and bot relays as they happen: each event, its status and attempts; a row opens the payload. */
export function DeliveriesView() {
  const list = useStore(deliveries);
  const [selectedId, setSelectedId] = useState<number | undefined>(undefined);
  const selected = list.find((d) => d.id === selectedId);
  return (
    <section>
      <div class="toolbar">
        <h1>Webhook deliveries and bot relays</h1>
        <span class="spacer" />
        <button
          class="danger"
          onClick={() =>
            act("Cleared the delivery log", async () => {
              await control.send("DELETE", "/webhooks/deliveries");
              clearDeliveries();
            })
          }
        >
          Clear
        </button>
      </div>
      {list.length === 0 && <Empty>No deliveries yet. Register a webhook with triggers, or enable a bot; events your code causes are delivered here live.</Empty>}
      {list.length > 0 && (
        <table class="table clickable">
          <Head columns={["#", "Created", "App", "To", "Event", "Status", "Attempts"]} />
          <tbody>
            {list.map((d) => {
              const last = d.attempts.at(-1);
              return (
                <tr key={d.id} onClick={() => setSelectedId(d.id)}>
                  <td class="muted">{d.id}</td>
                  <td class="nowrap">{clockTime(d.createdAt)}</td>
                  <td>{d.appId}</td>
                  <td>{recipient(d)}</td>
                  <td>
                    <code>{d.event}</code>
                  </td>
                  <td>
                    <Badge tone={TONE[d.status]}>{d.status}</Badge>
                  </td>
                  <td>
                    {d.attempts.length}
                    {last && <span class="muted"> · last {last.status ?? last.error}</span>}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {selected && <DeliveryDrawer d={selected} onClose={() => setSelectedId(undefined)} />}
    </section>
  );
}
