import type { AppState } from "../store/app-state.js";
import type { Store, StoreImage } from "../store/store.js";

/**
 * Named in-memory snapshots of the whole store. Taking one copies every app's data (`AppState.snapshot`: the
 * store's own serialization, so every record type is included, with its index orders remembered). Restoring
 * must be fast even for big apps, and building an app's records and indexes from data is the slow part (60-130 ms
 * for 100k records on a 2-core machine), so each snapshot keeps one set of apps built ahead of time: a restore
 * swaps those in. The next set is built once the emulator has been idle for IDLE_MS, so that the work does not
 * hold up requests; a restore that finds no set ready (the emulator was never idle since the last one) builds it
 * on the spot, like a reset. Restored apps are new objects, as after PUT /_emulator/state.
 * Snapshots hold store content only: rules, the journal, rate-limit counts and the clock are not part of them.
 */

/** How long no request must have arrived before a prepared copy is built. */
export const IDLE_MS = 25;

export interface SnapshotInfo {
  name: string;
  /** Emulator-clock time it was taken, Unix ms. */
  takenAtMs: number;
  apps: string[];
  /** Users, groups, messages, ... of every app together. */
  records: number;
}

function countRecords(image: StoreImage): number {
  let n = 0;
  for (const app of image.apps)
    for (const v of Object.values(app)) if (Array.isArray(v)) n += v.length;
  return n;
}

class Snapshot {
  readonly info: SnapshotInfo;
  private ready: AppState[] | undefined;
  private pending: NodeJS.Timeout | undefined;

  constructor(
    name: string,
    takenAtMs: number,
    private readonly store: Store,
    private readonly image: StoreImage,
    private readonly idleMs: () => number,
  ) {
    this.info = { name, takenAtMs, apps: image.apps.map((a) => a.app.appId), records: countRecords(image) };
    this.prepareLater();
  }

  private build(): AppState[] {
    return this.image.apps.map((data) => this.store.build(data));
  }

  private prepareLater(delayMs = IDLE_MS): void {
    this.pending ??= setTimeout(() => {
      this.pending = undefined;
      const idle = this.idleMs();
      if (idle < IDLE_MS) this.prepareLater(IDLE_MS - idle);
      else this.ready ??= this.build();
    }, delayMs).unref();
  }

  restore(): void {
    clearTimeout(this.pending);
    this.pending = undefined;
    const apps = this.ready ?? this.build();
    this.ready = undefined;
    this.store.adopt(this.image, apps);
    this.prepareLater();
  }

  discard(): void {
    clearTimeout(this.pending);
    this.pending = undefined;
    this.ready = undefined;
  }
}

export class Snapshots {
  private readonly byName = new Map<string, Snapshot>();

  constructor(
    private readonly store: Store,
    private readonly nowMs: () => number,
    /** Milliseconds since the last request arrived. */
    private readonly idleMs: () => number,
  ) {}

  /** Takes (or retakes) the snapshot `name`. */
  take(name: string): SnapshotInfo {
    this.byName.get(name)?.discard();
    const snapshot = new Snapshot(name, this.nowMs(), this.store, this.store.capture(), this.idleMs);
    this.byName.set(name, snapshot);
    return snapshot.info;
  }

  /** Puts the store back to snapshot `name`; undefined when there is no such snapshot. */
  restore(name: string): SnapshotInfo | undefined {
    const snapshot = this.byName.get(name);
    snapshot?.restore();
    return snapshot?.info;
  }

  list(): SnapshotInfo[] {
    return [...this.byName.values()].map((s) => s.info);
  }

  delete(name: string): boolean {
    this.byName.get(name)?.discard();
    return this.byName.delete(name);
  }

  clear(): void {
    for (const s of this.byName.values()) s.discard();
    this.byName.clear();
  }
}
