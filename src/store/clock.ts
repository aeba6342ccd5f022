/**
 * The one clock. Every timestamp the emulator writes comes from here, so tests can freeze or advance it.
 * Timestamps on the wire are integer Unix seconds.
 */
export type ClockState = { mode: "real"; offsetMs: number } | { mode: "frozen"; nowMs: number };

export class Clock {
  private state: ClockState = { mode: "real", offsetMs: 0 };
  private listeners = new Set<() => void>();

  nowMs(): number {
    return this.state.mode === "frozen" ? this.state.nowMs : Date.now() + this.state.offsetMs;
  }

  /** Integer Unix seconds. */
  now(): number {
    return Math.floor(this.nowMs() / 1000);
  }

  get(): { mode: "real" | "frozen"; now: number; nowMs: number; time: string } {
    const nowMs = this.nowMs();
    return { mode: this.state.mode, now: Math.floor(nowMs / 1000), nowMs, time: new Date(nowMs).toISOString() };
  }

  /**
   * Real time, running from `atMs` when given (keeping any offset from earlier advances is surprising, so
   * without `atMs` it is dropped).
   */
  useReal(atMs?: number): void {
    this.state = { mode: "real", offsetMs: atMs === undefined ? 0 : atMs - Date.now() };
    this.emit();
  }

  freeze(atMs = this.nowMs()): void {
    this.state = { mode: "frozen", nowMs: atMs };
    this.emit();
  }

  advance(seconds: number): void {
    const ms = Math.round(seconds * 1000);
    if (this.state.mode === "frozen") this.state = { mode: "frozen", nowMs: this.state.nowMs + ms };
    else this.state = { mode: "real", offsetMs: this.state.offsetMs + ms };
    this.emit();
  }

  /** Called whenever time jumps, so timers measured on this clock can re-check. */
  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private emit(): void {
    for (const fn of this.listeners) fn();
  }
}
