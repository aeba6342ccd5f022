import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocket, WebSocketServer, type RawData } from "ws";
import type { Jwt } from "../client/jwt.js";
import type { Journal } from "../control/journal.js";
import type { Rules } from "../control/rules.js";
import { maskKey } from "../http/errors.js";
import { MAX_JSON_DEPTH, nestedDeeper } from "../http/validate.js";
import type { AppState } from "../store/app-state.js";
import type { Clock } from "../store/clock.js";
import { groupConversationId, userConversationId } from "../store/conversation-ids.js";
import { AUTH_TOKENS_REVOKED, type DomainEvent, type TokensRevoked } from "../store/events.js";
import type { Store } from "../store/store.js";
import type { UserRecord } from "../store/types.js";
import { canSee } from "../views/access.js";
import { markReceipt } from "../resources/conversations/routes.js";
import { userView } from "../views/users.js";
import { deliveryOf, recipients } from "./delivery.js";
import { originDevice, withOriginDevice } from "../http/origin.js";
import { sessionView, Sessions, type FrameRecord, type PresenceSubscription, type Session, type SessionView } from "./sessions.js";
import { NO_ADVICE } from "../http/advice.js";

/** Frames larger than this close the socket (the SDK's largest, a transient message, is far smaller). */
const MAX_FRAME_BYTES = 64 * 1024;
/** A socket that has not sent a valid `auth` frame by then is closed. */
const AUTH_TIMEOUT_MS = 30_000;
/** A client that stops reading is cut off once this much is queued for it. */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
/** How many frames the inspector's live view can look back on. */
const FRAME_LOG_SIZE = 200;

const PRESENCE: readonly PresenceSubscription[] = ["ALL_USERS", "FRIENDS", "ROLES"];

export interface SessionFilter {
  appId?: string;
  uid?: string;
}

type Frame = Record<string, unknown> & { type?: unknown; action?: unknown; body?: unknown };

/** A frame's `body` object ({} when it has none). */
const bodyOf = (frame: Frame) => (typeof frame.body === "object" && frame.body !== null ? frame.body : {}) as Record<string, unknown>;

/** An auth frame as the journal keeps it: the jwt masked. */
const shownAuth = (frame: Frame, body: Record<string, unknown>) => ({
  event: "auth",
  ...frame,
  body: { ...body, auth: typeof body.auth === "string" ? maskKey(body.auth) : body.auth },
});

const str = (v: unknown, max = 255): string | undefined => (typeof v === "string" && v !== "" && v.length <= max ? v : undefined);

/**
 * The realtime layer the SDK connects to after login (`wss://{CHAT_HOST}:{CHAT_WSS_PORT}`, root path): the `auth`
 * frame with the jwt from `PUT /me` opens a session; `ping` gets `pong`; committed changes (a subscriber of the
 * store's event stream, whatever plane made them) reach every session of every user who may see them; typing
 * indicators and transient messages are relayed between users; receipts sent over the socket are recorded as
 * the REST plane records them; presence follows the users' sessions. With no session connected the subscriber
 * returns at its first check.
 */
