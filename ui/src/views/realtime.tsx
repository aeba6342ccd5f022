import { useEffect, useState } from "preact/hooks";
import { control } from "../api";
import { Badge, Drawer, Empty, Head, Json } from "../components";
import { act } from "../state";
import type { FrameRecord as Frame, SessionView as Session } from "../../../src/realtime/sessions";

const POLL_MS = 1000;
const KEEP = 200;

/** Who is connected over the WebSocket, and the frames going to and coming from them (polled every second). */
export function RealtimeView() {
  const [sessions, setSessions] = useState<Session[]>([]);
  const [frames, setFrames] = useState<Frame[]>([]);
  const [selected, setSelected] = useState<Frame | undefined>(undefined);
  useEffect(() => {
    let live = true;
    let afterId = 0;
    const poll = async () => {
      try {
        const [s, f] = await Promise.all([
          control.get<{ sessions: Session[] }>("/sessions"),
          control.get<{ frames: Frame[] }>(`/realtime/frames?afterId=${afterId}`),
        ]);
        if (!live) return;
        setSessions(s.sessions);
        if (f.frames.length > 0) {
          afterId = f.frames[f.frames.length - 1].id;
          setFrames((old) => [...f.frames.slice().reverse(), ...old].slice(0, KEEP));
        }
      } catch {
        // the next poll tries again
      }
    };
    void poll();
    const timer = setInterval(poll, POLL_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, []);
  const close = (s: Session) =>
    act(`Closed the sockets of ${s.uid}`, () => control.send("DELETE", `/sessions?appId=${encodeURIComponent(s.appId)}&uid=${encodeURIComponent(s.uid)}`));
  return (
    <section>
      <div class="toolbar">
        <h1>Realtime</h1>
      </div>
      <h2>Online ({sessions.length})</h2>
      {sessions.length === 0 && <Empty>No WebSocket session. Log in with the JavaScript SDK (see docs/frontends.md).</Empty>}
      {sessions.length > 0 && (
        <table class="table" data-sessions>
          <Head columns={["User", "App", "Device", "Platform", "Since", "Presence", ""]} />
          <tbody>
            {sessions.map((s) => (
              <tr key={s.id} data-session={s.uid}>
                <td>{s.uid}</td>
                <td>{s.appId}</td>
                <td class="muted">{s.deviceId}</td>
                <td>{s.platform}</td>
                <td class="nowrap">{new Date(s.since).toLocaleTimeString()}</td>
                <td>{s.presenceSubscription}</td>
                <td>
                  <button class="danger" onClick={() => close(s)}>
                    Close sockets
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Frames</h2>
      {frames.length === 0 && <Empty>No frames yet.</Empty>}
      {frames.length > 0 && (
        <table class="table clickable">
          <Head columns={["#", "Time", "App", "Direction", "Type", "Who"]} />
          <tbody>
            {frames.map((f) => (
              <tr key={f.id} data-frame={f.type} onClick={() => setSelected(f)}>
                <td class="muted">{f.id}</td>
                <td class="nowrap">{new Date(f.time).toLocaleTimeString()}</td>
                <td>{f.appId}</td>
                <td>
                  <Badge tone={f.direction === "out" ? "green" : "amber"}>{f.direction === "out" ? "sent" : "received"}</Badge>
                </td>
                <td>
                  <code>{f.type}</code>
                </td>
                <td>{f.direction === "out" ? `${f.to} socket${f.to === 1 ? "" : "s"}` : `from ${f.from}`}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {selected && (
        <Drawer title={`Frame ${selected.id}: ${selected.type}`} onClose={() => setSelected(undefined)}>
          <Json value={selected.frame} />
        </Drawer>
      )}
    </section>
  );
}
