import { useMemo, useState } from "preact/hooks";
import { control, type AppInfo, type Directory } from "../api";
import { Badge, clockTime, Drawer, Empty, Facts, Head, Json, statusTone } from "../components";
import { curlCommand, replayable } from "../curl";
import { clearRequests, requests, requestsStatus, type JournalEntry } from "../live";
import { act, dataChanged, toast, useStore } from "../state";
import { errorCode } from "./apps";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/** "Copy as curl" (keys only when asked for) and "Replay" (the same request, sent again from this page). */
function SendAgain({ entry, dir }: { entry: JournalEntry; dir: Directory }) {
  const [withKeys, setWithKeys] = useState(false);
  const shown = replayable(entry, dir, location.origin, withKeys);
  const command = curlCommand(shown);
  const copy = () =>
    navigator.clipboard.writeText(command).then(
      () => toast(withKeys ? "Copied the curl command, keys included" : "Copied the curl command (keys left out)"),
      () => toast("Could not copy: select the command below and copy it", "error"),
    );
  const replay = async () => {
    const r = replayable(entry, dir, location.origin, true);
    if (r.placeholders.length > 0) {
      toast(`Cannot replay: the journal masks ${r.placeholders.join(", ")} and the inspector does not know the value`, "error");
      return;
    }
    try {
      const res = await fetch(r.url, { method: r.method, headers: Object.fromEntries(r.headers), body: r.body });
      toast(`Replayed ${r.method} ${entry.path}: ${res.status}`, res.ok ? "ok" : "error");
      dataChanged(true);
    } catch (e) {
      toast(`Replay failed: ${(e as Error).message}`, "error");
    }
  };
  return (
    <>
      <h3>Send it again</h3>
      <div class="send-again">
        <button class="small" onClick={copy}>
          Copy as curl
        </button>
        <label class="check">
          <input type="checkbox" checked={withKeys} onChange={(e) => setWithKeys((e.target as HTMLInputElement).checked)} /> include keys
        </label>
        <button class="small" onClick={replay}>
          Replay
        </button>
      </div>
      <pre class="curl">{command}</pre>
      {withKeys && shown.placeholders.length > 0 && (
        <p class="muted small">The journal masks {shown.placeholders.join(", ")} and the inspector does not know the value: fill it in.</p>
      )}
    </>
  );
}

function RequestDrawer({ entry, dir, onClose }: { entry: JournalEntry; dir: Directory; onClose: () => void }) {
  return (
    <Drawer
      title={
        <>
          {entry.method} <code>{entry.path}</code>
        </>
      }
      onClose={onClose}
    >
      <Facts
        rows={[
          ["status", <Badge tone={statusTone(entry.status)}>{entry.status ?? "connection reset"}</Badge>],
          ["error code", errorCode(entry) ?? "none"],
          ["time", `${entry.time} (emulator clock)`],
          ["duration", `${entry.durationMs} ms`],
          ["app", entry.appId],
          ["plane", entry.plane],
          ["rules", entry.rules.length ? entry.rules.join(", ") : "none"],
          [
            "advice",
            entry.advice.length ? (
              <ul class="advice">
                {entry.advice.map((a) => (
                  <li key={`${a.in}.${a.name}`}>{a.message}</li>
                ))}
              </ul>
            ) : (
              "none"
            ),
          ],
          ["journal id", String(entry.id)],
        ]}
      />
      {Object.keys(entry.query).length > 0 && (
        <>
          <h3>Query</h3>
          <Json value={entry.query} />
        </>
      )}
      <h3>Request headers</h3>
      <Json value={entry.requestHeaders} />
      <h3>Request body</h3>
      <Json value={entry.requestBody} />
      <h3>Response body</h3>
      <Json value={entry.responseBody} />
      <SendAgain entry={entry} dir={dir} />
    </Drawer>
  );
}

