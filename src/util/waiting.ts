/** A promise and the function that resolves it: what callers wait for until an event happens (Node 20 has no Promise.withResolvers). */
export interface Waiting {
  promise: Promise<void>;
  resolve: () => void;
}

export function waiting(): Waiting {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
