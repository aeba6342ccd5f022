import { AsyncLocalStorage } from "node:async_hooks";

/**
 * The SDK session (its `resource` header, the same id its WebSocket uses as `deviceId`) whose client-plane call is
 * being handled, so the realtime frames that call causes name it: the SDK drops frames of its own device (the
 * sender already has the message from the answer), while the user's other tabs get them. Set only around
 * client-plane requests and socket frames, so REST-plane requests pay nothing.
 *
 * A call names its device only while it runs: the storage holds the call, which is marked ended when it answers,
 * so what runs later (a timer or a queue drain it set) names no device, whichever way the Node version carries the
 * async context into timers (Node 24's AsyncContextFrame keeps the store a timer was set under; Node 20 and 22 drop
 * it once the storage is disabled). Frames sent later take the device explicitly, read when the event was published
 * (realtime.ts, `after`).
 *
 * On Node 20 and 22 an enabled AsyncLocalStorage puts a hook on every promise the process makes, whoever makes it:
 * after a single client-plane call, a REST `POST /v3/messages` cost 19% more server CPU for the rest of the process.
 * So the storage is enabled only while such a call or frame is in progress, and disabled when the last one ends.
 */
interface Call {
  readonly deviceId: string;
  running: boolean;
}
const current = new AsyncLocalStorage<Call>();
/** Calls and frames running inside the storage (a call's promise counts until it settles). */
let inside = 0;

export function withOriginDevice<T>(deviceId: string | undefined, fn: () => T): T {
  if (!deviceId) return fn();
  const call: Call = { deviceId, running: true };
  const leave = () => {
    call.running = false;
    if (--inside === 0) current.disable();
  };
  inside++;
  let out: T;
  try {
    out = current.run(call, fn);
  } catch (e) {
    leave();
    throw e;
  }
  if (out instanceof Promise) out.then(leave, leave);
  else leave();
  return out;
}

export function originDevice(): string | undefined {
  const call = current.getStore();
  return call?.running ? call.deviceId : undefined;
}
