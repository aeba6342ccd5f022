import { AppState } from "./app-state.js";
import { EventBus } from "./events.js";
import { ReadCache } from "./read-cache.js";
import type { Clock } from "./clock.js";
import { emptyApp, parseApp } from "./seed.js";
import { STATE_SCHEMA_URL } from "./schemas.js";
import type { ApiKeyRecord, AppData, Region, StateData } from "./types.js";
import type { TenantRecord } from "./management.js";
import { randomHex } from "../util/random.js";

/** All live state at one moment, as plain data independent of later changes (see `Store.capture`). */
export interface StoreImage {
  apps: AppData[];
  defaultAppId: string | undefined;
  archived: string[];
}

export interface CreateAppOptions {
  name: string;
  region?: Region;
  skipSampleData?: boolean;
  appId?: string;
  /** "trial" unless given (apps of tenants are on "Build"). */
  plan?: string;
  /** The account `POST /tenants` created with the app. */
  tenant?: TenantRecord;
}

/**
 * The only owner of state: the apps, each with its birth data (what a reset returns it to). Listeners hear about
 * every committed change; persistence is one of them.
 */
export class Store {
  readonly apps = new Map<string, AppState>();
  /**
   * What each app was born with: the seed entry, or the sample data of a created app. Kept as given, not copied
   * (a million messages would be held twice): loading an app copies every record, and nested values are never
   * mutated (see copyAppData), so nothing live reaches into an origin.
   */
  private readonly origins = new Map<string, AppData>();
  /** Apps created at run time whose origin is their birth (saved with the state, so a restart keeps it). */
  private readonly created = new Set<string>();
  private readonly archived = new Set<string>();
  private seedApps: AppData[] = [];
  private listeners = new Set<() => void>();
  defaultAppId: string | undefined;
  /** Every app's domain events: webhooks, realtime and the other subscribers listen here. */
  readonly events = new EventBus();
  /** Serialized reads, dropped on every change heard of here (see read-cache.ts). */
  readonly reads = new ReadCache();

  constructor(readonly clock: Clock) {}

  /** Installs the seed: these apps and their content become what a full reset returns to. */
  seed(apps: AppData[]): void {
    this.seedApps = apps;
    this.apps.clear();
    this.origins.clear();
    this.created.clear();
    for (const a of apps) this.install(a, a);
    this.defaultAppId = apps[0]?.app.appId;
  }

  /**
   * Replaces live content with saved state (data file or `PUT /_emulator/state`). Seed apps keep the seed as their
   * origin; an app created at run time takes the birth the state carries; any other app, the content loaded now.
   */
  replace(apps: AppData[], births: AppData[] = []): void {
    const born = new Map(births.map((b) => [b.app.appId, b]));
    this.apps.clear();
    for (const a of apps) {
      const id = a.app.appId;
      const birth = this.isSeedApp(id) ? undefined : born.get(id);
      if (birth) this.created.add(id);
      this.install(a, birth ?? this.origins.get(id) ?? a);
    }
    if (!this.defaultAppId || !this.apps.has(this.defaultAppId)) this.defaultAppId = apps[0]?.app.appId;
    this.changed();
  }

  /** A live app built from `data` and wired to the event sink, not installed (see `adopt`). */
  build(data: AppData): AppState {
    const state = new AppState(data);
    state.events = (app, trigger, build, message) => {
      this.reads.invalidate();
      this.events.publish(app, trigger, build, message);
    };
    return state;
  }

  private install(data: AppData, origin: AppData): AppState {
    const state = this.build(data);
    this.apps.set(data.app.appId, state);
    this.origins.set(data.app.appId, origin);
    this.archived.delete(data.app.appId);
    return state;
  }

  get defaultApp(): AppState | undefined {
    return this.defaultAppId ? this.apps.get(this.defaultAppId) : undefined;
  }

  isArchived(appId: string): boolean {
    return this.archived.has(appId);
  }

