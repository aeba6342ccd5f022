import { rest } from "../api";
import { Badge, Empty, ErrorLine, Head, shortTime } from "../components";
import { act, useLoad } from "../state";
import type { AppViewProps } from "./props";

interface Condition {
  id: number;
  operand: string;
  category: string;
  operator: string;
  isKeywordsReferencePresent: boolean;
  value: string[];
}

interface Rule {
  id: string;
  name: string;
  enabled: boolean;
  revisionId: string;
  conditions: Condition[];
  action: string[];
  default?: boolean;
}

interface Message {
  id: string;
  sender: string;
  receiver: string;
  receiverType: string;
  type: string;
  data: { text?: string; moderation?: { status: string } };
}

interface Blocked {
  ruleId: string;
  ruleName: string;
  revisionId: string;
  condition: Condition;
  message: Message;
  kind: "send" | "edit";
  status: "pending" | "approved" | "rejected";
  reviewedBy?: string;
  reviewedAt?: number;
  createdAt: number;
}

interface Flagged extends Message {
  flaggedCount: number;
  flaggedBy: { uid: string; reasonName: string; remark?: string }[];
  status: string;
}

type List<T> = { data: T[] };

const conditionText = (c: Condition) =>
  `${c.operand} ${c.operator} ${c.category === "pattern" ? "pattern" : "word"} ${c.isKeywordsReferencePresent ? "in list " : ""}${c.value.join(", ")}`;

const summary = (m: Message) => m.data.text ?? `(${m.type})`;
const target = (m: Message) => `${m.sender} → ${m.receiverType === "group" ? "group " : ""}${m.receiver}`;

/**
 * An app's moderation: its rules (switched on and off with a new revision, like any caller would), the messages
 * rules hold back with approve / reject, and the messages users flagged with approve / disapprove.
 */
export function ModerationView({ app }: AppViewProps) {
  const api = rest(app);
  const rules = useLoad(() => api.get<List<Rule>>("/moderation/rules?limit=1000"), [app.appId]);
  const blocked = useLoad(() => api.get<List<Blocked>>("/moderation/blocked-messages?limit=100"), [app.appId]);
  const flagged = useLoad(() => api.get<List<Flagged>>("/moderation/flagged-messages?limit=100"), [app.appId]);
  const toggle = (r: Rule) =>
    act(`Rule ${r.id} ${r.enabled ? "disabled" : "enabled"}`, () => api.send("PUT", `/moderation/rules/${encodeURIComponent(r.id)}`, { enabled: !r.enabled }));
  const review = (b: Blocked, status: "approved" | "rejected") =>
    act(`Message #${b.message.id} ${status}`, () => api.send("PATCH", `/moderation/blocked-messages/${b.message.id}`, { status }));
  const reviewFlag = (f: Flagged, status: "approved" | "disapproved") =>
    act(`Message #${f.id} ${status}`, () => api.send("PATCH", `/moderation/flagged-messages/${f.id}`, { status }));
  const pending = blocked.data?.data.filter((b) => b.status !== "approved") ?? [];
  const done = blocked.data?.data.filter((b) => b.status === "approved") ?? [];
  return (
    <section>
      <h1>Moderation</h1>
      <p class="muted small">
        Enabled rules hold matching messages and edits back from everyone until approved (see docs/moderation.md).
      </p>

      <h2>Rules</h2>
      <ErrorLine error={rules.error} />
      {!!rules.data?.data.length && (
        <table class="table">
          <Head columns={["Rule", "Conditions", "Action", "Revision", "On"]} />
          <tbody>
            {rules.data.data.map((r) => (
              <tr key={r.id} data-rule={r.id}>
                <td>
                  <strong>{r.name}</strong> <code class="small">{r.id}</code> {r.default && <Badge>built-in</Badge>}
                </td>
                <td class="small">{r.conditions.map(conditionText).join("; ") || "—"}</td>
                <td class="small">{r.action.join(", ")}</td>
                <td class="small">{r.revisionId.split("_").pop()}</td>
                <td>
                  <label class="switch">
                    <input type="checkbox" aria-label={`${r.name} enabled`} checked={r.enabled} onChange={() => toggle(r)} />{" "}
                    <Badge tone={r.enabled ? "green" : "grey"}>{r.enabled ? "enabled" : "disabled"}</Badge>
                  </label>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      <h2>Blocked messages</h2>
      <ErrorLine error={blocked.error} />
      {blocked.data && pending.length === 0 && <Empty>Nothing held back: enable a rule and send a message that matches it.</Empty>}
      {pending.length > 0 && (
        <table class="table">
          <Head columns={["Message", "From → to", "Caught by", "Status", ""]} />
          <tbody>
            {pending.map((b) => (
              <tr key={b.message.id} data-blocked={b.message.id}>
                <td>
                  #{b.message.id} {b.kind === "edit" && <Badge>edit</Badge>} <span>{summary(b.message)}</span>
                </td>
                <td class="small">{target(b.message)}</td>
                <td class="small">
                  {b.ruleName} <code class="small">{b.revisionId}</code>
                  <div class="muted">{conditionText(b.condition)}</div>
                </td>
                <td>
                  <Badge tone={b.status === "pending" ? "amber" : "red"}>{b.status}</Badge> <span class="small muted">{shortTime(b.createdAt)}</span>
                </td>
                <td>
                  <button class="small" onClick={() => review(b, "approved")}>
                    Approve
                  </button>{" "}
                  {b.status === "pending" && (
                    <button class="small danger" onClick={() => review(b, "rejected")}>
                      Reject
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {done.length > 0 && (
        <p class="small muted">
          Approved: {done.map((b) => `#${b.message.id} by ${b.reviewedBy ?? "?"} at ${shortTime(b.reviewedAt)}`).join(", ")}
        </p>
      )}

      <h2>Flagged messages</h2>
      <ErrorLine error={flagged.error} />
      {flagged.data?.data.length === 0 && <Empty>No message waits for a review of its flags.</Empty>}
      {!!flagged.data?.data.length && (
        <table class="table">
          <Head columns={["Message", "From → to", "Flags", ""]} />
          <tbody>
            {flagged.data.data.map((f) => (
              <tr key={f.id} data-flagged={f.id}>
                <td>
                  #{f.id} <span>{summary(f)}</span>
                </td>
                <td class="small">{target(f)}</td>
                <td class="small">
                  <Badge tone="amber">{f.flaggedCount}</Badge> {f.flaggedBy.map((b) => `${b.uid}: ${b.reasonName}${b.remark ? ` (${b.remark})` : ""}`).join("; ")}
                </td>
                <td>
                  <button class="small" onClick={() => reviewFlag(f, "approved")}>
                    Keep
                  </button>{" "}
                  <button class="small danger" onClick={() => reviewFlag(f, "disapproved")}>
                    Disapprove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
