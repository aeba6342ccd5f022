import { AsyncLocalStorage } from "node:async_hooks";

/**
 * The SDK session (its `resource` header, the same id its WebSocket uses as `deviceId`) whose client-plane call is
 * being handled, so the realtime frames that call causes name it: the SDK drops frames of its own device (the
 * sender already has the message from the answer), while the user's other tabs get them. Set only around
 * client-plane requests and socket frames, so REST-plane requests pay nothing.
 *
 * On Node 20 an enabled AsyncLocalStorage puts a hook on every promise the process makes, whoever makes it: after a
 * single client-plane call, a REST `POST /v3/messages` cost 19% more server CPU for the rest of the process. So the
 * storage is enabled only while such a call or frame is in progress, and disabled when the last one ends; what
 * runs after a call has answered (a timer it set) is not that call's doing and names no device.
 */
const current = new AsyncLocalStorage<string>();
/** Calls and frames running inside the storage (a call's promise counts until it settles). */
let inside = 0;

function leave(): void {
  if (--inside === 0) current.disable();
}

export function withOriginDevice<T>(deviceId: string | undefined, fn: () => T): T {
  if (!deviceId) return fn();
  inside++;
  let out: T;
  try {
    out = current.run(deviceId, fn);
  } catch (e) {
    leave();
    throw e;
  }
  if (out instanceof Promise) out.then(leave, leave);
  else leave();
  return out;
}

export function originDevice(): string | undefined {
  return current.getStore();
}
