import type { AppState } from "../store/app-state.js";
import type { Store, StoreImage } from "../store/store.js";

/**
 * Named in-memory snapshots of the whole store. Taking one copies every app's data (`AppState.snapshot`: the
 * store's own serialization, so every record type is included, with its index orders remembered). Restoring must be fast even for big apps, and building an
 * app's indexes from data is the slow part, so each snapshot keeps one set of apps built ahead of time: a restore
 * swaps those in (no copying, no sorting) and then builds the next set in the background, off the request.
 * Snapshots hold store content only: rules, the journal, rate-limit counts and the clock are not part of them.
 */

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
  private pending: NodeJS.Immediate | undefined;

  constructor(
    name: string,
    takenAtMs: number,
    private readonly store: Store,
    private readonly image: StoreImage,
  ) {
    this.info = { name, takenAtMs, apps: image.apps.map((a) => a.app.appId), records: countRecords(image) };
    this.prepareLater();
  }

  private build(): AppState[] {
    return this.image.apps.map((data) => this.store.build(data));
  }

  private prepareLater(): void {
    this.pending ??= setImmediate(() => {
      this.pending = undefined;
      this.ready ??= this.build();
    }).unref();
  }

  restore(): void {
    clearImmediate(this.pending);
    this.pending = undefined;
    const apps = this.ready ?? this.build();
    this.ready = undefined;
    this.store.adopt(this.image, apps);
    this.prepareLater();
  }

  discard(): void {
    clearImmediate(this.pending);
    this.pending = undefined;
    this.ready = undefined;
  }
}

export class Snapshots {
  private readonly byName = new Map<string, Snapshot>();

  constructor(
    private readonly store: Store,
    private readonly nowMs: () => number,
  ) {}

  /** Takes (or retakes) the snapshot `name`. */
  take(name: string): SnapshotInfo {
    this.byName.get(name)?.discard();
    const snapshot = new Snapshot(name, this.nowMs(), this.store, this.store.capture());
    this.byName.set(name, snapshot);
    return snapshot.info;
  }

  /** Puts the store back to snapshot `name`; false when there is no such snapshot. */
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
