import type { WebSocket } from "ws";

export type PresenceSubscription = "ALL_USERS" | "FRIENDS" | "ROLES" | "NONE";

/** One authenticated WebSocket: a device of a user of an app. */
export interface Session {
  readonly id: number;
  readonly ws: WebSocket;
  readonly appId: string;
  readonly uid: string;
  /** The auth token the session's jwt was issued for: deleting it closes the session. */
  readonly authToken: string;
  /** The SDK's session id (`resource` header, `deviceId` of its frames). */
  readonly deviceId: string;
  readonly platform: string;
  /** Unix ms when the socket authenticated. */
  readonly since: number;
  readonly presence: PresenceSubscription;
  readonly roles: readonly string[];
}

/** One frame as the control plane shows it (`/_emulator/realtime/frames`, the inspector's Realtime view). */
export interface FrameRecord {
  id: number;
  time: string;
  appId: string;
  direction: "in" | "out";
  /** Out: how many sockets it went to. In: the sender. */
  to?: number;
  from?: string;
  type: string;
  frame: unknown;
}

/** A session as the control plane shows it. */
export interface SessionView {
  id: number;
  appId: string;
  uid: string;
  deviceId: string;
  platform: string;
  since: string;
  presenceSubscription: PresenceSubscription;
}

export function sessionView(s: Session): SessionView {
  return {
    id: s.id,
    appId: s.appId,
    uid: s.uid,
    deviceId: s.deviceId,
    platform: s.platform,
    since: new Date(s.since).toISOString(),
    presenceSubscription: s.presence,
  };
}

/** The live sessions, by app and user; `size` is what idle checks read. */
export class Sessions {
  private readonly byApp = new Map<string, Map<string, Set<Session>>>();
  size = 0;

  add(s: Session): boolean {
    let users = this.byApp.get(s.appId);
    if (!users) this.byApp.set(s.appId, (users = new Map()));
    let mine = users.get(s.uid);
    const first = !mine;
    if (!mine) users.set(s.uid, (mine = new Set()));
    mine.add(s);
    this.size++;
    return first;
  }

  /** Removes a session; true when it was the user's last one in the app. */
  remove(s: Session): boolean {
    const users = this.byApp.get(s.appId);
    const mine = users?.get(s.uid);
    if (!mine?.delete(s)) return false;
    this.size--;
    if (mine.size > 0) return false;
    users!.delete(s.uid);
    if (users!.size === 0) this.byApp.delete(s.appId);
    return true;
  }

  has(s: Session): boolean {
    return this.byApp.get(s.appId)?.get(s.uid)?.has(s) ?? false;
  }

  /** The sessions of one user (empty when offline). */
  of(appId: string, uid: string): ReadonlySet<Session> | undefined {
    return this.byApp.get(appId)?.get(uid);
  }

  /** The users of an app with a live session, with their sessions. */
  online(appId: string): ReadonlyMap<string, ReadonlySet<Session>> | undefined {
    return this.byApp.get(appId);
  }

  *all(): Generator<Session> {
    for (const users of this.byApp.values()) for (const mine of users.values()) yield* mine;
  }
}