export class Realtime {
  readonly sessions = new Sessions();
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  private nextSessionId = 1;
  private readonly frames: FrameRecord[] = [];
  private nextFrameId = 1;
  private readonly frameWatchers = new Set<(f: FrameRecord) => void>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly jwt: Jwt,
    private readonly journal: Journal,
    private readonly rules: Rules,
  ) {}

  // ---- sockets ----

  /** The HTTP server's `upgrade` handler: WebSockets on the root path, nothing else. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = (req.url ?? "/").split("?")[0];
    if (path !== "/" && path !== "") {
      socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.connected(ws, req));
  }

  private connected(ws: WebSocket, req: IncomingMessage): void {
    const url = `ws://${req.headers.host ?? "localhost"}/`;
    this.record(req, url, null, { event: "connect" }, 101, null);
    let session: Session | undefined;
    let authing = false;
    const authTimer = setTimeout(() => ws.close(1008, "No auth frame"), AUTH_TIMEOUT_MS);
    authTimer.unref();
    ws.on("error", () => ws.terminate());
    ws.on("message", (data: RawData, isBinary: boolean) => {
      if (isBinary) return;
      let frame: Frame;
      const text = data.toString();
      if (nestedDeeper(text, MAX_JSON_DEPTH)) return; // as for HTTP bodies: it could not be sent on or journaled
      try {
        frame = JSON.parse(text) as Frame;
      } catch {
        return;
      }
      if (typeof frame !== "object" || frame === null || Array.isArray(frame)) return;
      if (frame.action === "ping") return this.send(ws, { action: "pong" });
      if (frame.type === "auth") {
        if (session) return this.send(ws, this.authReply(frame, "OK", "200"));
        if (authing) return;
        authing = true;
        return this.underRules(ws, req, url, frame, () => {
          authing = false;
          session = this.authenticate(ws, req, url, frame);
          if (session) clearTimeout(authTimer);
        });
      }
      if (session && this.sessions.has(session)) this.fromClient(session, frame);
    });
    ws.on("close", (code: number, reason: Buffer) => {
      clearTimeout(authTimer);
      const held = this.held.get(ws);
      if (held) clearTimeout(held.timer), this.held.delete(ws);
      if (session && this.sessions.has(session)) this.end(session);
      this.record(req, url, session?.appId ?? null, { event: "close", uid: session?.uid, deviceId: session?.deviceId, code, reason: reason.toString() }, code, null);
    });
  }

  private authReply(frame: Frame, status: string, code: string, message?: string) {
    const body: Record<string, unknown> = { status, code };
    if (message) body.message = message;
    return { appId: frame.appId, type: "auth", sender: frame.sender, deviceId: frame.deviceId, body };
  }

  /**
   * Fault rules that name `method: "WS"` act on auth frames, so that reconnect logic can be tested: latency delays
   * the answer, an error status refuses the session (the socket closes with 1008), a reset drops the socket.
   */
  private underRules(ws: WebSocket, req: IncomingMessage, url: string, frame: Frame, authenticate: () => void): void {
    if (this.rules.idle) return authenticate();
    const body = bodyOf(frame);
    const appId = this.jwt.verify(body.auth)?.appId ?? str(frame.appId)?.toLowerCase() ?? null;
    const decision = this.rules.decide({ method: "WS", plane: "client", appId, path: "/" });
    if (!decision) return authenticate();
    const act = () => {
      if (ws.readyState !== WebSocket.OPEN) return;
      const failure = decision.failure;
      if (!failure) return authenticate();
      const shown = shownAuth(frame, body);
      if (failure.effect.reset) {
        this.record(req, url, appId, shown, null, null, decision.applied); // no answer, as an HTTP reset
        return ws.terminate();
      }
      const error = failure.error(this.clock.now());
      const reply = this.authReply(frame, "ERROR", String(error.status), error.message);
      this.send(ws, reply);
      this.record(req, url, appId, shown, error.status, reply, decision.applied);
      ws.close(1008, "Refused by a rule");
    };
    if (decision.delayMs > 0) setTimeout(act, decision.delayMs);
    else act();
  }

  /** The `auth` frame: a jwt this emulator signed, whose token and user still exist, opens a session. */
  private authenticate(ws: WebSocket, req: IncomingMessage, url: string, frame: Frame): Session | undefined {
    const body = bodyOf(frame);
    const claims = this.jwt.verify(body.auth);
    const app = claims && this.store.apps.get(claims.appId);
    const token = claims && app?.tokens.get(claims.authToken);
    const user = token && token.uid === claims.uid ? app!.activeUser(claims.uid) : undefined;
    const shown = shownAuth(frame, body);
    if (!app || !token || !user) {
      const reply = this.authReply(frame, "ERROR", "401", "The jwt is invalid, or its auth token or user no longer exists. Please log in again.");
      this.send(ws, reply);
      this.record(req, url, app?.meta.appId ?? null, shown, 401, reply);
      ws.close(1008, "Invalid jwt");
      return undefined;
    }
    const session: Session = {
      id: this.nextSessionId++,
      ws,
      appId: app.meta.appId,
      uid: user.uid,
      authToken: token.authToken,
      deviceId: str(body.deviceId) ?? str(frame.deviceId) ?? token.deviceId ?? `session-${this.nextSessionId}`,
      platform: token.platform ?? str((body.params as Record<string, unknown> | undefined)?.platform) ?? "javascript",
      since: this.clock.nowMs(),
      presence: PRESENCE.includes(body.presenceSubscription as PresenceSubscription) ? (body.presenceSubscription as PresenceSubscription) : "NONE",
      roles: Array.isArray(body.roles) ? body.roles.filter((r): r is string => typeof r === "string").slice(0, 100) : [],
    };
    const first = this.sessions.add(session);
    const reply = this.authReply(frame, "OK", "200");
    this.send(ws, reply);
    this.record(req, url, app.meta.appId, shown, 200, reply);
    if (first) this.setPresence(app, user, "online", session.deviceId);
    this.connectionChanged(app, user, session, "connected", first);
    return session;
  }

  /** Ends a session (its socket closed, or closed by us): the user goes offline with their last one. */
  private end(session: Session): void {
    if (!this.sessions.has(session)) return;
    const last = this.sessions.remove(session);
    const app = this.store.apps.get(session.appId);
    const user = app?.users.get(session.uid);
    if (!app || !user || user.deletedAt !== undefined) return;
    if (last) this.setPresence(app, user, "offline", session.deviceId);
    this.connectionChanged(app, user, session, "disconnected", last);
  }

  /**
   * `user_connection_status_changed` (rest-api/management-apis: "after a user connects/disconnects from the
   * websocket server"), for each socket; `userPresenceChanged` when it made the user go online or offline. The
   * values are taken now: the webhook payload is built later, when the user may have changed again.
   */
  private connectionChanged(app: AppState, user: UserRecord, session: Session, action: "connected" | "disconnected", changed: boolean): void {
    const data = {
      timestamp: this.clock.nowMs(),
      user: userView(user),
      status: user.status,
      currentConnection: { action, platform: session.platform, connectedAt: session.since },
      userPresenceChanged: changed,
    };
    app.emit("user_connection_status_changed", () => data);
  }

  /** Closes the matching sessions (a test of reconnect logic, or a logout); returns how many. */
  closeSessions(filter: SessionFilter & { deviceId?: string }, code = 1001, reason = "Closed by the emulator"): number {
    let n = 0;
    for (const s of [...this.sessions.all()]) {
      if ((filter.appId && s.appId !== filter.appId) || (filter.uid && s.uid !== filter.uid) || (filter.deviceId && s.deviceId !== filter.deviceId))
        continue;
      this.end(s);
      s.ws.close(code, reason);
      n++;
    }
    return n;
  }

  /**
   * Auth tokens were deleted or flushed: the sockets opened with them close, as the platform logs such a session
   * out. The SDK treats any close alike (it reconnects); its new `auth` frame is then refused (401) and its next
   * API call answers AUTH_ERR_AUTH_TOKEN_NOT_FOUND, on which it logs out.
   */
  private revoke(appId: string, { uid, authTokens }: TokensRevoked): void {
    const gone = new Set(authTokens);
    for (const s of [...(this.sessions.of(appId, uid) ?? [])])
      if (gone.has(s.authToken)) {
        this.end(s);
        s.ws.close(1008, "Auth token deleted");
      }
  }

  /** `DELETE /me`: the device's sockets close; without another session the user is offline. */
  logout(app: AppState, user: UserRecord, deviceId: string | undefined): void {
    if (deviceId) this.closeSessions({ appId: app.meta.appId, uid: user.uid, deviceId }, 1000, "User logged out");
    if (this.sessions.of(app.meta.appId, user.uid)) return;
    user.status = "offline";
    user.lastActiveAt = this.clock.now();
    app.touchUser(user);
  }

  list(filter: SessionFilter = {}): SessionView[] {
    const out: SessionView[] = [];
    for (const s of this.sessions.all())
      if ((!filter.appId || s.appId === filter.appId) && (!filter.uid || s.uid === filter.uid)) out.push(sessionView(s));
    return out;
  }

  /** Stops every socket (the emulator is closing). */
  shutdown(): void {
    for (const s of [...this.sessions.all()]) this.sessions.remove(s);
    for (const { timer } of this.held.values()) clearTimeout(timer);
    this.held.clear();
    for (const ws of this.wss.clients) ws.terminate();
    this.wss.close();
  }

  // ---- frames ----

  private send(ws: WebSocket, frame: unknown): void {
    this.sendText(ws, JSON.stringify(frame));
  }

  private sendText(ws: WebSocket, data: string | Buffer): void {
    if (ws.readyState !== WebSocket.OPEN) return;
    if (ws.bufferedAmount > MAX_BUFFERED_BYTES) return ws.terminate();
    ws.send(data, { binary: false });
  }

  /**
   * Frames held back by realtime latency rules (`match.frame`), per socket, in the order they were sent: a socket
   * is one stream, so a frame that is not delayed still waits for the delayed ones before it.
   */
  private readonly held = new Map<WebSocket, { queue: { at: number; data: Buffer }[]; timer: NodeJS.Timeout }>();

  private sendAfter(ws: WebSocket, data: Buffer, delayMs: number): void {
    const waiting = this.held.get(ws);
    if (delayMs === 0 && !waiting) return this.sendText(ws, data);
    const at = Math.max(performance.now() + delayMs, waiting?.queue.at(-1)?.at ?? 0);
    if (waiting) waiting.queue.push({ at, data });
    else this.held.set(ws, { queue: [{ at, data }], timer: this.flushAt(ws, at) });
  }

  private flushAt(ws: WebSocket, at: number): NodeJS.Timeout {
    return setTimeout(() => {
      const waiting = this.held.get(ws)!;
      const now = performance.now();
      while (waiting.queue.length > 0 && waiting.queue[0].at <= now + 1) this.sendText(ws, waiting.queue.shift()!.data);
      if (waiting.queue.length === 0 || ws.readyState !== WebSocket.OPEN) this.held.delete(ws);
      else waiting.timer = this.flushAt(ws, waiting.queue[0].at);
    }, Math.max(0, at - performance.now())).unref();
  }

  /** One frame to every session of `uids`; encoded once (a group's fan-out), logged once. */
  private deliver(appId: string, uids: Iterable<string>, frame: Record<string, unknown>): void {
    const data = Buffer.from(JSON.stringify(frame));
    // Realtime latency (frame rules): one delay per frame, the same for every recipient.
    const delay = this.rules.idle ? 0 : this.rules.frameDelay(appId, String(frame.type));
    let n = 0;
    for (const uid of uids)
      for (const s of this.sessions.of(appId, uid) ?? []) {
        if (delay === 0 && this.held.size === 0) this.sendText(s.ws, data);
        else this.sendAfter(s.ws, data, delay);
        n++;
      }
    if (n > 0) this.log({ appId, direction: "out", to: n, type: String(frame.type), frame });
  }

  /** The store's event subscriber. Costs one comparison while no socket is connected. */
  publish(e: DomainEvent): void {
    if (this.sessions.size === 0) return;
    const online = this.sessions.online(e.app.meta.appId);
    if (!online) return;
    if (e.trigger === AUTH_TOKENS_REVOKED) return this.revoke(e.app.meta.appId, e.data() as TokensRevoked);
    const delivery = deliveryOf(e, originDevice());
    if (!delivery) return;
    const only = typeof delivery.only === "string" ? [delivery.only] : delivery.only && [...new Set(delivery.only)];
    const uids = only ? only.filter((uid) => online.has(uid)) : "about" in delivery ? recipients(e.app, delivery.about, online) : [];
    // Nobody who may see it is online: the frame is never built.
    if (uids.length === 0) return;
    const frame = delivery.frame();
    if ("after" in delivery && delivery.after) setTimeout(() => this.deliver(e.app.meta.appId, uids, frame), delivery.after).unref();
    else this.deliver(e.app.meta.appId, uids, frame);
  }

  /** A frame from an authenticated client: typing and transient messages are relayed, receipts recorded. */
  private fromClient(session: Session, frame: Frame): void {
    const app = this.store.apps.get(session.appId);
    const user = app?.activeUser(session.uid);
    if (!app || !user) return;
    const type = frame.type;
    if (type !== "typing_indicator" && type !== "transient_message" && type !== "receipts") return;
    this.log({ appId: app.meta.appId, direction: "in", from: user.uid, type, frame });
    const receiverType = frame.receiverType;
    const receiver = str(frame.receiver, 100)?.toLowerCase();
    if ((receiverType !== "user" && receiverType !== "group") || !receiver) return;
    const body = bodyOf(frame);
    if (type === "receipts") return this.receipt(app, user, session, receiverType, receiver, body);
    // Relays reach the other party, or the other members; never the sender, and not across a block.
    let targets: string[];
    if (receiverType === "user") {
      if (receiver === user.uid || app.relations.blockOf(user.uid, receiver) || app.relations.blockOf(receiver, user.uid)) return;
      targets = [receiver];
    } else {
      if (!app.groups.member(receiver, user.uid)) return;
      const online = this.sessions.online(app.meta.appId)!;
      targets = [...online.keys()].filter((uid) => uid !== user.uid && app.groups.member(receiver, uid));
    }
    const out: Record<string, unknown> = { ...body, user: userView(user) };
    this.deliver(app.meta.appId, targets, { appId: app.meta.appId, receiver, receiverType, deviceId: session.deviceId, sender: user.uid, type, body: out });
  }

  /** `markAsRead` / `markAsDelivered` over the socket: recorded as `POST .../conversation/read|delivered` does. */
  private receipt(app: AppState, reader: UserRecord, session: Session, receiverType: string, receiver: string, body: Record<string, unknown>): void {
    const action = body.action;
    if (action !== "read" && action !== "delivered") return;
    const id = typeof body.messageId === "string" || typeof body.messageId === "number" ? Number(body.messageId) : NaN;
    const m = Number.isInteger(id) ? app.messages.get(id) : undefined;
    if (!m || !canSee(app, reader, m)) return;
    const conversationId = receiverType === "group" ? groupConversationId(receiver) : userConversationId(reader.uid, receiver);
    if (m.conversationId !== conversationId) return;
    withOriginDevice(session.deviceId, () => markReceipt(app, action, reader, m, receiver, this.clock.now()));
    this.store.changed();
  }

  // ---- presence ----

  /**
   * A user's presence changed: their status (and, going offline, `lastActiveAt`: the "last seen" of
   * sdk/javascript/user-presence), and a `presence` frame to every session subscribed to them.
   */
  private setPresence(app: AppState, user: UserRecord, action: "online" | "offline", deviceId: string): void {
    user.status = action === "online" ? "available" : "offline";
    if (action === "offline") user.lastActiveAt = this.clock.now();
    app.touchUser(user);
    this.store.changed();
    const online = this.sessions.online(app.meta.appId);
    if (!online) return;
    const targets: string[] = [];
    for (const [uid, mine] of online) {
      if (uid === user.uid || app.relations.blockOf(uid, user.uid) || app.relations.blockOf(user.uid, uid)) continue;
      for (const s of mine) {
        if (s.presence === "ALL_USERS" || (s.presence === "FRIENDS" && app.relations.friendship(uid, user.uid)) || (s.presence === "ROLES" && s.roles.includes(user.role))) {
          targets.push(uid);
          break;
        }
      }
    }
    const frame = { appId: app.meta.appId, deviceId, sender: user.uid, type: "presence", body: { action, timestamp: this.clock.now(), user: userView(user) } };
    this.deliver(app.meta.appId, targets, frame);
  }

  // ---- what the control plane shows ----

  private log(f: Omit<FrameRecord, "id" | "time">): void {
    const record: FrameRecord = { id: this.nextFrameId++, time: new Date(this.clock.nowMs()).toISOString(), ...f };
    this.frames.push(record);
    if (this.frames.length > FRAME_LOG_SIZE) this.frames.shift();
    for (const watch of this.frameWatchers) watch(record);
  }

  /** The last frames, oldest first (after `afterId` when given). */
  recentFrames(afterId = 0): FrameRecord[] {
    return this.frames.filter((f) => f.id > afterId);
  }

  watchFrames(fn: (f: FrameRecord) => void): () => void {
    this.frameWatchers.add(fn);
    return () => this.frameWatchers.delete(fn);
  }

  /** Socket connects, auths and closes go to the request journal as `WS` entries of the client plane. */
  private record(req: IncomingMessage, url: string, appId: string | null, what: unknown, status: number | null, reply: unknown, rules: string[] = []): void {
    if (!this.journal.enabled) return;
    this.journal.record({
      id: this.journal.nextId(),
      timeMs: this.clock.nowMs(),
      method: "WS",
      plane: "client",
      appId,
      url,
      headers: req.rawHeaders,
      requestText: JSON.stringify(what),
      status,
      responseText: reply === null ? null : JSON.stringify(reply),
      durationMs: 0,
      rules,
      advice: NO_ADVICE,
    });
  }
}
