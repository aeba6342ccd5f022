import { useCallback, useEffect, useState } from "preact/hooks";
import { ApiError, control } from "./api";

/** A value that components watch: `set` re-renders every component that uses it. */
export class Store<T> {
  private readonly listeners = new Set<() => void>();
  constructor(private value: T) {}

  get(): T {
    return this.value;
  }

  set(value: T): void {
    this.value = value;
    for (const l of this.listeners) l();
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

export function useStore<T>(store: Store<T>): T {
  const [, rerender] = useState(0);
  useEffect(() => store.subscribe(() => rerender((n) => n + 1)), [store]);
  return store.get();
}

/**
 * Bumped whenever the emulator's data may have changed: a write answered by the API (seen in the live journal),
 * or a control action of this page (reset, restore). Views that show data reload on it.
 */
export const revision = new Store(0);

let pending: ReturnType<typeof setTimeout> | undefined;

/**
 * Reloads the views: at once after this page's own actions, at most about three times a second while the
 * journal reports writes (a busy test suite must not keep the page, or the emulator, reloading all the time).
 */
export function dataChanged(now = false): void {
  if (now) {
    revision.set(revision.get() + 1);
    return;
  }
  pending ??= setTimeout(() => {
    pending = undefined;
    revision.set(revision.get() + 1);
  }, 300);
}

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  reload: () => void;
}

/** Loads `fn()` when `deps` change and whenever the data changes (see `revision`); keeps the last data while reloading. */
export function useLoad<T>(fn: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const rev = useStore(revision);
  const [own, setOwn] = useState(0);
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean }>({ loading: true });
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    fn().then(
      (data) => live && setState({ data, loading: false }),
      (error: unknown) =>
        live && setState({ error: error instanceof ApiError ? error : new ApiError(0, "ERROR", String(error)), loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, rev, own]);
  const reload = useCallback(() => setOwn((n) => n + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** A notice at the bottom of the page: what an action did, or why it failed. */
export interface Toast {
  id: number;
  text: string;
  kind: "ok" | "error";
}

export const toasts = new Store<Toast[]>([]);
let toastId = 0;

export function toast(text: string, kind: Toast["kind"] = "ok"): void {
  const id = ++toastId;
  toasts.set([...toasts.get(), { id, text, kind }].slice(-4));
  setTimeout(() => toasts.set(toasts.get().filter((t) => t.id !== id)), kind === "error" ? 8000 : 3500);
}

/**
 * Runs a drive action: reports success or the API's error as a toast and marks the data as changed.
 * Resolves with the result, or undefined when it failed.
 */
export async function act<T>(what: string, fn: () => Promise<T>): Promise<T | undefined> {
  try {
    const result = await fn();
    toast(what);
    dataChanged(true);
    return result;
  } catch (e) {
    toast(e instanceof ApiError ? e.line : String(e), "error");
    return undefined;
  }
}

/** The emulator clock, as `GET /_emulator/clock` shows it, with the page's time when it was read. */
export interface ClockState {
  mode: "real" | "frozen";
  nowMs: number;
  readAt: number;
}

export const clock = new Store<ClockState | undefined>(undefined);

export async function refreshClock(): Promise<void> {
  const c = await control.get<{ mode: "real" | "frozen"; nowMs: number }>("/clock");
  clock.set({ mode: c.mode, nowMs: c.nowMs, readAt: Date.now() });
}
