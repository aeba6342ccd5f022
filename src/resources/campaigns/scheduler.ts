import type { Clock } from "../../store/clock.js";
import type { Store } from "../../store/store.js";
import { dueAt, runDue } from "./sends.js";

/**
 * Runs scheduled campaigns and the later steps of sequenced ones when the emulator clock reaches their time: on a
 * timeout in real time, at once when the clock is moved (`PUT /_emulator/clock`), and after any write or load
 * (a schedule made, a state restored). What it runs is a committed change like a request's.
 */
export class CampaignScheduler {
  private timeout: NodeJS.Timeout | undefined;
  private running = false;
  private readonly unsubscribe: (() => void)[];

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {
    this.unsubscribe = [clock.onChange(() => this.poke()), store.onChange(() => this.poke())];
    // A loaded state may hold campaigns that came due while the emulator was stopped.
    this.poke();
  }

  poke(): void {
    if (this.running) return;
    this.running = true;
    let ran = false;
    let next = Infinity;
    try {
      const now = this.clock.now();
      for (const app of this.store.apps.values()) {
        if (app.campaigns.scheduled.size === 0) continue;
        if (runDue(app, now)) ran = true;
        for (const id of app.campaigns.scheduled) {
          const due = dueAt(app.campaigns.campaigns.get(id)!);
          if (due !== undefined) next = Math.min(next, due);
        }
      }
    } finally {
      this.running = false;
    }
    if (ran) this.store.changed();
    clearTimeout(this.timeout);
    if (next === Infinity || this.clock.get().mode === "frozen") return;
    this.timeout = setTimeout(() => this.poke(), Math.min(2 ** 31 - 1, Math.max(0, next * 1000 - this.clock.nowMs())));
    this.timeout.unref();
  }

  close(): void {
    clearTimeout(this.timeout);
    for (const u of this.unsubscribe) u();
  }
}
