import { useState } from "preact/hooks";
import { control, qs, type Directory } from "../api";
import { Badge, Empty, ErrorLine, Head } from "../components";
import { act, useLoad } from "../state";

/** `GET /_emulator/coverage` (src/control/coverage.ts). */
interface OperationCoverage {
  slug: string;
  method: string;
  path: string;
  area: string;
  calls: number;
  plane: { rest: number; client: number };
  statuses: Record<string, number>;
  codes: Record<string, number>;
}

interface Coverage {
  documented: number;
  covered: number;
  calls: number;
  areas: { area: string; documented: number; covered: number }[];
  operations: OperationCoverage[];
}

type Show = "all" | "covered" | "missing";

const pct = (covered: number, documented: number) => (documented === 0 ? 0 : Math.round((covered * 100) / documented));
const statusTone = (s: string) => (s === "reset" || Number(s) >= 500 ? "red" : Number(s) >= 400 ? "amber" : "green");

function Counts({ of, tone }: { of: Record<string, number>; tone: (k: string) => string }) {
  return (
    <>
      {Object.entries(of).map(([k, n]) => (
        <Badge key={k} tone={tone(k)}>
          {k} ×{n}
        </Badge>
      ))}
    </>
  );
}

function Operations({ rows }: { rows: OperationCoverage[] }) {
  return (
    <table class="table">
      <Head columns={["Operation", "Request", "Area", "Calls", "REST/client", "Statuses", "Error codes"]} right={["Calls"]} />
      <tbody>
        {rows.map((o) => (
          <tr key={o.slug} data-operation={o.slug} class={o.calls === 0 ? "dim" : undefined}>
            <td>
              <code>{o.slug}</code>
            </td>
            <td class="nowrap">
              {o.method} {o.path}
            </td>
            <td>{o.area}</td>
            <td class="right">{o.calls}</td>
            <td>{o.calls > 0 ? `${o.plane.rest} / ${o.plane.client}` : ""}</td>
            <td>
              <Counts of={o.statuses} tone={statusTone} />
            </td>
            <td>
              <Counts of={o.codes} tone={() => "red"} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * Which documented operations the run called (all apps or one), with the statuses and codes seen: those called
 * first, most called at the top, right under the totals (what a run wants to see without scrolling); then the areas,
 * then the operations not called.
 */
export function CoverageView({ dir }: { dir: Directory }) {
  const [appId, setAppId] = useState("");
  const [show, setShow] = useState<Show>("all");
  const coverage = useLoad(() => control.get<Coverage>(`/coverage${qs({ app: appId || undefined })}`), [appId]);
  const c = coverage.data;
  const called = c?.operations.filter((o) => o.calls > 0).sort((a, b) => b.calls - a.calls) ?? [];
  const missing = c?.operations.filter((o) => o.calls === 0) ?? [];
  return (
    <section>
      <div class="toolbar">
        <h1>Coverage</h1>
        <select aria-label="App" value={appId} onChange={(e) => setAppId((e.target as HTMLSelectElement).value)}>
          <option value="">All apps</option>
          {dir.apps.map((a) => (
            <option key={a.appId} value={a.appId}>
              {a.name} ({a.appId})
            </option>
          ))}
        </select>
        <select aria-label="Show" value={show} onChange={(e) => setShow((e.target as HTMLSelectElement).value as Show)}>
          <option value="all">All operations</option>
          <option value="covered">Covered</option>
          <option value="missing">Not covered</option>
        </select>
        <span class="spacer" />
        <button onClick={coverage.reload}>Refresh</button>
        <button class="danger" onClick={() => act("Cleared the coverage", () => control.send("DELETE", "/coverage"))}>
          Clear
        </button>
      </div>
      <ErrorLine error={coverage.error} />
      {c && (
        <>
          <p>
            <strong>
              {c.covered} of {c.documented}
            </strong>{" "}
            documented operations called ({pct(c.covered, c.documented)}%) · {c.calls} calls. A reset keeps these counts; the SDK's
            calls on the client plane count under their REST twin.
          </p>
          {show !== "missing" && (
            <section aria-label="Called">
              <h2>Called ({called.length})</h2>
              {called.length === 0 ? <Empty>No documented operation called yet.</Empty> : <Operations rows={called} />}
            </section>
          )}
          <h2>Areas</h2>
          <table class="table" style={{ maxWidth: "560px" }}>
            <Head columns={["Area", "Covered", "Documented", "%"]} right={["Covered", "Documented", "%"]} />
            <tbody>
              {c.areas.map((a) => (
                <tr key={a.area}>
                  <td>{a.area}</td>
                  <td class="right">{a.covered}</td>
                  <td class="right">{a.documented}</td>
                  <td class="right">{pct(a.covered, a.documented)}%</td>
                </tr>
              ))}
            </tbody>
          </table>
          {show !== "covered" && (
            <section aria-label="Not called">
              <h2>Not called ({missing.length})</h2>
              {missing.length === 0 ? <Empty>Every documented operation was called.</Empty> : <Operations rows={missing} />}
            </section>
          )}
        </>
      )}
    </section>
  );
}