  createApp(opts: CreateAppOptions): AppState {
    const now = this.clock.now();
    let appId = opts.appId?.toLowerCase();
    while (!appId || this.apps.has(appId) || this.archived.has(appId)) appId = randomHex(16);
    const key = (name: string, scope: ApiKeyRecord["scope"]): ApiKeyRecord => ({
      apiKey: randomHex(40),
      name,
      scope,
      createdAt: now,
      createdBy: "app_system",
    });
    const data = parseApp(
      {
        app: { appId, name: opts.name, region: opts.region ?? "us", createdAt: now, plan: opts.plan },
        apiKeys: [key("Rest API Key", "fullAccess"), key("Auth Key", "authOnly")],
        sampleData: !opts.skipSampleData,
      },
      "app",
      now,
    );
    if (opts.tenant) data.management.tenant = opts.tenant;
    const state = this.install(data, data);
    this.created.add(appId);
    this.defaultAppId ??= appId;
    this.changed();
    return state;
  }

  deleteApp(appId: string): boolean {
    if (!this.apps.delete(appId)) return false;
    this.archived.add(appId);
    if (this.defaultAppId === appId) this.defaultAppId = this.apps.keys().next().value;
    this.changed();
    return true;
  }

  /**
   * Back to birth content: one app, or every app (seed apps are restored even if deleted; created apps keep
   * existing, reset to their own birth content). `to: "empty"` keeps each app and its keys but no content.
   */
  reset(opts: { appId?: string; to?: "seed" | "empty" } = {}): void {
    const to = opts.to ?? "seed";
    const target = (origin: AppData): AppData => {
      if (to === "seed") return origin;
      const live = this.apps.get(origin.app.appId);
      return { ...emptyApp(origin.app), apiKeys: live ? live.toData().apiKeys : origin.apiKeys };
    };
    if (opts.appId) {
      const app = this.apps.get(opts.appId);
      const origin = this.origins.get(opts.appId);
      if (!app || !origin) return;
      app.load(target(origin));
    } else {
      for (const seedApp of this.seedApps) {
        if (!this.apps.has(seedApp.app.appId)) this.install(seedApp, seedApp);
      }
      for (const [appId, app] of this.apps) app.load(target(this.origins.get(appId)!));
      this.defaultAppId = this.seedApps[0]?.app.appId ?? this.apps.keys().next().value;
    }
    this.changed();
  }

  /** A copy of every app's content (see `AppState.snapshot`), the default app and the archived ids. */
  capture(): StoreImage {
    return {
      apps: [...this.apps.values()].map((a) => a.snapshot()),
      defaultAppId: this.defaultAppId,
      archived: [...this.archived],
    };
  }

  /**
   * Makes `apps` (built from `image` with `build`) the live apps, with the image's default app and archived ids.
   * What a reset returns each app to (its origin) is unchanged.
   */
  adopt(image: StoreImage, apps: AppState[]): void {
    this.apps.clear();
    for (const a of apps) this.apps.set(a.meta.appId, a);
    this.archived.clear();
    for (const id of image.archived) this.archived.add(id);
    this.defaultAppId = image.defaultAppId;
    this.changed();
  }

  toData(): StateData {
    const data: StateData = { $schema: STATE_SCHEMA_URL, format: "chat-emulator/state@1", apps: [...this.apps.values()].map((a) => a.toData()) };
    const births = this.toBirths();
    if (births) data.births = births;
    return data;
  }

  /** The births of the apps created at run time that still exist (`births` of the state data), if any. */
  toBirths(): AppData[] | undefined {
    const created = [...this.created].filter((id) => this.apps.has(id));
    return created.length > 0 ? created.map((id) => this.origins.get(id)!) : undefined;
  }

  private isSeedApp(appId: string): boolean {
    return this.seedApps.some((s) => s.app.appId === appId);
  }

  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Tells listeners (persistence) that state changed; called once per committed write. */
  changed(): void {
    this.reads.invalidate();
    for (const fn of this.listeners) fn();
  }
}
