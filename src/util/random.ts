import { randomBytes } from "node:crypto";

/**
 * Random hex for generated ids and keys. Crypto-random by default; `seed()` switches to a repeatable
 * generator (mulberry32) so that `--random-seed N` gives the same ids on every run.
 */
let next: (() => number) | null = null;

/** A repeatable generator of numbers in [0, 1) (mulberry32). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function seedRandom(seed: number | undefined): void {
  next = seed === undefined ? null : seededRandom(seed);
}

/** A number in [0, 1): seeded when a seed is set. */
export function random(): number {
  return next ? next() : Math.random();
}

export function randomHex(length: number): string {
  if (!next) return randomBytes(Math.ceil(length / 2)).toString("hex").slice(0, length);
  let out = "";
  while (out.length < length) out += Math.floor(next() * 16).toString(16);
  return out;
}

/** A version-4 UUID from the same generator (repeatable under a seed). */
export function randomUuid(): string {
  const h = randomHex(32);
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
