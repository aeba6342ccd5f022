import type { CompareReport, Exchange } from "./compare.js";
import { shown, trim, type Difference } from "./diff.js";

/** `compare`'s report: Markdown (a file, the step summary) and the plain lines of the terminal. */

const cell = (d: Difference, side: "recorded" | "emulator") =>
  d[side] === undefined ? "" : `\`${shown(d, side, 120).replace(/\|/g, "\\|").replace(/`/g, "'")}\``;
const fence = (v: unknown) => ["```json", JSON.stringify(trim(v, 1500), null, 2) ?? "(none)", "```"];

function headline(r: CompareReport, source: string): string {
  const n = r.exchanges.length;
  return n === 0
    ? `${r.replayed} exchanges of ${source} replayed: the emulator answered each as recorded.`
    : `${r.replayed} exchanges of ${source} replayed: ${n} answered differently.`;
}

export function compareMarkdown(r: CompareReport, source: string): string {
  const lines = [`### chat-emulator compare: ${source}`, "", headline(r, source) + (r.skipped > 0 ? ` ${r.skipped} entries were no platform calls and were skipped.` : ""), ""];
  for (const note of r.notes) lines.push(`> ${note}`, "");
  for (const x of r.exchanges) {
    lines.push(`#### ${x.index}. \`${x.method} ${x.path}\``, "", "| where | difference | recorded | emulator |", "|---|---|---|---|");
    for (const d of x.differences) lines.push(`| \`${d.path}\` | ${d.kind} | ${cell(d, "recorded")} | ${cell(d, "emulator")} |`);
    lines.push(
      "",
      "<details><summary>request and answers</summary>",
      "",
      `\`${x.request.method} ${x.request.url}\``,
      ...(x.request.body !== undefined ? ["", ...fence(safeJson(x.request.body))] : []),
      "",
      `recorded (${x.recorded.status}):`,
      "",
      ...fence(x.recorded.body),
      "",
      `emulator (${x.emulator.status}):`,
      "",
      ...fence(x.emulator.body),
      "",
      "</details>",
      "",
    );
  }
  return lines.join("\n");
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** What the terminal shows: the headline and one line per difference. */
export function compareLines(r: CompareReport, source: string): string {
  const out = [headline(r, source), ...r.notes.map((n) => `note: ${n}`)];
  for (const x of r.exchanges as Exchange[]) {
    out.push(`${x.index}. ${x.method} ${x.path}`);
    for (const d of x.differences)
      out.push(`   ${d.path}: ${d.kind}${d.recorded !== undefined ? `, recorded ${shown(d, "recorded", 80)}` : ""}${d.emulator !== undefined ? `, emulator ${shown(d, "emulator", 80)}` : ""}`);
  }
  return out.join("\n") + "\n";
}
