import type { Clock } from "../store/clock.js";

/**
 * Timers measured on the emulator clock: a due time in clock milliseconds. In real mode a plain timeout fires
 * them; a freeze stops them; an advance (or any clock change) fires whatever became due at once.
 */
export class ClockTimers {
  private pending: { dueMs: number; fn: () => void }[] = [];
  private timeout: NodeJS.Timeout | undefined;
  private readonly unsubscribe: () => void;

  constructor(private readonly clock: Clock) {
    this.unsubscribe = clock.onChange(() => this.poke());
  }

  at(dueMs: number, fn: () => void): void {
    this.pending.push({ dueMs, fn });
    this.poke();
  }

  /** Drops every pending timer. */
  stop(): void {
    this.pending = [];
    clearTimeout(this.timeout);
    this.unsubscribe();
  }

  private poke(): void {
    clearTimeout(this.timeout);
    const now = this.clock.nowMs();
    const due = this.pending.filter((t) => t.dueMs <= now);
    this.pending = this.pending.filter((t) => t.dueMs > now);
    for (const t of due) t.fn();
    if (this.pending.length === 0 || this.clock.get().mode === "frozen") return;
    const next = this.pending.reduce((min, t) => Math.min(min, t.dueMs), Infinity);
    this.timeout = setTimeout(() => this.poke(), Math.max(0, next - now));
    this.timeout.unref();
  }
}
