import { expect, it } from "vitest";
import { fuzz, prototypeSweep, type FuzzStats } from "./fuzz.lib.js";

/**
 * The fuzz suite: a bounded run here (part of `npm test`); `npm run fuzz` runs a long one
 * (FUZZ_REQUESTS, FUZZ_SEED to repeat a run).
 */
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 2500);
const SEED = Number(process.env.FUZZ_SEED ?? 17);

const counts = (stats: FuzzStats) =>
  `${stats.requests} requests over ${stats.routes} routes: ${stats.serverErrors} 5xx, ${stats.nonEnvelope} errors outside the envelope, ` +
  `${stats.refusedButChanged} refusals that changed state; statuses ${JSON.stringify(stats.byStatus)}; codes ${JSON.stringify(stats.byCode)}`;

it(`${REQUESTS} fuzzed requests over every route: no 5xx, errors in the envelope, refusals change nothing`, async () => {
  const stats = await fuzz(REQUESTS, SEED);
  console.log(`fuzz (seed ${SEED}): ${counts(stats)}`);
  expect(stats.failures).toEqual([]);
  expect(stats.requests).toBe(REQUESTS);
}, Math.max(60_000, REQUESTS * 20));

const OVER_HTTP = Math.ceil(REQUESTS / 2);
it(`${OVER_HTTP} fuzzed requests over a socket (Node's server and the platform lane): the same properties`, async () => {
  const stats = await fuzz(OVER_HTTP, SEED + 1, true);
  console.log(`fuzz over HTTP (seed ${SEED + 1}): ${counts(stats)}`);
  expect(stats.failures).toEqual([]);
  expect(stats.requests).toBe(OVER_HTTP);
}, Math.max(60_000, OVER_HTTP * 20));

it("keys, ids and query names named like Object's properties, on every route: never a 5xx", async () => {
  const stats = await prototypeSweep();
  console.log(`prototype sweep: ${counts(stats)}`);
  expect(stats.failures).toEqual([]);
}, 120_000);
