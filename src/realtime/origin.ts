import { AsyncLocalStorage } from "node:async_hooks";

/**
 * The SDK session (its `resource` header, the same id its WebSocket uses as `deviceId`) whose client-plane call is
 * being handled, so the realtime frames that call causes name it: the SDK drops frames of its own device (the
 * sender already has the message from the answer), while the user's other tabs get them. Set only around
 * client-plane requests and socket frames, so REST-plane requests pay nothing.
 */
const current = new AsyncLocalStorage<string>();

export function withOriginDevice<T>(deviceId: string | undefined, fn: () => T): T {
  return deviceId ? current.run(deviceId, fn) : fn();
}

export function originDevice(): string | undefined {
  return current.getStore();
}
