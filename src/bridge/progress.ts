import type { Writable } from "node:stream";

/**
 * What a long command shows while it works. On a terminal: one line, redrawn at most ten times a second, with a
 * bar for the step that knows its total and the counts so far. Elsewhere (CI logs, pipes): one plain line when a
 * step ends, every ten seconds of a long one, and one per pause, never a redraw.
 */
export class Progress {
  private readonly counts = new Map<string, number>();
  private step = "";
  private done = 0;
  private total: number | undefined;
  private lastDraw = 0;
  private drawn = false;
  /** The counts when the step began: a plain line shows what the step added. */
  private before = new Map<string, number>();

  constructor(
    private readonly out: Writable & { isTTY?: boolean; columns?: number },
    private readonly quiet = false,
  ) {}

  private get tty(): boolean {
    return this.out.isTTY === true;
  }

  /** Starts a step; `total` when it is known (a bar is drawn). */
  begin(step: string, total?: number): void {
    this.step = step;
    this.done = 0;
    this.total = total;
    this.before = new Map(this.counts);
    this.draw(true);
  }

  /** One more unit of the current step done. */
  tick(n = 1): void {
    this.done += n;
    this.draw(false);
  }

  setTotal(total: number): void {
    this.total = total;
    this.draw(false);
  }

  /** Adds to a named count (users, messages, ...), shown on every line. */
  count(name: string, n: number): void {
    this.counts.set(name, (this.counts.get(name) ?? 0) + n);
    this.draw(false);
  }

  get(name: string): number {
    return this.counts.get(name) ?? 0;
  }

  /** Ends the current step: on a terminal the line stays, elsewhere it is printed once. */
  end(): void {
    if (this.quiet) return;
    if (this.tty) {
      this.draw(true);
      this.out.write("\n");
      this.drawn = false;
    } else this.out.write(`${this.line((name, n) => this.before.get(name) !== n)}\n`);
  }

  /** A line of its own (a pause, a warning), above the redrawn one on a terminal. */
  note(text: string): void {
    if (this.quiet) return;
    if (this.tty && this.drawn) this.out.write("\r\x1b[2K");
    this.out.write(`${text}\n`);
    this.drawn = false;
    this.draw(true);
  }

  private line(show: (name: string, n: number) => boolean = () => true): string {
    const counts = [...this.counts].filter(([k, v]) => show(k, v)).map(([k, v]) => `${v} ${k}`).join(", ");
    let head = this.step;
    if (this.total !== undefined) {
      const share = this.total === 0 ? 1 : Math.min(1, this.done / this.total);
      const bar = this.tty ? `[${"#".repeat(Math.round(share * 20)).padEnd(20, ".")}] ` : "";
      head += ` ${bar}${this.done}/${this.total}`;
    } else if (this.done > 0) head += ` ${this.done}`;
    return counts ? `${head}  (${counts})` : head;
  }

  private draw(force: boolean): void {
    if (this.quiet) return;
    const now = Date.now();
    if (!this.tty) {
      // A long step in a log says where it is every ten seconds.
      if (force) this.lastDraw = now;
      else if (now - this.lastDraw >= 10_000) {
        this.lastDraw = now;
        this.out.write(`${this.line((name, n) => this.before.get(name) !== n)} ...\n`);
      }
      return;
    }
    if (!force && now - this.lastDraw < 100) return;
    this.lastDraw = now;
    const width = this.out.columns ?? 100;
    this.out.write(`\r\x1b[2K${this.line().slice(0, width - 1)}`);
    this.drawn = true;
  }
}
