import { useState } from "preact/hooks";
import { control, type AppInfo, type Directory } from "../api";
import { Empty, ErrorLine, Field, fullTime, RemoveButton } from "../components";
import { act, clock, refreshClock, useLoad, useStore } from "../state";

interface Snapshot {
  name: string;
  takenAtMs: number;
  apps: number;
  records: number;
}

const STEPS: [string, number][] = [
  ["+1 min", 60],
  ["+1 h", 3600],
  ["+1 day", 86400],
];

function ClockCard() {
  const c = useStore(clock);
  const [seconds, setSeconds] = useState("10");
  const clockAct = (what: string, fn: () => Promise<unknown>) => act(what, fn).then(refreshClock);
  const advance = (s: number) => clockAct(`Advanced the clock by ${s} s`, () => control.send("POST", "/clock/advance", { seconds: s }));
  return (
    <div class="card">
      <h2>Clock</h2>
      {c && (
        <p>
          <strong>{c.mode === "frozen" ? "Frozen" : "Real time"}</strong> · {new Date(c.nowMs).toLocaleString()}
          {c.mode === "real" && c.nowMs - c.readAt > 1000 && <span class="muted"> (ahead of this computer)</span>}
        </p>
      )}
      <div class="button-row">
        {c?.mode === "frozen" ? (
          <button onClick={() => clockAct("The clock runs in real time again", () => control.send("PUT", "/clock", { mode: "real" }))}>Use real time</button>
        ) : (
          <button onClick={() => clockAct("Froze the clock", () => control.send("PUT", "/clock", { mode: "frozen" }))}>Freeze</button>
        )}
        {STEPS.map(([label, s]) => (
          <button key={label} onClick={() => advance(s)}>
            {label}
          </button>
        ))}
      </div>
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          void advance(Number(seconds));
        }}
      >
        <Field label="Advance by (seconds)">
          <input value={seconds} onInput={(e) => setSeconds((e.target as HTMLInputElement).value)} inputMode="decimal" />
        </Field>
        <button type="submit">Advance</button>
      </form>
      <p class="muted small">Timestamps, rate-limit windows and webhook retries follow this clock.</p>
    </div>
  );
}

function SnapshotsCard() {
  const snaps = useLoad(() => control.get<{ snapshots: Snapshot[] }>("/snapshots"), []);
  const [name, setName] = useState("");
  return (
    <div class="card">
      <h2>Snapshots</h2>
      <ErrorLine error={snaps.error} />
      {snaps.data?.snapshots.length === 0 && <Empty>No snapshots yet.</Empty>}
      <ul class="plain snapshots">
        {snaps.data?.snapshots.map((s) => (
          <li key={s.name}>
            <strong>{s.name}</strong>{" "}
            <span class="muted small">
              {fullTime(s.takenAtMs / 1000)} · {s.apps} apps · {s.records} records
            </span>
            <span class="spacer" />
            <button class="small" onClick={() => act(`Restored ${s.name}`, () => control.send("POST", `/snapshots/${encodeURIComponent(s.name)}/restore`))}>
              Restore
            </button>
            <RemoveButton label="Delete" done={`Forgot ${s.name}`} run={() => control.send("DELETE", `/snapshots/${encodeURIComponent(s.name)}`)} />
          </li>
        ))}
      </ul>
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (name.trim()) void act(`Took snapshot ${name.trim()}`, () => control.send("POST", `/snapshots/${encodeURIComponent(name.trim())}`)).then(() => setName(""));
        }}
      >
        <input aria-label="Snapshot name" placeholder="Snapshot name" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        <button type="submit" disabled={!name.trim()}>
          Take snapshot
        </button>
      </form>
    </div>
  );
}

function ResetCard({ app }: { app: AppInfo | undefined }) {
  const reset = (what: string, body: Record<string, string>) => {
    if (confirm(`${what}?`)) void act(what, () => control.send("POST", "/reset", body));
  };
  return (
    <div class="card">
      <h2>Reset</h2>
      <p class="muted small">Content only: rules, the journal, the clock and snapshots stay.</p>
      <div class="button-row">
        {app && (
          <>
            <button class="danger" onClick={() => reset(`Reset ${app.name} to its seed`, { appId: app.appId })}>
              Reset {app.name} to its seed
            </button>
            <button class="danger" onClick={() => reset(`Empty ${app.name}`, { appId: app.appId, to: "empty" })}>
              Empty {app.name}
            </button>
          </>
        )}
        <button class="danger" onClick={() => reset("Reset every app", {})}>
          Reset every app
        </button>
      </div>
    </div>
  );
}

/** Clock, snapshots and resets: the emulator-wide controls. */
export function ControlView({ app }: { app: AppInfo | undefined; dir: Directory }) {
  return (
    <section>
      <h1>Clock, snapshots and reset</h1>
      <div class="cards wide">
        <ClockCard />
        <SnapshotsCard />
        <ResetCard app={app} />
      </div>
    </section>
  );
}
