/** A promise and the functions that settle it: what callers wait for until an event happens (Node 20 has no Promise.withResolvers). */
export interface Waiting {
  promise: Promise<void>;
  resolve: () => void;
  reject: (e: unknown) => void;
}

/** A rejection nobody waits for (no caller took the promise) is not an unhandled one: the promise is marked handled. */
export function waiting(): Waiting {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => {});
  return { promise, resolve, reject };
}