/** The request journal as it happens (server-sent events); a row opens the request and response bodies. */
export function RequestsView({ app, dir }: { app: AppInfo | undefined; dir: Directory }) {
  const live = useStore(requests);
  const status = useStore(requestsStatus);
  const [paused, setPaused] = useState<JournalEntry[] | undefined>(undefined);
  const [scope, setScope] = useState<"all" | "app">("all");
  const [method, setMethod] = useState("");
  const [statusClass, setStatusClass] = useState("");
  const [path, setPath] = useState("");
  const [selected, setSelected] = useState<JournalEntry | undefined>(undefined);
  const entries = paused ?? live;
  const shown = useMemo(
    () =>
      entries.filter(
        (e) =>
          (scope === "all" || e.appId === app?.appId) &&
          (!method || e.method === method) &&
          (!statusClass || (statusClass === "reset" ? e.status === null : String(e.status ?? "").startsWith(statusClass))) &&
          (!path || e.path.toLowerCase().includes(path.toLowerCase())),
      ),
    [entries, scope, method, statusClass, path, app?.appId],
  );
  const appName = (id: string | null) => dir.apps.find((a) => a.appId === id)?.name ?? id ?? "—";
  return (
    <section>
      <div class="toolbar">
        <h1>Requests</h1>
        <select aria-label="Apps" value={scope} onChange={(e) => setScope((e.target as HTMLSelectElement).value as "all" | "app")}>
          <option value="all">All apps</option>
          {app && <option value="app">{app.name} only</option>}
        </select>
        <select aria-label="Method" value={method} onChange={(e) => setMethod((e.target as HTMLSelectElement).value)}>
          <option value="">Any method</option>
          {METHODS.map((m) => (
            <option key={m}>{m}</option>
          ))}
        </select>
        <select aria-label="Status" value={statusClass} onChange={(e) => setStatusClass((e.target as HTMLSelectElement).value)}>
          <option value="">Any status</option>
          <option value="2">2xx</option>
          <option value="4">4xx</option>
          <option value="5">5xx</option>
          <option value="reset">connection reset</option>
        </select>
        <input type="search" aria-label="Path contains" placeholder="Path contains…" value={path} onInput={(e) => setPath((e.target as HTMLInputElement).value)} />
        <span class="spacer" />
        <button onClick={() => setPaused(paused ? undefined : live)} aria-pressed={!!paused}>
          {paused ? "Resume" : "Pause"}
        </button>
        <button
          class="danger"
          onClick={() =>
            act("Cleared the journal", async () => {
              await control.send("DELETE", "/requests");
              clearRequests();
              setPaused(undefined);
            })
          }
        >
          Clear
        </button>
      </div>
      {status === "off" && <Empty>The journal is off (the emulator was started with --journal-size 0).</Empty>}
      <p class="muted small">
        Every request your code sends to the emulator, newest first (the inspector's own reads are left out).
        {paused && " Paused: new requests are kept but not shown."}
      </p>
      <table class="table clickable requests">
        <Head columns={["#", "Time", "App", "Method", "Path", "Status", "Code", "ms", "Rules"]} right={["ms"]} />
        <tbody>
          {shown.slice(0, 500).map((e) => (
            <tr key={e.id} onClick={() => setSelected(e)} data-request={e.id}>
              <td class="muted">{e.id}</td>
              <td class="nowrap">{clockTime(e.timeMs)}</td>
              <td class="ellipsis" title={e.appId ?? ""}>
                {e.plane === "mgmt" ? "management" : appName(e.appId)}
              </td>
              <td>
                <span class={`method ${e.method}`}>{e.method}</span>
              </td>
              <td class="path">
                <code>{e.path}</code>
              </td>
              <td>
                <Badge tone={statusTone(e.status)}>{e.status ?? "reset"}</Badge>
              </td>
              <td class="code nowrap">
                {errorCode(e) && <code>{errorCode(e)}</code>}
                {e.advice.length > 0 && (
                  <Badge tone="amber" title={e.advice.map((a) => a.message).join("\n")}>
                    advice
                  </Badge>
                )}
              </td>
              <td class="right">{e.durationMs.toFixed(1)}</td>
              <td>
                {e.rules.map((r) => (
                  <Badge key={r} tone="purple">
                    {r}
                  </Badge>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {shown.length === 0 && status !== "off" && <Empty>No requests yet. Call the API and they appear here as they are answered.</Empty>}
      {selected && <RequestDrawer entry={selected} dir={dir} onClose={() => setSelected(undefined)} />}
    </section>
  );
}
