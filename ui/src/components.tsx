import type { ComponentChildren } from "preact";
import { useEffect } from "preact/hooks";
import type { ApiError } from "./api";
import { act, toasts, useStore } from "./state";

/** Unix seconds as local time: "14:02" today, "3 Jan 14:02" otherwise. */
export function shortTime(seconds: number | undefined): string {
  if (!seconds) return "";
  const d = new Date(seconds * 1000);
  const time = d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  return d.toDateString() === new Date().toDateString() ? time : `${d.toLocaleDateString([], { day: "numeric", month: "short" })} ${time}`;
}

export function fullTime(seconds: number | undefined): string {
  return seconds ? new Date(seconds * 1000).toLocaleString() : "";
}

/** Milliseconds as a clock time with milliseconds: "14:02:31.123". */
export function clockTime(ms: number): string {
  const d = new Date(ms);
  return `${d.toLocaleTimeString([], { hour12: false })}.${String(d.getMilliseconds()).padStart(3, "0")}`;
}

const HUES = [210, 340, 25, 140, 265, 180, 45, 300];

/** Initials on a colour picked from the name (no images: the page fetches nothing from outside). */
export function Avatar({ name, size = 32 }: { name: string; size?: number }) {
  const initials = name
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .slice(0, 2)
    .map((w) => w[0]!.toUpperCase())
    .join("");
  let h = 0;
  for (const ch of name) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return (
    <span class="avatar" style={{ width: `${size}px`, height: `${size}px`, fontSize: `${Math.round(size * 0.4)}px`, background: `hsl(${HUES[h % HUES.length]} 55% 45%)` }}>
      {initials || "?"}
    </span>
  );
}

export function Json({ value }: { value: unknown }) {
  return <pre class="json">{value === undefined ? "—" : JSON.stringify(value, null, 2)}</pre>;
}

export function Badge({ children, tone = "grey", title }: { children: ComponentChildren; tone?: string; title?: string }) {
  return (
    <span class={`badge ${tone}`} title={title}>
      {children}
    </span>
  );
}

export function statusTone(status: number | null): string {
  if (status === null) return "red";
  if (status >= 500) return "red";
  if (status >= 400) return "amber";
  return "green";
}

/** A table's header row; the `right` columns are right-aligned, "" is an empty cell. */
export function Head({ columns, right = [] }: { columns: string[]; right?: string[] }) {
  return (
    <thead>
      <tr>
        {columns.map((c, i) => (
          <th key={i} class={right.includes(c) ? "right" : undefined}>
            {c}
          </th>
        ))}
      </tr>
    </thead>
  );
}

/** A small red button that runs a removal as a drive action (see `act`): `done` is what the toast says. */
export function RemoveButton({ done, run, label = "Remove" }: { done: string; run: () => Promise<unknown>; label?: string }) {
  return (
    <button class="danger small" onClick={() => act(done, run)}>
      {label}
    </button>
  );
}

export function ErrorLine({ error }: { error: ApiError | undefined }) {
  return error ? <p class="error-line">{error.line}</p> : null;
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

/** A panel over the right side of the page; Escape closes it. */
export function Drawer({ title, onClose, children }: { title: ComponentChildren; onClose: () => void; children: ComponentChildren }) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && onClose();
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, [onClose]);
  return (
    <div class="drawer" role="dialog" aria-label={typeof title === "string" ? title : "Details"}>
      <header>
        <h2>{title}</h2>
        <button class="ghost" onClick={onClose} aria-label="Close">
          ✕
        </button>
      </header>
      <div class="drawer-body">{children}</div>
    </div>
  );
}

export function Field({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <label class="field">
      <span>{label}</span>
      {children}
    </label>
  );
}

/** A two-column list of facts. */
export function Facts({ rows }: { rows: [string, ComponentChildren][] }) {
  return (
    <dl class="facts">
      {rows.map(([k, v]) => (
        <>
          <dt>{k}</dt>
          <dd>{v ?? "—"}</dd>
        </>
      ))}
    </dl>
  );
}

export function Toasts() {
  const list = useStore(toasts);
  return (
    <div class="toasts" aria-live="polite">
      {list.map((t) => (
        <div key={t.id} class={`toast ${t.kind}`} role={t.kind === "error" ? "alert" : "status"}>
          {t.text}
        </div>
      ))}
    </div>
  );
}

export function Pager({ page, pages, onPage }: { page: number; pages: number; onPage: (p: number) => void }) {
  if (pages <= 1) return null;
  return (
    <div class="pager">
      <button disabled={page <= 1} onClick={() => onPage(page - 1)}>
        ‹ Previous
      </button>
      <span>
        Page {page} of {pages}
      </span>
      <button disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Next ›
      </button>
    </div>
  );
}
